import { DomainError } from '@acm/domain';
import { isTransientDatabaseError } from './transient-errors';

/**
 * True when an error says the database cannot do the work now (down, restarting, connection lost, pool exhausted,
 * or a conflict it asks to retry), rather than that a statement is wrong: the request may succeed later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return isTransientDatabaseError(error);
}

/** The database's absence as a refusal with a code, so the HTTP layer maps it like any other (503). */
export function asStoreUnavailable(error: unknown): DomainError | undefined {
  return isDatabaseUnavailable(error)
    ? new DomainError('STORE_UNAVAILABLE', 'The database is not reachable; retry later', {
        cause: error instanceof Error ? error.message : String(error),
      })
    : undefined;
}
