import type { StoredEvent } from '../history/history-events';
import type { Operation, OperationState } from '../ports/engine.port';

/**
 * How long the history of finished operations is kept (RETENTION_* settings). An operation's messages, their
 * answers and its history events go with it. Failures, and the last `keepLast` operations of each instance or
 * definition, are "kept longer": only `failedMaxAgeMs` removes them.
 */
export interface RetentionPolicy {
  /** A finished operation that is neither a failure nor one of the last `keepLast` goes after this many ms. */
  readonly maxAgeMs: number;
  /** Failures (FAILED or timed out) and the last `keepLast` operations of each target go after this many ms. */
  readonly failedMaxAgeMs: number;
  /** The newest operations of each target kept until `failedMaxAgeMs`, whatever their state. */
  readonly keepLast: number;
  /**
   * At most this many finished operations of each target are kept, counted apart for failures and the others:
   * older ones go whatever their age, so a busy instance's successes never push its failures out.
   */
  readonly maxOperations: number;
}

/** A finished operation with its place in its target's history, as the retention store reads it. */
export interface RetentionCandidate {
  readonly operationId: string;
  readonly targetId: string;
  readonly state: OperationState;
  readonly timedOut: boolean;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly finishedAt: number | null;
  /** 1 for the newest operation of its target, running ones included (newest start first, then operation id). */
  readonly rank: number;
  /** The same among the target's finished operations of its own class (failures apart from the others). */
  readonly classRank: number;
}

export type RetentionVerdict = 'IN_FLIGHT' | 'KEPT' | 'EXPIRED' | 'OVER_COUNT';

/** A failure, for retention: it failed, or it ran past its deadline (a late success included). */
export function isFailure(operation: { readonly state: OperationState; readonly timedOut: boolean }): boolean {
  return operation.state === 'FAILED' || operation.timedOut;
}

/** Whether the operation's rows may go now, and why. Running operations are never removed. */
export function retentionVerdict(
  candidate: RetentionCandidate,
  now: number,
  policy: RetentionPolicy,
): RetentionVerdict {
  if (candidate.state === 'RUNNING') {
    return 'IN_FLIGHT';
  }
  const age = now - (candidate.finishedAt ?? candidate.startedAt);
  const keptLonger = isFailure(candidate) || candidate.rank <= policy.keepLast;
  if (age > (keptLonger ? policy.failedMaxAgeMs : policy.maxAgeMs)) {
    return 'EXPIRED';
  }
  if (candidate.rank > policy.keepLast && candidate.classRank > policy.maxOperations) {
    return 'OVER_COUNT';
  }
  return 'KEPT';
}

/** The operations whose rows may go now, oldest first, at most `limit`. */
export function prunableOperations(
  candidates: readonly RetentionCandidate[],
  now: number,
  policy: RetentionPolicy,
  limit: number,
): string[] {
  return candidates
    .filter((candidate) => {
      const verdict = retentionVerdict(candidate, now, policy);
      return verdict === 'EXPIRED' || verdict === 'OVER_COUNT';
    })
    .sort((a, b) => a.startedAt - b.startedAt || compareIds(a.operationId, b.operationId))
    .slice(0, limit)
    .map((candidate) => candidate.operationId);
}

/**
 * The ranks the retention store answers, computed from a target's operations (any order, any targets): what an
 * in-memory store computes and what the SQL's window functions must agree with.
 */
export function rankOperations(
  operations: ReadonlyArray<
    Pick<Operation, 'operationId' | 'targetId' | 'state' | 'timedOut' | 'startedAt' | 'finishedAt'>
  >,
): RetentionCandidate[] {
  const newestFirst = [...operations].sort(
    (a, b) =>
      compareIds(a.targetId, b.targetId) || b.startedAt - a.startedAt || compareIds(b.operationId, a.operationId),
  );
  const ranks = new Map<string, number>();
  const classRanks = new Map<string, number>();
  const candidates: RetentionCandidate[] = [];
  for (const operation of newestFirst) {
    const rank = (ranks.get(operation.targetId) ?? 0) + 1;
    ranks.set(operation.targetId, rank);
    if (operation.state === 'RUNNING') {
      continue;
    }
    const classKey = `${operation.targetId}|${isFailure(operation) ? 'failure' : 'other'}`;
    const classRank = (classRanks.get(classKey) ?? 0) + 1;
    classRanks.set(classKey, classRank);
    candidates.push({
      operationId: operation.operationId,
      targetId: operation.targetId,
      state: operation.state,
      timedOut: operation.timedOut,
      startedAt: operation.startedAt,
      finishedAt: operation.finishedAt,
      rank,
      classRank,
    });
  }
  return candidates;
}

/** What one prune removed, per table. */
export interface PrunedRows {
  readonly operations: number;
  readonly messages: number;
  readonly answers: number;
  readonly events: number;
}

export const NOTHING_PRUNED: PrunedRows = { operations: 0, messages: 0, answers: 0, events: 0 };

export function addPruned(a: PrunedRows, b: PrunedRows): PrunedRows {
  return {
    operations: a.operations + b.operations,
    messages: a.messages + b.messages,
    answers: a.answers + b.answers,
    events: a.events + b.events,
  };
}

/** Where an export of operations resumes: after this start and operation id (oldest first). */
export interface OperationCursor {
  readonly startedAt: number;
  readonly operationId: string;
}

/**
 * The retention and archive side of the history tables (operations, their messages and answers, events), apart
 * from the engine's `Store`: what supervision prunes and what an export reads, page by page.
 */
export abstract class RetentionStore {
  /**
   * Up to `limit` subjects (instance or definition ids, deleted ones included) that have operations or events, in
   * id order, after `after` (null: from the first).
   */
  abstract subjectsAfter(after: string | null, limit: number): Promise<string[]>;
  /** The finished operations of these subjects, ranked within their subject's history (see `rankOperations`). */
  abstract candidates(subjectIds: readonly string[]): Promise<RetentionCandidate[]>;
  /**
   * Removes these operations with their messages, the answers to them and their events. An operation that runs,
   * or that another transaction holds locked, is left alone without waiting for it (SKIP LOCKED): several
   * replicas may prune at once.
   */
  abstract prune(operationIds: readonly string[]): Promise<PrunedRows>;
  /** Removes up to `limit` events that belong to no operation and were written before `before`. */
  abstract pruneLooseEvents(before: number, limit: number): Promise<number>;
  /** Up to `limit` operations of a subject, oldest start first (then operation id), after `after`. */
  abstract operationsPage(subjectId: string, after: OperationCursor | null, limit: number): Promise<Operation[]>;
  /** Up to `limit` events of a subject in sequence order, after the sequence `after` (0: from the first). */
  abstract eventsPage(subjectId: string, after: number, limit: number): Promise<StoredEvent[]>;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
