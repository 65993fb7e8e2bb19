import type { Rollout, RolloutInstanceState, RolloutOnFailure, RolloutOrder, RolloutState } from '@acm/domain';

export type RolloutBatchState = 'PENDING' | 'RUNNING' | 'ENDED';

export interface RolloutInstanceView {
  readonly instanceId: string;
  readonly state: RolloutInstanceState;
  readonly reason: string | null;
}

export interface RolloutBatchView {
  /** From 1, in the order the batches run. */
  readonly batch: number;
  readonly state: RolloutBatchState;
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
  readonly strategy: {
    readonly batchSize: number | string;
    readonly failureThreshold: number;
    readonly onFailure: RolloutOnFailure;
  };
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
  return instances.some((item) => item.state === 'ORDERED' || item.state === 'PENDING') ? 'RUNNING' : 'ENDED';
}

/** A rollout as REST shows it: its batches in order, each with its instances and failures. */
export function rolloutView(rollout: Rollout): RolloutView {
  const batches: RolloutBatchView[] = [];
  for (let batch = 0; batch < rollout.batchCount; batch += 1) {
    const instances = rollout.instances
      .filter((item) => item.batch === batch)
      .map(({ instanceId, state, reason }) => ({ instanceId, state, reason }));
    batches.push({
      batch: batch + 1,
      state: batchState(instances),
      failures: instances.filter((item) => item.state === 'FAILED' || item.state === 'REFUSED').length,
      overThreshold: rollout.failedBatches.includes(batch),
      instances,
    });
  }
  const counts: Record<RolloutInstanceState, number> = { PENDING: 0, ORDERED: 0, DONE: 0, FAILED: 0, REFUSED: 0 };
  for (const item of rollout.instances) {
    counts[item.state] += 1;
  }
  const { batchSize } = rollout.strategy;
  return {
    rolloutId: rollout.rolloutId,
    order: rollout.order,
    compositionId: rollout.compositionId,
    state: rollout.state,
    reason: rollout.reason,
    strategy: {
      batchSize: batchSize.kind === 'count' ? batchSize.count : `${batchSize.percent}%`,
      failureThreshold: rollout.strategy.failureThreshold,
      onFailure: rollout.strategy.onFailure,
    },
    counts,
    createdAt: new Date(rollout.createdAt).toISOString(),
    updatedAt: new Date(rollout.updatedAt).toISOString(),
    batches,
  };
}
