import type { components } from '../../../openapi/rest-types';

export type Rollout = components['schemas']['RolloutDto'];
export type RolloutBatch = components['schemas']['RolloutBatchDto'];
export type RolloutCounts = components['schemas']['RolloutCountsDto'];

/** The rollout states from which no step follows. */
const FINISHED: ReadonlySet<string> = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export const rolloutFinished = (state: string): boolean => FINISHED.has(state);

export interface RolloutControl {
  readonly label: string;
  /** The path after `rollouts/{id}/`. */
  readonly action: 'pause' | 'resume' | 'promote' | 'cancel';
}

export const ROLLOUT_CONTROLS: readonly RolloutControl[] = [
  { label: 'Pause', action: 'pause' },
  { label: 'Resume', action: 'resume' },
  { label: 'Promote', action: 'promote' },
  { label: 'Cancel', action: 'cancel' },
];

/**
 * Why the runtime would refuse the control in this state, worded as its refusal (the rollout rules accept pause only
 * when RUNNING, resume when PAUSED, promote when WAITING_PROMOTION, cancel when not finished); null: accepted.
 */
export function controlRefusal(rolloutId: string, state: string, action: RolloutControl['action']): string | null {
  const allowedIn: Record<RolloutControl['action'], string> = {
    pause: 'RUNNING',
    resume: 'PAUSED',
    promote: 'WAITING_PROMOTION',
    cancel: 'not finished',
  };
  const accepted = action === 'cancel' ? !rolloutFinished(state) : state === allowedIn[action];
  return accepted ? null : `Rollout ${rolloutId} is ${state}: ${action} is allowed only when ${allowedIn[action]}`;
}

/** The colour class of a rollout, batch or instance-in-rollout state; the state is always written next to it. */
export function rolloutTone(state: string): 'done' | 'busy' | 'idle' | 'bad' {
  if (/FAILED|REFUSED|UNHEALTHY|CANCELLED/.test(state)) {
    return 'bad';
  }
  if (['ORDERED', 'RUNNING', 'BAKING', 'ROLLING_BACK', 'WAITING_PROMOTION'].includes(state)) {
    return 'busy';
  }
  if (['DONE', 'COMPLETED', 'ENDED', 'ROLLED_BACK'].includes(state)) {
    return 'done';
  }
  return 'idle';
}

/** The instance counts that are not zero, in the order of the states' life: `2 DONE, 1 ORDERED`. */
export function countsText(counts: Partial<RolloutCounts>): string {
  const order: ReadonlyArray<keyof RolloutCounts> = [
    'DONE',
    'ORDERED',
    'PENDING',
    'FAILED',
    'REFUSED',
    'UNHEALTHY',
    'ROLLING_BACK',
    'ROLLED_BACK',
    'ROLLBACK_FAILED',
  ];
  const parts = order.filter((state) => (counts[state] ?? 0) > 0).map((state) => `${counts[state]} ${state}`);
  return parts.length === 0 ? 'no instance' : parts.join(', ');
}

/** How far the rollout went: the instances that ended (in any way) out of all it selected. */
export function progressText(counts: Partial<RolloutCounts>): string {
  const values = Object.values(counts).filter((value): value is number => typeof value === 'number');
  const total = values.reduce((sum, value) => sum + value, 0);
  const open = (counts.PENDING ?? 0) + (counts.ORDERED ?? 0) + (counts.ROLLING_BACK ?? 0);
  return `${total - open} of ${total} ended`;
}

/** A batch's bake left, as read: `bakes 12 s more` (rounded up, so it never says 0 while baking). */
export function bakeText(batch: Pick<RolloutBatch, 'state' | 'bakeRemainingMs'>): string | null {
  if (batch.state !== 'BAKING' || batch.bakeRemainingMs === null) {
    return null;
  }
  return `bakes ${Math.ceil(batch.bakeRemainingMs / 1000)} s more`;
}

/** What the rollout waits for, if anything: a maintenance window, the next batch's due time, or a promote. */
export function waitText(rollout: Pick<Rollout, 'state' | 'waitingFor' | 'nextBatchAt'>): string | null {
  if (rolloutFinished(rollout.state)) {
    return null;
  }
  if (rollout.waitingFor !== null) {
    return rollout.waitingFor.message;
  }
  if (rollout.state === 'WAITING_PROMOTION') {
    return 'the canary batch succeeded: waiting for a promote';
  }
  if (rollout.nextBatchAt !== null) {
    return `next batch at ${rollout.nextBatchAt}`;
  }
  return null;
}
