import type { ConceptId, JsonObject } from '../model';
import type { MigrationState } from '../states';
import { KNOWN_AFTER_DEPLOY } from '../instance/element-references';

/** What an order does to one element, as `tofu plan` marks it (`+`, `~`, `-/+`, `-`). */
export const ELEMENT_ACTIONS = ['create', 'update', 'replace', 'delete', 'unchanged'] as const;
export type ElementAction = (typeof ELEMENT_ACTIONS)[number];

/** How a sensitive value is shown: the mask REST answers and the history use. */
export const MASKED_VALUE = '******';
/** How the side of a change where the property does not exist is shown. */
const ABSENT = '(none)';

/** An element as the diff reads it: the stored one, or the one the order would store. */
export interface DiffElement {
  readonly id: string;
  readonly definition: ConceptId;
  readonly properties: JsonObject;
  /** A migration's plan marks the elements it adds (NEW) and the ones it removes (REMOVED). */
  readonly migrationState?: MigrationState;
}

/** One changed property, by path (`a.b`, `list`, `map["odd key"]`); `old` absent: added, `new` absent: removed. */
export interface PropertyChange {
  readonly path: string;
  readonly old?: unknown;
  readonly new?: unknown;
  /** The value sits under a sensitive property: both sides are shown masked. */
  readonly sensitive?: true;
  /** The new value exists only once the order ran; `new` is not given. */
  readonly knownAfterDeploy?: true;
  /** `path: old → new`, as acmctl and the console print it. */
  readonly text: string;
}

export interface ElementDiff {
  readonly elementId: string;
  /** The element's node template name and version, as the order would leave them. */
  readonly name: string;
  readonly version: string;
  readonly action: ElementAction;
  /** A migration moves the element to another node template version. */
  readonly definition?: { readonly old: ConceptId; readonly new: ConceptId };
  /** A replace: the changed properties that cannot change in place. */
  readonly forcedBy?: readonly string[];
  readonly changes: readonly PropertyChange[];
}

export type DiffSummary = Readonly<Record<ElementAction, number>>;

export interface InstanceDiff {
  /** One entry per element, by element id. */
  readonly changes: readonly ElementDiff[];
  readonly summary: DiffSummary;
}

export interface InstanceDiffInput {
  /** The elements as stored now, by id. */
  readonly current: Readonly<Record<string, DiffElement>>;
  /** The elements as the order would store them, by id (a migration's REMOVED ones included). */
  readonly next: Readonly<Record<string, DiffElement>>;
  /** The property names of an element whose values are sensitive, at any depth. */
  readonly sensitiveNames?: (elementId: string) => ReadonlySet<string>;
  /** Whether a new value is only known once the order ran; it is then shown as KNOWN_AFTER_DEPLOY. */
  readonly isKnownAfterDeploy?: (elementId: string, path: string, value: unknown) => boolean;
  /** The changed paths of an updated element that force its replacement; none: an update in place. */
  readonly replacementForcedBy?: (elementId: string, changedPaths: readonly string[]) => readonly string[];
}

const NO_NAMES: ReadonlySet<string> = new Set();

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function byCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Structural equality of JSON values; key order does not matter, list order does. */
function sameValue(left: unknown, right: unknown): boolean {
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => sameValue(item, right[index]))
    );
  }
  if (isPlainObject(left) || isPlainObject(right)) {
    if (!isPlainObject(left) || !isPlainObject(right)) {
      return false;
    }
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length && keys.every((key) => key in right && sameValue(left[key], right[key]))
    );
  }
  return left === right;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

function childPath(path: string, key: string): string {
  if (PLAIN_KEY.test(key)) {
    return path === '' ? key : `${path}.${key}`;
  }
  return `${path}[${JSON.stringify(key)}]`;
}

/** A copy of `value` where every key named in `names`, at any depth, holds the mask. */
function masked(value: unknown, names: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => masked(item, names));
  }
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, names.has(key) ? MASKED_VALUE : masked(item, names)]),
    );
  }
  return value;
}

interface Side {
  readonly present: boolean;
  readonly value?: unknown;
}

interface WalkContext {
  readonly elementId: string;
  readonly names: ReadonlySet<string>;
  readonly isKnownAfterDeploy: (elementId: string, path: string, value: unknown) => boolean;
  readonly changes: PropertyChange[];
}

function shown(side: Side, sensitive: boolean, names: ReadonlySet<string>): string {
  if (!side.present) {
    return ABSENT;
  }
  return sensitive ? MASKED_VALUE : JSON.stringify(masked(side.value, names));
}

