import type { StageSets } from '../planners/stage-planner';

/** What an operation needs to know about one element node template (a definition's, read by the TOSCA library). */
export interface ElementTemplate {
  readonly name: string;
  readonly version: string;
  readonly startPhase: number;
  readonly stage: StageSets;
  readonly dependsOn: readonly string[];
  /** The node type and those it derives from, nearest first; absent: only its own type is known. */
  readonly types?: readonly string[];
  /** The node template's properties (a wait condition's `count` and `timeout`). */
  readonly properties?: Readonly<Record<string, unknown>>;
  /** The names of its sensitive properties (their values are masked where the history shows them). */
  readonly sensitive?: readonly string[];
  /** The properties an UPDATE cannot change in place (`metadata.updatable: false`): a change replaces the element. */
  readonly replaceOn?: readonly string[];
  /** A replace deploys the new element before it undeploys the old one (`metadata.createBeforeDestroy: true`). */
  readonly createBeforeDestroy?: boolean;
  /** The node template has a count (TOSCA 2.0): an instance holds that many members of it (instance/groups.ts). */
  readonly group?: GroupRules;
  /** Its health-gate metadata (`health_condition`, `health_bake`, `health_deadline`), as written; absent: no gate. */
  readonly gateMetadata?: Readonly<Record<string, unknown>>;
}

/** What one call of a group's scaling webhook does to its count (Heat's ScalingPolicy words). */
export interface ScalingRules {
  readonly adjustmentType: 'change_in_capacity' | 'exact_capacity' | 'percent_change_in_capacity';
  readonly adjustment: number;
  /** Seconds after one scaling call during which the next is refused. */
  readonly cooldownSeconds: number;
}

/** The count rules of a group node template. */
export interface GroupRules {
  /** The count of an instance whose body gives none. */
  readonly count: number;
  readonly min: number;
  /** Absent: no upper bound. */
  readonly max?: number;
  /** Absent: the group has no scaling webhook. */
  readonly scaling?: ScalingRules;
  /** Properties each member must hold a value of its own for (`metadata: { unique: true }`); absent: none. */
  readonly unique?: readonly string[];
}

/** The element templates of the compositions an instance operation involves. */
export interface OperationTemplates {
  /** The instance's own composition. */
  readonly own: readonly ElementTemplate[];
  /**
   * The other composition: the migration target (MIGRATE, MIGRATE_PRECHECK) or the composition a migration
   * rollback leaves (MIGRATION_REVERT); null for every other order or when it is gone.
   */
  readonly other: readonly ElementTemplate[] | null;
}
