import { excerpt } from '@acm/input-guards';
import type { Mapping } from './guards';
import { isMapping } from './guards';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import { ancestry } from './property-schema';

/**
 * Groups (TOSCA 2.0 `count` on a node template, Heat's ResourceGroup and ScalingPolicy; an extension of this runtime,
 * ONAP's files set none of these keys). An element node template with `count: <n>` is a group: an instance holds n
 * members of it, each an ordinary element. Its node template's `metadata` may bound and scale the count:
 * - `count_min` (default 1) and `count_max` (default: no bound): what an instance and a scaling call may ask;
 * - `scaling_adjustment_type` (`change_in_capacity`, `exact_capacity` or `percent_change_in_capacity`, Heat's words)
 *   and `scaling_adjustment` (an integer): what one call of the group's scaling webhook does to the count;
 * - `scaling_cooldown` (seconds, default 0): how long after one scaling call the next is refused.
 */
export const COUNT_KEY = 'count';
export const COUNT_MIN_KEY = 'count_min';
export const COUNT_MAX_KEY = 'count_max';
export const SCALING_ADJUSTMENT_TYPE_KEY = 'scaling_adjustment_type';
export const SCALING_ADJUSTMENT_KEY = 'scaling_adjustment';
export const SCALING_COOLDOWN_KEY = 'scaling_cooldown';
/** A property definition's `metadata: { unique: true }`: the members of a group must not share its value. */
export const UNIQUE_KEY = 'unique';

export const ADJUSTMENT_TYPES = ['change_in_capacity', 'exact_capacity', 'percent_change_in_capacity'] as const;
export type AdjustmentType = (typeof ADJUSTMENT_TYPES)[number];

/** A value read from the template with the problems found on the way (element-properties' shape, kept local). */
interface Checked<T> {
  value: T;
  problems: ToscaProblem[];
}

/** What one scaling webhook call does to a group's count. */
export interface ScalingPolicy {
  readonly adjustmentType: AdjustmentType;
  readonly adjustment: number;
  readonly cooldownSeconds: number;
}

/** The count rules of one group node template. */
export interface GroupDefinition {
  /** The count an instance gets when its body gives none. */
  readonly count: number;
  readonly min: number;
  /** Absent: no upper bound. */
  readonly max?: number;
  /** Absent: the group has no scaling webhook. */
  readonly scaling?: ScalingPolicy;
  /** The properties whose definition says `metadata: { unique: true }` (inherited), sorted; absent when none. */
  readonly unique?: string[];
}

function integerProblem(path: PathSegment[], what: string, value: unknown, least: number): ToscaProblem {
  return problem(path, 'group-count', `${what} must be an integer of at least ${least}, got ${excerpt(value)}`);
}

function readInteger(
  holder: Mapping,
  key: string,
  path: PathSegment[],
  what: string,
  least: number,
): { value?: number; problems: ToscaProblem[] } {
  const value = holder[key];
  if (value === undefined || value === null) {
    return { problems: [] };
  }
  return Number.isSafeInteger(value) && (value as number) >= least
    ? { value: value as number, problems: [] }
    : { problems: [integerProblem([...path, key], what, value, least)] };
}

/**
 * The group rules of an element node template, or undefined when it has no `count` (an ordinary element). Every
 * problem is named by its path: a count or a bound that is not an integer, `count_min` above `count_max`, a default
 * count outside them, an unknown adjustment type, scaling keys on a template without `count`.
 */
