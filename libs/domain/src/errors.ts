/**
 * Every refusal the runtime can give, as a stable code. Codes are transport-free: the HTTP layer maps
 * them to statuses in one exhaustive switch, so a new code cannot ship without a mapping.
 */
export const DOMAIN_ERROR_CODES = [
  /** The input breaks a rule (shape, format, reference). */
  'VALIDATION_FAILED',
  /** The addressed definition, instance, participant or element does not exist. */
  'NOT_FOUND',
  /** The order is not allowed in the current state (ONAP's resolver tables). */
  'ORDER_NOT_ALLOWED',
  /** A name/version or element id already belongs to something else. */
  'ALREADY_EXISTS',
  /** The path and the body name different objects. */
  'ID_MISMATCH',
  /** A participant needed by the order has no ON_LINE replica. */
  'PARTICIPANT_OFFLINE',
  /** Another order changed the same object first; the caller may read again and retry. */
  'CONCURRENT_MODIFICATION',
  /** A control request (cancel, pause, resume) finds no running operation to act on. */
  'NOTHING_RUNNING',
  /** A signal carries no valid credentials or token. */
  'UNAUTHENTICATED',
  /** A signal's token does not grant this element (or has expired); whether the element exists is not said. */
  'FORBIDDEN',
  /** The store cannot be reached (down, restarting, unreachable); nothing was changed and the caller may retry. */
  'STORE_UNAVAILABLE',
  /** The store cannot write for lack of space (disk full); nothing was changed and the caller may retry later. */
  'STORE_FULL',
  /** An instance a rollout selects already belongs to another rollout that has not finished. */
  'SELECTION_TAKEN',
  /** A group's scaling call comes during its cooldown, or while another operation runs on the instance. */
  'SCALING_REFUSED',
  /** The instance is the nested composition of another instance's element: only its parent orders it. */
  'OWNED_BY_PARENT',
  /** A maintenance window holds the order now (a deny window is open, or no allow window is); no override given. */
  'OUTSIDE_WINDOW',
  /** An order waits for approvals: the instance takes no other order until it is approved, rejected or expired. */
  'APPROVAL_PENDING',
  /** An approval the rules refuse: by the orderer, a second one by the same user, or of an order no longer waiting. */
  'APPROVAL_REFUSED',
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** Machine-readable context (state, order, allowed alternatives) for diagnostics and logs. */
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