function record(context: WalkContext, path: string, old: Side, next: Side, sensitive: boolean): void {
  const unknownYet = next.present && context.isKnownAfterDeploy(context.elementId, path, next.value);
  const newText = unknownYet ? KNOWN_AFTER_DEPLOY : shown(next, sensitive, context.names);
  const oldText = shown(old, sensitive, context.names);
  const visible = (side: Side): unknown => (sensitive ? MASKED_VALUE : masked(side.value, context.names));
  context.changes.push({
    path,
    ...(old.present ? { old: visible(old) } : {}),
    ...(next.present && !unknownYet ? { new: visible(next) } : {}),
    ...(sensitive ? { sensitive: true as const } : {}),
    ...(unknownYet ? { knownAfterDeploy: true as const } : {}),
    text: `${path}: ${oldText} → ${newText}`,
  });
}

/** Compares two property trees: maps key by key (by path), anything else (lists included) as a whole value. */
function walk(context: WalkContext, path: string, old: Side, next: Side, sensitive: boolean): void {
  const unknownYet = next.present && context.isKnownAfterDeploy(context.elementId, path, next.value);
  if (!unknownYet && isPlainObject(old.value) && isPlainObject(next.value) && old.present && next.present) {
    walkMaps(context, path, old.value, next.value, sensitive);
    return;
  }
  if (!unknownYet && !old.present && isPlainObject(next.value) && Object.keys(next.value).length > 0) {
    // A new map is listed leaf by leaf, as `tofu plan` lists a new block.
    walkMaps(context, path, {}, next.value, sensitive);
    return;
  }
  if (unknownYet || old.present !== next.present || !sameValue(old.value, next.value)) {
    record(context, path, old, next, sensitive);
  }
}

function walkMaps(context: WalkContext, path: string, old: JsonObject, next: JsonObject, sensitive: boolean): void {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort(byCodeUnits);
  for (const key of keys) {
    walk(
      context,
      childPath(path, key),
      { present: key in old, value: old[key] },
      { present: key in next, value: next[key] },
      sensitive || context.names.has(key),
    );
  }
}

function propertyChanges(
  input: InstanceDiffInput,
  elementId: string,
  old: JsonObject,
  next: JsonObject,
): PropertyChange[] {
  const context: WalkContext = {
    elementId,
    names: input.sensitiveNames?.(elementId) ?? NO_NAMES,
    isKnownAfterDeploy: input.isKnownAfterDeploy ?? (() => false),
    changes: [],
  };
  walkMaps(context, '', old, next, false);
  return context.changes;
}

function sameDefinition(left: ConceptId, right: ConceptId): boolean {
  return left.name === right.name && left.version === right.version;
}

function elementDiff(input: InstanceDiffInput, elementId: string): ElementDiff {
  const current = input.current[elementId];
  const next = input.next[elementId];
  const shownAs = next ?? current;
  const header = { elementId, name: shownAs?.definition.name ?? '', version: shownAs?.definition.version ?? '' };
  if (next === undefined || next.migrationState === 'REMOVED') {
    return { ...header, action: 'delete', changes: [] };
  }
  if (current === undefined || next.migrationState === 'NEW') {
    return { ...header, action: 'create', changes: propertyChanges(input, elementId, {}, next.properties) };
  }
  const changes = propertyChanges(input, elementId, current.properties, next.properties);
  const definitionChanged = !sameDefinition(current.definition, next.definition);
  const definition = definitionChanged ? { definition: { old: current.definition, new: next.definition } } : {};
  if (changes.length === 0 && !definitionChanged) {
    return { ...header, action: 'unchanged', changes };
  }
  const forcedBy = input.replacementForcedBy?.(
    elementId,
    changes.map((change) => change.path),
  );
  if (forcedBy !== undefined && forcedBy.length > 0) {
    return { ...header, action: 'replace', ...definition, forcedBy: [...forcedBy], changes };
  }
  return { ...header, action: 'update', ...definition, changes };
}

/**
 * What an order would change, element by element, as `tofu plan` shows it: the elements stored now against the
 * ones the order would store (computed by the order's own code). Elements come by id; changed properties by path.
 */
export function diffInstance(input: InstanceDiffInput): InstanceDiff {
  const ids = [...new Set([...Object.keys(input.current), ...Object.keys(input.next)])].sort(byCodeUnits);
  const changes = ids.map((id) => elementDiff(input, id));
  const summary = Object.fromEntries(ELEMENT_ACTIONS.map((action) => [action, 0])) as Record<ElementAction, number>;
  for (const change of changes) {
    summary[change.action] += 1;
  }
  return { changes, summary };
}
