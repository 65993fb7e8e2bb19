/**
 * Named prepared statements for the engine's hot SQL. `EntityManager.query` sends its text as an unnamed statement,
 * so PostgreSQL parses, analyses and plans the whole multi-CTE text on every call; a named one is parsed once per
 * connection and then only bound and executed. TypeORM cannot name a statement, the pg client under it can.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { QueryFailedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/** A fixed SQL text and the name it is prepared under: one name per distinct text, whatever built the text. */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/**
 * The statement for `text`. Build it once (a module constant): pg refuses a name it prepared with another text on
 * the same connection, so the name is a digest of the text, never chosen by hand.
 */
export function preparedStatement(text: string): PreparedStatement {
  return { name: `acm_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}

/** What `runPrepared` needs of pg's client (the connection a TypeORM query runner holds). */
interface PgClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{
    command: string;
    rowCount: number | null;
    rows: unknown[];
  }>;
}

const CACHED_PLAN_CHANGED = 'cached plan must not change result type';

/** Per statement, how many times it was renamed after `CACHED_PLAN_CHANGED`: connections prepare the new name. */
const renames = new Map<string, number>();

function nameOf(statement: PreparedStatement): { name: string; rename: number } {
  const rename = renames.get(statement.name) ?? 0;
  return { name: rename === 0 ? statement.name : `${statement.name}_${rename}`, rename };
}

/**
 * PostgreSQL refuses to run a prepared statement whose result columns changed type since it was prepared (a
 * migration run by another replica during a rolling upgrade), and keeps refusing it under that name on that
 * connection. Every other feature_not_supported (0A000) is a statement that will never run.
 */
export function isCachedPlanChanged(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) {
    return false;
  }
  const { code, message, routine } = error as { code?: unknown; message?: unknown; routine?: unknown };
  // The routine that raises it names it whatever language the server speaks (lc_messages); the text, in English.
  return (
    code === '0A000' &&
    (routine === 'RevalidateCachedQuery' || (typeof message === 'string' && message.includes(CACHED_PLAN_CHANGED)))
  );
}

/**
 * Runs `statement` as a named prepared statement on the connection of `manager`'s query runner (one taken from the
 * data source and released after, as `EntityManager.query` does, when the manager has none). Answers and fails
 * exactly as `manager.query(statement.text, parameters)`: the rows (`[rows, affected]` for UPDATE and DELETE),
 * and a `QueryFailedError` wrapping pg's error, which the error mapping and `isTransientDatabaseError` read.
 */
export async function runPrepared<T>(
  manager: EntityManager,
  statement: PreparedStatement,
  parameters: readonly unknown[],
): Promise<T> {
  if (manager.queryRunner?.isReleased === true) {
    throw new QueryRunnerProviderAlreadyReleasedError();
  }
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const client = (await runner.connect()) as PgClient;
    const { logger } = manager.connection;
    const values = [...parameters];
    logger.logQuery(statement.text, values, runner);
    const { name, rename } = nameOf(statement);
    try {
      const raw = await client.query({ name, text: statement.text, values });
      return (raw.command === 'UPDATE' || raw.command === 'DELETE' ? [raw.rows, raw.rowCount] : raw.rows) as T;
    } catch (error) {
      // Only the first connection to meet it renames: the others' failures came from the old name too.
      if (isCachedPlanChanged(error) && (renames.get(statement.name) ?? 0) === rename) {
        renames.set(statement.name, rename + 1);
      }
      logger.logQueryError(error as Error, statement.text, values, runner);
      throw new QueryFailedError(statement.text, values, error as Error);
    }
  } finally {
    if (manager.queryRunner === undefined) {
      await runner.release();
    }
  }
}
