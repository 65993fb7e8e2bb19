import type { InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { isForwardOrder } from '../instance/phases';
import type { StartPhaseOf } from './phase-planner';

/** An element's stage sets from its node template (`stage: {prepare, migrate}`; `[0]` when absent). */
export interface StageSets {
  readonly prepare: readonly number[];
  readonly migrate: readonly number[];
}

/** Orders that walk stages instead of start phases (ONAP's StageScanner). */
export function isStagedOrder(order: InstanceOrder): boolean {
  return order === 'MIGRATE' || order === 'MIGRATION_REVERT' || order === 'PREPARE';
}

function setFor(order: InstanceOrder, sets: StageSets): readonly number[] {
  const set = order === 'PREPARE' ? sets.prepare : sets.migrate;
  return set.length > 0 ? set : [0];
}

/**
 * The stage an element is at during a staged order: the stage its participant last reported (a stage
 * ACK names the next stage), else the first stage of its set — the lowest for migrate and prepare, the
 * highest for a migration rollback, which walks the stages downwards. The instance's stage is then the
 * lowest (highest for the rollback) over the elements still in transition, which `decideNextPhase` takes.
 */
export function stagePhaseOf(order: InstanceOrder, setsOf: (element: InstanceElement) => StageSets): StartPhaseOf {
  const forward = isForwardOrder(order);
  return (element) => {
    if (element.stage !== null) {
      return element.stage;
    }
    const set = setFor(order, setsOf(element));
    return forward ? Math.min(...set) : Math.max(...set);
  };
}

/** The stage after `current` in an element's set (ascending, or descending for a rollback); `current` when none. */
export function nextStage(order: InstanceOrder, sets: StageSets, current: number): number {
  const set = [...setFor(order, sets)].sort((a, b) => a - b);
  if (isForwardOrder(order)) {
    return set.find((stage) => stage > current) ?? current;
  }
  return [...set].reverse().find((stage) => stage < current) ?? current;
}
