/** The exit codes of acmctl: scripts tell the outcomes apart without parsing the output. */
export const EXIT = {
  OK: 0,
  /** A bad command line or a local file that cannot be read or parsed. */
  USAGE: 1,
  /** The operation ran and ended FAILED. */
  FAILED: 2,
  /** The operation timed out on the runtime, or `--wait` gave up waiting. */
  TIMEOUT: 3,
  /** The runtime refused the request (4xx other than 401/403). */
  REFUSED: 4,
  /** No runtime answered at the URL (connection refused, DNS, network). */
  UNREACHABLE: 5,
  /** The runtime refused the credentials (401 or 403). */
  UNAUTHORIZED: 6,
  /** The runtime answered 5xx or something acmctl cannot read. */
  SERVER_ERROR: 7,
  /** The operation was cancelled, or superseded by a newer order. */
  CANCELLED: 8,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends acmctl with a message block and a given exit code. */
export class AcmctlError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = 'AcmctlError';
  }
}
