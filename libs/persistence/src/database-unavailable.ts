import { DomainError } from '@acm/domain';
import { causes, isTransientDatabaseError } from './transient-errors';

/**
 * True when an error says the database cannot do the work now (down, restarting, connection lost, pool exhausted,
 * silent past the statement deadline, out of disk, memory or connections, or a conflict it asks to retry), rather
 * than that a statement is wrong: the request may succeed later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return isTransientDatabaseError(error);
}

/** Why the database could not do the work, for the answer, the log and the metrics. */
export type StoreFailureCause =
  'disk-full' | 'out-of-memory' | 'too-many-connections' | 'out-of-resources' | 'deadline' | 'unreachable';

export interface StoreFailure {
  readonly cause: StoreFailureCause;
  /** The server's SQLSTATE, when it gave one. */
  readonly sqlstate?: string;
  /** A write failed for lack of space (507) rather than the database being unavailable (503). */
  readonly storageFull: boolean;
  readonly message: string;
}

const DEADLINE = 'the statement deadline (DATABASE_STATEMENT_TIMEOUT_MS)';

/** Class 53 (insufficient resources) by SQLSTATE: the server is up but cannot do the work. */
function resourceFailure(sqlstate: string): StoreFailure {
  switch (sqlstate) {
    case '53100':
      return {
        cause: 'disk-full',
        sqlstate,
        storageFull: true,
        message: 'The database cannot write: its disk is full (SQLSTATE 53100); retry once space is freed',
      };
    case '53200':
      return {
        cause: 'out-of-memory',
        sqlstate,
        storageFull: false,
        message: 'The database is out of memory (SQLSTATE 53200); retry later',
      };
    case '53300':
      return {
        cause: 'too-many-connections',
        sqlstate,
        storageFull: false,
        message: 'The database has no connection slot left (SQLSTATE 53300); retry later',
      };
    default:
      return {
        cause: 'out-of-resources',
        sqlstate,
        storageFull: false,
        message: `The database is out of a resource (SQLSTATE ${sqlstate}); retry later`,
      };
  }
}

/**
 * What stopped the database doing the work, when it is something that may clear by itself; undefined for a
 * statement that is wrong (it would fail again). A COMMIT the server did not answer in time is the one case whose
 * outcome is unknown when the answer leaves: the server's own timeouts settle it before then (see data-source.ts),
 * and the history says which way.
 */
export function describeStoreFailure(error: unknown): StoreFailure | undefined {
  if (!isDatabaseUnavailable(error)) {
    return undefined;
  }
  let commit = false;
  for (const candidate of causes(error)) {
    const code = candidate['code'];
    if (typeof code === 'string' && code.startsWith('53')) {
      return resourceFailure(code);
    }
    commit ||= typeof candidate['query'] === 'string' && candidate['query'].trim().toUpperCase() === 'COMMIT';
  }
  for (const candidate of causes(error)) {
    const code = candidate['code'];
    if (code === '57014' || code === '25P03') {
      return {
        cause: 'deadline',
        sqlstate: code,
        storageFull: false,
        message: `The database did not finish within ${DEADLINE}; nothing was changed; retry later`,
      };
    }
    if (candidate['message'] === 'Query read timeout') {
      return {
        cause: 'deadline',
        storageFull: false,
        message: commit
          ? `The database did not confirm the commit within ${DEADLINE}: the order was applied only if its history says so; retry later`
          : `The database did not answer within ${DEADLINE}; retry later`,
      };
    }
  }
  return { cause: 'unreachable', storageFull: false, message: 'The database is not reachable; retry later' };
}

/** The database's absence as a refusal with a code, so the HTTP layer maps it like any other (503, or 507). */
export function asStoreUnavailable(error: unknown): DomainError | undefined {
  const failure = describeStoreFailure(error);
  if (failure === undefined) {
    return undefined;
  }
  return new DomainError(failure.storageFull ? 'STORE_FULL' : 'STORE_UNAVAILABLE', failure.message, {
    cause: error instanceof Error ? error.message : String(error),
    storeFailure: failure.cause,
    ...(failure.sqlstate === undefined ? {} : { sqlstate: failure.sqlstate }),
  });
}
