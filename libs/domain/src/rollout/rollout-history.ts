import type { RequestActor } from '../history/actor';
import type { Rollout, RolloutInstanceState, RolloutState } from './rollout';

/** Who caused a rollout event: a REST request (create, pause, resume, promote, cancel) or the rollout's own rules. */
export type RolloutActor = RequestActor | { readonly kind: 'runtime'; readonly rule: 'rollout' };

export const ROLLOUT_EVENT_KINDS = [
  'CREATED',
  'BATCH_STARTED',
  'BATCH_ENDED',
  'BAKE_STARTED',
  'BAKE_ENDED',
  'INSTANCE_ORDERED',
  'INSTANCE_ENDED',
  'ROLLBACK_ORDERED',
  'ROLLBACK_ENDED',
  'STATE_CHANGED',
  /** Maintenance windows hold the next batch (reason: which windows; the rollout's windowWait says until when). */
  'WINDOW_WAIT',
] as const;
export type RolloutEventKind = (typeof ROLLOUT_EVENT_KINDS)[number];

/** One entry of a rollout's own history. */
export interface RolloutEvent {
  /** Epoch milliseconds, the caller's clock. */
  readonly at: number;
  readonly kind: RolloutEventKind;
  /** The batch, from 1; null for an event of the whole rollout. */
  readonly batch: number | null;
  readonly instanceId: string | null;
  /** STATE_CHANGED: the rollout's new state; INSTANCE_ENDED and ROLLBACK_ENDED: the instance's. */
  readonly state: RolloutState | RolloutInstanceState | null;
  readonly reason: string | null;
  readonly actor: RolloutActor;
}

function batchStarted(rollout: Rollout, batch: number): boolean {
  return rollout.instances.some((item) => item.batch === batch && item.state !== 'PENDING');
}

function batchEnded(rollout: Rollout, batch: number): boolean {
  return (
    batchStarted(rollout, batch) &&
    rollout.instances.every((item) => item.batch !== batch || (item.state !== 'ORDERED' && item.state !== 'PENDING'))
  );
}

/**
 * The events between two versions of a rollout (`before` null: it was just created): batches started and ended,
 * instances ordered, ended and rolled back, and each change of the rollout's state with its reason.
 */
export function rolloutEvents(before: Rollout | null, after: Rollout, at: number, actor: RolloutActor): RolloutEvent[] {
  const events: RolloutEvent[] = [];
  const event = (change: Omit<RolloutEvent, 'at' | 'actor'>): void => {
    events.push({ at, actor, ...change });
  };
  if (before === null) {
    event({ kind: 'CREATED', batch: null, instanceId: null, state: after.state, reason: null });
  }
  const previous = new Map((before?.instances ?? []).map((item) => [item.instanceId, item]));
  const changed = after.instances.filter((item) => (previous.get(item.instanceId)?.state ?? 'PENDING') !== item.state);
  const started = (state: string): boolean => state === 'ORDERED' || state === 'ROLLING_BACK';
  // In the order things happened within one step: ends, the batch they ended, the next batch, its orders.
  // An instance found unhealthy and rolled back within one step: its UNHEALTHY end is recorded first.
  for (const item of after.instances) {
    const was = previous.get(item.instanceId);
    if (item.unhealthyReason !== undefined && was?.unhealthyReason === undefined && item.state !== 'UNHEALTHY') {
      const common = { batch: item.batch + 1, instanceId: item.instanceId, reason: item.unhealthyReason };
      event({ kind: 'INSTANCE_ENDED', state: 'UNHEALTHY', ...common });
    }
  }
  for (const item of changed.filter((candidate) => !started(candidate.state))) {
    const common = { batch: item.batch + 1, instanceId: item.instanceId, state: item.state, reason: item.reason };
    const rolledBack = item.state === 'ROLLED_BACK' || item.state === 'ROLLBACK_FAILED';
    event({ kind: rolledBack ? 'ROLLBACK_ENDED' : 'INSTANCE_ENDED', ...common });
  }
  for (let batch = 0; batch < after.batchCount; batch += 1) {
    if (batchEnded(after, batch) && (before === null || !batchEnded(before, batch))) {
      event({ kind: 'BATCH_ENDED', batch: batch + 1, instanceId: null, state: null, reason: null });
    }
  }
  // A bake starts when the batch ended (bakingUntil set) and ends healthy when the batch is recorded baked.
  if (after.bakingUntil !== null && (before?.bakingUntil ?? null) === null) {
    event({ kind: 'BAKE_STARTED', batch: after.currentBatch + 1, instanceId: null, state: null, reason: null });
  }
  if (after.bakedBatch !== null && after.bakedBatch !== (before?.bakedBatch ?? null)) {
    event({ kind: 'BAKE_ENDED', batch: after.bakedBatch + 1, instanceId: null, state: null, reason: null });
  }
  for (let batch = 0; batch < after.batchCount; batch += 1) {
    if (batchStarted(after, batch) && (before === null || !batchStarted(before, batch))) {
      event({ kind: 'BATCH_STARTED', batch: batch + 1, instanceId: null, state: null, reason: null });
    }
  }
  for (const item of changed.filter((candidate) => started(candidate.state))) {
    event({
      kind: item.state === 'ORDERED' ? 'INSTANCE_ORDERED' : 'ROLLBACK_ORDERED',
      batch: item.batch + 1,
      instanceId: item.instanceId,
      state: item.state,
      reason: null,
    });
  }
  const waiting = after.windowWait;
  if (waiting !== null && (before?.windowWait ?? null)?.windows.join('\n') !== waiting.windows.join('\n')) {
    const names = waiting.windows.map((name) => JSON.stringify(name)).join(', ');
    event({
      kind: 'WINDOW_WAIT',
      batch: after.currentBatch + 2,
      instanceId: null,
      state: null,
      reason: `waiting for window ${names}`,
    });
  }
  if (before !== null && before.state !== after.state) {
    event({ kind: 'STATE_CHANGED', batch: null, instanceId: null, state: after.state, reason: after.reason });
  }
  return events;
}
