/**
 * Which database failures may clear by themselves, so the work that met them is worth repeating as it
 * was (an ACK re-applied, a request answered 503 "try again") rather than refused for good.
 */
import { isCachedPlanChanged } from './prepared-query';

/**
 * SQLSTATEs of a server that is unreachable, restarting, out of a resource or resolving a conflict: class 08
 * (connection exception) and class 53 (insufficient resources: disk full, out of memory, too many connections) are
 * matched by prefix; these are the others.
 */
const TRANSIENT_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the backend was terminated (server stopping, pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up or in recovery
  '57014', // query_canceled: the statement ran past statement_timeout (the runtime cancels nothing else)
  '25P03', // idle_in_transaction_session_timeout: the session was ended, its transaction rolled back
  '55P03', // lock_not_available
  '40001', // serialization_failure: retrying the transaction is the documented remedy
  '40P01', // deadlock_detected: the victim's transaction may be retried
]);

/** Socket errors of a server that is down or was cut off (Node's `error.code`). */
const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Messages node-postgres and its pool throw without a code when a connection is lost or not obtained in time. */
const TRANSIENT_DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'terminating connection due to',
  // node-postgres's query_timeout: the server did not answer in time (the connection is destroyed, see data-source).
  'Query read timeout',
  // TypeORM after its pool was closed: this process is stopping, another replica (or the next start) can do the work.
  'Driver not Connected',
];

/** The error and the ones it wraps: TypeORM's `driverError`, `cause`, an AggregateError's `errors`. */
export function* causes(error: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (typeof error !== 'object' || error === null || depth > 5) {
    return;
  }
  const record = error as Record<string, unknown>;
  yield record;
  yield* causes(record['driverError'], depth + 1);
  yield* causes(record['cause'], depth + 1);
  if (Array.isArray(record['errors'])) {
    for (const inner of record['errors']) {
      yield* causes(inner, depth + 1);
    }
  }
}

function isTransientOne(error: Record<string, unknown>): boolean {
  const code = error['code'];
  // `runPrepared` prepares that statement under a new name from then on, so the work succeeds when repeated.
  if (isCachedPlanChanged(error)) {
    return true;
  }
  if (typeof code === 'string' && (code.startsWith('08') || code.startsWith('53') || TRANSIENT_SQLSTATES.has(code))) {
    return true;
  }
  if (typeof code === 'string' && TRANSIENT_SOCKET_CODES.has(code)) {
    return true;
  }
  const message = error['message'];
  return typeof message === 'string' && TRANSIENT_DRIVER_MESSAGES.some((text) => message.includes(text));
}

/**
 * True when the database was unavailable (down, restarting, connection lost, pool exhausted) or asked
 * for the transaction to be retried (serialization failure, deadlock): the same work may succeed later.
 * False for everything else, including constraint violations and bad SQL, which would fail again.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  for (const candidate of causes(error)) {
    if (isTransientOne(candidate)) {
      return true;
    }
  }
  return false;
}
