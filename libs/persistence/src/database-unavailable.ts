import { DomainError } from '@acm/domain';

/** Socket errors of a database that is down, restarting or unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or not accepting connections yet: class 08 (connection exception),
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now.
 */
function isUnavailableSqlState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03';
}

/** Messages of node-postgres that carry no code: a connection dropped under a query, or the pool's connect timeout. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
];

function describesUnavailable(error: object): boolean {
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined && (NETWORK_CODES.has(code) || isUnavailableSqlState(code))) {
    return true;
  }
  const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
  return UNAVAILABLE_MESSAGES.some((text) => message.includes(text));
}

/**
 * True when an error says the database cannot be reached, rather than that a statement is wrong. TypeORM wraps the
 * driver's error (`driverError`), and Node wraps socket errors (`cause`, or `errors` of an AggregateError when every
 * address of a host refused), so the chain is followed a few levels.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) {
    return false;
  }
  if (describesUnavailable(error)) {
    return true;
  }
  const nested: unknown[] = [];
  if ('driverError' in error) {
    nested.push(error.driverError);
  }
  if ('cause' in error) {
    nested.push(error.cause);
  }
  if ('errors' in error && Array.isArray(error.errors)) {
    nested.push(...(error.errors as unknown[]));
  }
  return nested.some((inner) => isDatabaseUnavailable(inner, depth + 1));
}

/** The database's absence as a refusal with a code, so the HTTP layer maps it like any other (503). */
export function asStoreUnavailable(error: unknown): DomainError | undefined {
  return isDatabaseUnavailable(error)
    ? new DomainError('STORE_UNAVAILABLE', 'The database is not reachable; retry later', {
        cause: error instanceof Error ? error.message : String(error),
      })
    : undefined;
}
