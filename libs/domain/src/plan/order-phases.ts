import type { InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { DependsOnOf } from '../engine/dependency-planner';
import type { StartPhaseOf } from '../engine/phase-planner';
import type { StageSets } from '../engine/stage-planner';
import { isStagedOrder, stagePhaseOf } from '../engine/stage-planner';

/** What ordering needs of one element node template (a structural subset of the TOSCA element info). */
export interface ElementOrdering {
  readonly name: string;
  readonly version: string;
  readonly startPhase: number;
  readonly stage: StageSets;
  readonly dependsOn: readonly string[];
}

/** Orders whose messages follow the node templates' start phases. */
const PHASED_ORDERS: ReadonlySet<InstanceOrder> = new Set(['DEPLOY', 'UNDEPLOY', 'DELETE', 'LOCK', 'UNLOCK']);

const FALLBACK_STAGES: StageSets = { prepare: [0], migrate: [0] };

const key = (name: string, version: string): string => `${name}|${version}`;

/** How an order walks an instance: the phase (or stage) of each element, and its stage sets. */
export interface OrderPhases {
  readonly phaseOf: StartPhaseOf;
  readonly stagesOf: (element: InstanceElement) => StageSets;
}

/**
 * The phase of an element in an order: its start phase for deploy-like orders, its stage for migrate, migration
 * rollback and prepare (ONAP's StageScanner), 0 for the single-message orders. `other` is the composition a
 * migration goes to (MIGRATE) or leaves (MIGRATION_REVERT): an element's stages come from the composition it is
 * going to, a REMOVED one's from the one it leaves.
 */
export function orderPhases(
  order: InstanceOrder,
  own: readonly ElementOrdering[],
  other: readonly ElementOrdering[] = [],
): OrderPhases {
  const stagesIn = (side: readonly ElementOrdering[]): Map<string, StageSets> =>
    new Map(side.map((element) => [key(element.name, element.version), element.stage]));
  const ownStages = stagesIn(own);
  const otherStages = stagesIn(other);
  const [going, leaving] = order === 'MIGRATE' ? [otherStages, ownStages] : [ownStages, otherStages];
  const stagesOf = (element: InstanceElement): StageSets => {
    const id = key(element.definition.name, element.definition.version);
    const [first, second] = element.migrationState === 'REMOVED' ? [leaving, going] : [going, leaving];
    return first.get(id) ?? second.get(id) ?? FALLBACK_STAGES;
  };
  if (PHASED_ORDERS.has(order)) {
    const phases = new Map(own.map((element) => [key(element.name, element.version), element.startPhase]));
    return {
      phaseOf: (element) => phases.get(key(element.definition.name, element.definition.version)) ?? 0,
      stagesOf,
    };
  }
  if (!isStagedOrder(order)) {
    return { phaseOf: () => 0, stagesOf };
  }
  return { phaseOf: stagePhaseOf(order, stagesOf), stagesOf };
}

/** The `dependsOn` of each element node template, by name (the property and DependsOn requirements, compiled). */
export function dependsOnLookup(own: readonly ElementOrdering[]): DependsOnOf {
  const dependsOn = new Map(own.map((element) => [element.name, element.dependsOn]));
  return (name) => dependsOn.get(name) ?? [];
}
