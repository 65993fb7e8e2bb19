import { ROLLOUT_INSTANCE_STATES, isRolloutFinished } from '@acm/domain';
import type {
  FailureThreshold,
  RefusedInstance,
  Rollout,
  RolloutInstanceState,
  RolloutOnFailure,
  RolloutOrder,
  RolloutState,
} from '@acm/domain';

export type RolloutBatchState = 'PENDING' | 'RUNNING' | 'BAKING' | 'ENDED';

export interface RolloutInstanceView {
  readonly instanceId: string;
  readonly state: RolloutInstanceState;
  readonly reason: string | null;
}

export interface RolloutBatchView {
  /** From 1, in the order the batches run. */
  readonly batch: number;
  readonly state: RolloutBatchState;
  /** While the batch bakes: when its bake ends, and the milliseconds left when the rollout was read. */
  readonly bakingUntil: string | null;
  readonly bakeRemainingMs: number | null;
  readonly failures: number;
  readonly overThreshold: boolean;
  readonly instances: RolloutInstanceView[];
}

export interface RolloutView {
  readonly rolloutId: string;
  readonly order: RolloutOrder;
  readonly compositionId: string;
  readonly state: RolloutState;
  readonly reason: string | null;
  /** MIGRATE's target composition; null for the other orders. */
  readonly compositionTargetId: string | null;
  /** UPDATE's property patch, by element definition name; null for the other orders. */
  readonly update: { readonly elements: Readonly<Record<string, Readonly<Record<string, unknown>>>> } | null;
  readonly strategy: {
    readonly batchSize: number | string;
    readonly maxInFlight: number | null;
    readonly failureThreshold: number | string;
    readonly totalFailureThreshold: number | string | null;
    readonly onFailure: RolloutOnFailure;
    readonly rollbackAll: boolean;
    readonly canary: number | null;
    readonly pauseBetweenBatches: number;
    readonly batchBy: string | null;
    readonly batchOrder: readonly string[];
    readonly skipRefused: boolean;
    readonly bakeTime: number;
  };
  /** When the next batch starts, while a pause between batches runs; null otherwise. */
  readonly nextBatchAt: string | null;
  /** Maintenance windows holding the next batch: "waiting for window W until T"; null while none holds it. */
  readonly waitingFor: {
    readonly windows: readonly string[];
    readonly until: string | null;
    readonly message: string;
  } | null;
  /** Selected instances left out because they refuse the order (skipRefused). */
  readonly refused: readonly RefusedInstance[];
  /** Instances per state, over every batch. */
  readonly counts: Record<RolloutInstanceState, number>;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly batches: RolloutBatchView[];
}

export interface RolloutsView {
  readonly rollouts: RolloutView[];
}

function batchState(instances: readonly RolloutInstanceView[]): RolloutBatchState {
  if (instances.every((item) => item.state === 'PENDING')) {
    return 'PENDING';
  }
  return instances.some((item) => ['ORDERED', 'PENDING', 'ROLLING_BACK'].includes(item.state)) ? 'RUNNING' : 'ENDED';
}

function thresholdView(threshold: FailureThreshold): number | string {
  return threshold.kind === 'count' ? threshold.count : `${threshold.percent}%`;
}

function waitingFor(rollout: Rollout): RolloutView['waitingFor'] {
  const wait = rollout.windowWait;
  if (wait === null || isRolloutFinished(rollout.state)) {
    return null;
  }
  const until = wait.until === null ? null : new Date(wait.until).toISOString();
  const names = wait.windows.map((name) => JSON.stringify(name)).join(', ');
  return {
    windows: wait.windows,
    until,
    message: `waiting for window ${names} ${until === null ? '(no opening found within a year)' : `until ${until}`}`,
  };
}

/** A rollout as REST shows it at `now`: its batches in order, each with its instances, failures and bake. */
export function rolloutView(rollout: Rollout, now: number): RolloutView {
  const batches: RolloutBatchView[] = [];
  for (let batch = 0; batch < rollout.batchCount; batch += 1) {
    const instances = rollout.instances
      .filter((item) => item.batch === batch)
      .map(({ instanceId, state, reason }) => ({ instanceId, state, reason }));
    const baking =
      rollout.bakingUntil !== null && batch === rollout.currentBatch && batchState(instances) === 'ENDED'
        ? rollout.bakingUntil
        : null;
    batches.push({
      batch: batch + 1,
      state: baking === null ? batchState(instances) : 'BAKING',
      bakingUntil: baking === null ? null : new Date(baking).toISOString(),
      bakeRemainingMs: baking === null ? null : Math.max(0, baking - now),
      failures: instances.filter((item) => ['FAILED', 'REFUSED', 'UNHEALTHY'].includes(item.state)).length,
      overThreshold: rollout.failedBatches.includes(batch),
      instances,
    });
  }
  const counts = Object.fromEntries(ROLLOUT_INSTANCE_STATES.map((state) => [state, 0])) as Record<
    RolloutInstanceState,
    number
  >;
  for (const item of rollout.instances) {
    counts[item.state] += 1;
  }
  const { strategy } = rollout;
  const { batchSize } = strategy;
  return {
    rolloutId: rollout.rolloutId,
    order: rollout.order,
    compositionId: rollout.compositionId,
    state: rollout.state,
    reason: rollout.reason,
    compositionTargetId: rollout.compositionTargetId,
    update: rollout.patch === null ? null : { elements: rollout.patch },
    strategy: {
      batchSize: batchSize.kind === 'count' ? batchSize.count : `${batchSize.percent}%`,
      maxInFlight: strategy.maxInFlight,
      failureThreshold: thresholdView(strategy.failureThreshold),
      totalFailureThreshold:
        strategy.totalFailureThreshold === null ? null : thresholdView(strategy.totalFailureThreshold),
      onFailure: strategy.onFailure,
      rollbackAll: strategy.rollbackAll,
      canary: strategy.canary,
      pauseBetweenBatches: strategy.pauseBetweenBatches,
      batchBy: strategy.batchBy,
      batchOrder: strategy.batchOrder,
      skipRefused: strategy.skipRefused,
      bakeTime: strategy.bakeTime,
    },
    nextBatchAt: rollout.nextBatchAt === null ? null : new Date(rollout.nextBatchAt).toISOString(),
    waitingFor: waitingFor(rollout),
    refused: rollout.refused,
    counts,
    createdAt: new Date(rollout.createdAt).toISOString(),
    updatedAt: new Date(rollout.updatedAt).toISOString(),
    batches,
  };
}
