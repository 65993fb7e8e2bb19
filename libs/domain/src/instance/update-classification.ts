import type { InstanceElement, JsonObject } from '../model';
import type { ElementTemplate } from '../operation/element-template';

/**
 * What an UPDATE of a deployed instance does to one element (OpenTofu's plan actions, Heat's update rules):
 * - UPDATE: some property changes, and every changed one may change in place (ONAP's PROPERTIES_UPDATE);
 * - REPLACE: a changed property is marked `updatable: false` on its definition: the element is undeployed and
 *   deployed again with its new properties;
 * - ORPHAN: the body leaves the element out and the definition says `removeOrphans`: it is undeployed and deleted;
 * - UNCHANGED: nothing of it changes.
 */
export type ElementChangeKind = 'UNCHANGED' | 'UPDATE' | 'REPLACE' | 'ORPHAN';

export interface ElementChange {
  readonly elementId: string;
  /** The element's node template. */
  readonly definitionName: string;
  readonly kind: ElementChangeKind;
  /** The top-level properties whose value changes, sorted; empty for UNCHANGED and ORPHAN. */
  readonly changed: readonly string[];
  /** REPLACE: the changed properties that cannot change in place (they force the replace), sorted; else empty. */
  readonly forcedBy: readonly string[];
}

export interface UpdateClassification {
  /** One change per element of the instance, in element id order. */
  readonly changes: readonly ElementChange[];
  /** The ids of the elements replaced, in element id order. */
  readonly replaced: readonly string[];
  /** The ids of the orphans, in element id order. */
  readonly orphans: readonly string[];
}

export interface UpdateClassificationInput {
  /** The instance's elements as they are. */
  readonly elements: Readonly<Record<string, InstanceElement>>;
  /** The properties each element of the body will have (after ONAP's merge), by element id. */
  readonly next: ReadonlyMap<string, JsonObject>;
  /** The element templates of the instance's definition (their `replaceOn`). */
  readonly templates: readonly ElementTemplate[];
  /** The definition opts in to orphans: an element absent from `next` is one. False: it stays unchanged (ONAP). */
  readonly removeOrphans: boolean;
  /** Elements that are orphans whatever the body and `removeOrphans` say: the members a lower group count removes. */
  readonly orphaned?: ReadonlySet<string>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Equality of JSON values; object keys in any order (PostgreSQL's jsonb sorts them). */
export function sameJsonValue(left: unknown, right: unknown): boolean {
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => sameJsonValue(item, right[index]))
    );
  }
  if (isPlainObject(left) || isPlainObject(right)) {
    if (!isPlainObject(left) || !isPlainObject(right)) {
      return false;
    }
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((key) => key in right && sameJsonValue(left[key], right[key]))
    );
  }
  return Object.is(left, right);
}

/** The top-level properties whose value differs between `before` and `after` (added and removed ones too), sorted. */
export function changedProperties(before: JsonObject, after: JsonObject): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => !sameJsonValue(before[name], after[name])).sort();
}

/**
 * Classifies every element of a deployed instance for an UPDATE (pure). A property change marked non-updatable
 * always replaces; an element left out of the body is an orphan only when the definition opts in. The plan's diff
 * and the operation machine read the same answer, so what a plan shows is what runs.
 */
export function updateClassification(input: UpdateClassificationInput): UpdateClassification {
  const replaceOn = new Map(input.templates.map((template) => [template.name, new Set(template.replaceOn ?? [])]));
  const changes = Object.keys(input.elements)
    .sort()
    .flatMap((id): ElementChange[] => {
      const element = input.elements[id];
      if (element === undefined) {
        return [];
      }
      const base = { elementId: id, definitionName: element.definition.name };
      const next = input.next.get(id);
      if (input.orphaned?.has(id) === true) {
        return [{ ...base, kind: 'ORPHAN', changed: [], forcedBy: [] }];
      }
      if (next === undefined) {
        return [{ ...base, kind: input.removeOrphans ? 'ORPHAN' : 'UNCHANGED', changed: [], forcedBy: [] }];
      }
      const changed = changedProperties(element.properties, next);
      const fixed = replaceOn.get(element.definition.name) ?? new Set<string>();
      const forcedBy = changed.filter((name) => fixed.has(name));
      const kind: ElementChangeKind = forcedBy.length > 0 ? 'REPLACE' : changed.length > 0 ? 'UPDATE' : 'UNCHANGED';
      return [{ ...base, kind, changed, forcedBy }];
    });
  return {
    changes,
    replaced: changes.filter((change) => change.kind === 'REPLACE').map((change) => change.elementId),
    orphans: changes.filter((change) => change.kind === 'ORPHAN').map((change) => change.elementId),
  };
}

/** Whether an UPDATE needs more than ONAP's one in-place PROPERTIES_UPDATE: it replaces or removes an element. */
export function needsReplaceSteps(classification: UpdateClassification): boolean {
  return classification.replaced.length > 0 || classification.orphans.length > 0;
}