export function readGroupDefinition(
  nodeTemplate: Mapping,
  path: readonly PathSegment[],
): Checked<GroupDefinition | undefined> {
  const metadata = isMapping(nodeTemplate['metadata']) ? nodeTemplate['metadata'] : {};
  const metadataPath = [...path, 'metadata'];
  const rawCount = nodeTemplate[COUNT_KEY];
  if (rawCount === undefined || rawCount === null) {
    const stray = [COUNT_MIN_KEY, COUNT_MAX_KEY, SCALING_ADJUSTMENT_TYPE_KEY, SCALING_ADJUSTMENT_KEY].filter(
      (key) => metadata[key] !== undefined,
    );
    return {
      value: undefined,
      problems: stray.map((key) =>
        problem([...metadataPath, key], 'group-count', `metadata.${key} applies only to a node template with count`),
      ),
    };
  }
  const problems: ToscaProblem[] = [];
  const count = readInteger(nodeTemplate, COUNT_KEY, [...path], 'count', 1);
  const min = readInteger(metadata, COUNT_MIN_KEY, metadataPath, `metadata.${COUNT_MIN_KEY}`, 1);
  const max = readInteger(metadata, COUNT_MAX_KEY, metadataPath, `metadata.${COUNT_MAX_KEY}`, 1);
  const cooldown = readInteger(metadata, SCALING_COOLDOWN_KEY, metadataPath, `metadata.${SCALING_COOLDOWN_KEY}`, 0);
  problems.push(...count.problems, ...min.problems, ...max.problems, ...cooldown.problems);
  const least = min.value ?? 1;
  if (max.value !== undefined && least > max.value) {
    problems.push(
      problem(
        [...metadataPath, COUNT_MIN_KEY],
        'group-count',
        `metadata.${COUNT_MIN_KEY} (${least}) must not exceed metadata.${COUNT_MAX_KEY} (${max.value})`,
      ),
    );
  } else if (
    count.value !== undefined &&
    (count.value < least || (max.value !== undefined && count.value > max.value))
  ) {
    problems.push(
      problem(
        [...path, COUNT_KEY],
        'group-count',
        `count ${count.value} is outside metadata.${COUNT_MIN_KEY}..${COUNT_MAX_KEY} (${boundsText(least, max.value)})`,
      ),
    );
  }
  const scaling = readScaling(metadata, metadataPath, cooldown.value ?? 0);
  problems.push(...scaling.problems);
  if (problems.length > 0 || count.value === undefined) {
    return { value: undefined, problems };
  }
  return {
    value: {
      count: count.value,
      min: least,
      ...(max.value === undefined ? {} : { max: max.value }),
      ...(scaling.value === undefined ? {} : { scaling: scaling.value }),
    },
    problems: [],
  };
}

/** `1..4`, or `1..` without an upper bound. */
export function boundsText(min: number, max: number | undefined): string {
  return `${min}..${max ?? ''}`;
}

function readScaling(
  metadata: Mapping,
  path: PathSegment[],
  cooldownSeconds: number,
): { value?: ScalingPolicy; problems: ToscaProblem[] } {
  const type = metadata[SCALING_ADJUSTMENT_TYPE_KEY];
  const adjustment = metadata[SCALING_ADJUSTMENT_KEY];
  if ((type === undefined || type === null) && (adjustment === undefined || adjustment === null)) {
    return { problems: [] };
  }
  const problems: ToscaProblem[] = [];
  const adjustmentType = type ?? 'change_in_capacity';
  if (!(ADJUSTMENT_TYPES as readonly unknown[]).includes(adjustmentType)) {
    problems.push(
      problem(
        [...path, SCALING_ADJUSTMENT_TYPE_KEY],
        'group-count',
        `metadata.${SCALING_ADJUSTMENT_TYPE_KEY} must be one of ${ADJUSTMENT_TYPES.join(', ')}, got ${excerpt(type)}`,
      ),
    );
  }
  if (!Number.isSafeInteger(adjustment)) {
    problems.push(
      problem(
        [...path, SCALING_ADJUSTMENT_KEY],
        'group-count',
        `metadata.${SCALING_ADJUSTMENT_KEY} must be an integer, got ${excerpt(adjustment)}`,
      ),
    );
  }
  if (problems.length > 0) {
    return { problems };
  }
  return {
    value: { adjustmentType: adjustmentType as AdjustmentType, adjustment: adjustment as number, cooldownSeconds },
    problems: [],
  };
}

/**
 * The properties of a node type (inherited through `derived_from`, a child's definition over its parent's) whose
 * definition says `metadata: { unique: true }`: each member of a group must hold its own value (write `%index%`).
 */
export function uniquePropertiesOf(nodeTypes: Mapping | undefined, typeName: string): string[] {
  const unique = new Map<string, boolean>();
  for (const { definition } of [...ancestry(nodeTypes ?? {}, typeName)].reverse()) {
    const properties = definition['properties'];
    for (const [name, property] of Object.entries(isMapping(properties) ? properties : {})) {
      const metadata = isMapping(property) ? property['metadata'] : undefined;
      unique.set(name, isMapping(metadata) && metadata[UNIQUE_KEY] === true);
    }
  }
  return [...unique]
    .filter(([, flag]) => flag)
    .map(([name]) => name)
    .sort();
}
