import { RetentionStore } from '@acm/domain';
import type { Operation, OperationCursor, PrunedRows, RetentionCandidate, StoredEvent } from '@acm/domain';
import type { DataSource } from 'typeorm';
import type { EventRow, OperationRow } from './engine-repositories';
import { OPERATION_COLUMNS, operationOf, storedEvent } from './engine-repositories';

/** Below every random (version 4) uuid: where a walk over the subjects starts. */
const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/**
 * The distinct subjects after a cursor, read as a loose index scan (one index probe per subject) of the operations'
 * `(target_id, started_at)` index and the events' `(subject_id, sequence)` index: cheap however many rows each has.
 */
const SUBJECTS_AFTER = `
  WITH RECURSIVE operation_subjects AS (
    (SELECT target_id AS id FROM acm_operation WHERE target_id > $1 ORDER BY target_id LIMIT 1)
    UNION ALL
    SELECT (SELECT target_id FROM acm_operation WHERE target_id > s.id ORDER BY target_id LIMIT 1)
    FROM operation_subjects s WHERE s.id IS NOT NULL
  ), event_subjects AS (
    (SELECT subject_id AS id FROM acm_event WHERE subject_id > $1 ORDER BY subject_id LIMIT 1)
    UNION ALL
    SELECT (SELECT subject_id FROM acm_event WHERE subject_id > s.id ORDER BY subject_id LIMIT 1)
    FROM event_subjects s WHERE s.id IS NOT NULL
  )
  SELECT id FROM (SELECT id FROM operation_subjects WHERE id IS NOT NULL LIMIT $2) AS o
  UNION
  SELECT id FROM (SELECT id FROM event_subjects WHERE id IS NOT NULL LIMIT $2) AS e
  ORDER BY id LIMIT $2`;

/** Ranks as `rankOperations` computes them: running operations count in the rank, never in a class. */
const CANDIDATES = `
  SELECT operation_id, target_id, state, timed_out, started_at, finished_at, rank, class_rank FROM (
    SELECT operation_id, target_id, state, timed_out, started_at, finished_at,
      row_number() OVER (PARTITION BY target_id ORDER BY started_at DESC, operation_id DESC) AS rank,
      row_number() OVER (
        PARTITION BY target_id, state = 'RUNNING', (state = 'FAILED' OR timed_out)
        ORDER BY started_at DESC, operation_id DESC) AS class_rank
    FROM acm_operation WHERE target_id = ANY($1::uuid[])
  ) AS ranked
  WHERE state <> 'RUNNING'`;

/**
 * One statement: the finished operations asked for that nobody holds locked (SKIP LOCKED, so replicas pruning at
 * once never wait for each other nor for an ACK), then their answers, messages, events and themselves, each through
 * an index on its operation (the events': migration RetentionIndexes).
 */
const PRUNE = `
  WITH doomed AS (
    SELECT operation_id, target_id FROM acm_operation
    WHERE operation_id = ANY($1::uuid[]) AND state <> 'RUNNING'
    FOR UPDATE SKIP LOCKED
  ), answers AS (
    DELETE FROM acm_message_answer a USING acm_operation_message m
    WHERE a.message_id = m.message_id AND m.operation_id IN (SELECT operation_id FROM doomed)
    RETURNING 1
  ), messages AS (
    DELETE FROM acm_operation_message WHERE operation_id IN (SELECT operation_id FROM doomed) RETURNING 1
  ), events AS (
    DELETE FROM acm_event WHERE operation_id IN (SELECT operation_id FROM doomed) RETURNING 1
  ), operations AS (
    DELETE FROM acm_operation WHERE operation_id IN (SELECT operation_id FROM doomed) RETURNING 1
  )
  SELECT (SELECT count(*) FROM operations) AS operations, (SELECT count(*) FROM messages) AS messages,
         (SELECT count(*) FROM answers) AS answers, (SELECT count(*) FROM events) AS events`;

const PRUNE_LOOSE_EVENTS = `
  WITH gone AS (
    DELETE FROM acm_event WHERE sequence IN (
      SELECT sequence FROM acm_event WHERE operation_id IS NULL AND at < $1
      ORDER BY at LIMIT $2 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*) AS events FROM gone`;

interface CandidateRow {
  operation_id: string;
  target_id: string;
  state: Operation['state'];
  timed_out: boolean;
  started_at: Date;
  finished_at: Date | null;
  rank: string;
  class_rank: string;
}

/** The retention store on PostgreSQL: each method is one autocommitted statement. */
export class TypeOrmRetentionStore extends RetentionStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async subjectsAfter(after: string | null, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(SUBJECTS_AFTER, [after ?? FIRST_ID, limit]);
    return rows.map((row) => row.id);
  }

  async candidates(subjectIds: readonly string[]): Promise<RetentionCandidate[]> {
    if (subjectIds.length === 0) {
      return [];
    }
    const rows: CandidateRow[] = await this.dataSource.query(CANDIDATES, [subjectIds]);
    return rows.map((row) => ({
      operationId: row.operation_id,
      targetId: row.target_id,
      state: row.state,
      timedOut: row.timed_out,
      startedAt: new Date(row.started_at).getTime(),
      finishedAt: row.finished_at === null ? null : new Date(row.finished_at).getTime(),
      rank: Number(row.rank),
      classRank: Number(row.class_rank),
    }));
  }

  async prune(operationIds: readonly string[]): Promise<PrunedRows> {
    if (operationIds.length === 0) {
      return { operations: 0, messages: 0, answers: 0, events: 0 };
    }
    const [row]: Array<Record<keyof PrunedRows, string>> = await this.dataSource.query(PRUNE, [operationIds]);
    return {
      operations: Number(row?.operations ?? 0),
      messages: Number(row?.messages ?? 0),
      answers: Number(row?.answers ?? 0),
      events: Number(row?.events ?? 0),
    };
  }

  async pruneLooseEvents(before: number, limit: number): Promise<number> {
    const [row]: Array<{ events: string }> = await this.dataSource.query(PRUNE_LOOSE_EVENTS, [
      new Date(before).toISOString(),
      limit,
    ]);
    return Number(row?.events ?? 0);
  }

  async operationsPage(subjectId: string, after: OperationCursor | null, limit: number): Promise<Operation[]> {
    const rows: OperationRow[] =
      after === null
        ? await this.dataSource.query(
            `SELECT ${OPERATION_COLUMNS} FROM acm_operation WHERE target_id = $1
             ORDER BY started_at, operation_id LIMIT $2`,
            [subjectId, limit],
          )
        : await this.dataSource.query(
            `SELECT ${OPERATION_COLUMNS} FROM acm_operation
             WHERE target_id = $1 AND (started_at, operation_id) > ($2::timestamptz, $3::uuid)
             ORDER BY started_at, operation_id LIMIT $4`,
            [subjectId, new Date(after.startedAt).toISOString(), after.operationId, limit],
          );
    return rows.map(operationOf);
  }

  async eventsPage(subjectId: string, after: number, limit: number): Promise<StoredEvent[]> {
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT sequence, subject_id, operation_id, event, detail, actor, at FROM acm_event
       WHERE subject_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
      [subjectId, after, limit],
    );
    return rows.map(storedEvent);
  }
}
