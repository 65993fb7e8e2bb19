import type { AutomationComposition, InstanceElement, JsonObject } from '../model';
import { memberIndexOf } from './groups';

/**
 * References between elements, resolved when the referencing element is dispatched: TOSCA's
 * `{ get_attribute: [ <element | SELF>, <name>, ...path ] }` reads what the element's participant reported (its
 * outProperties), `{ get_property: [...] }` its resolved properties (the node template's merged with the
 * instance's). The TOSCA reader refuses badly written ones at commission; here a malformed one is simply not a
 * reference (the domain imports no library, so the reading is its own).
 */
export type ReferenceFunction = 'get_attribute' | 'get_property';

export interface ElementReference {
  readonly fn: ReferenceFunction;
  /** The element node template it reads, or `SELF`. */
  readonly element: string;
  readonly name: string;
  /** A member of a group by index (`[ Group, 2, url ]`); absent: the element, or member 0 of a group. */
  readonly member?: number;
  readonly path: readonly (string | number)[];
}

/** The element a reference names when it reads the referencing element itself. */
export const SELF_REFERENCE = 'SELF';

/** What the plan shows for a value the referenced element has not reported yet. */
export const KNOWN_AFTER_DEPLOY = '(known after deploy)';

const MAX_DEPTH = 64;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reference `value` is written as, or null for a plain value. */
export function asReference(value: unknown): ElementReference | null {
  if (!isObject(value)) {
    return null;
  }
  const keys = Object.keys(value);
  const fn = keys[0];
  if (keys.length !== 1 || (fn !== 'get_attribute' && fn !== 'get_property')) {
    return null;
  }
  const args = value[fn];
  if (!Array.isArray(args) || args.length < 2) {
    return null;
  }
  const [element, second, ...afterSecond] = args as unknown[];
  const member = Number.isSafeInteger(second) && (second as number) >= 0 ? (second as number) : undefined;
  const [name, ...path] = member === undefined ? [second, ...afterSecond] : afterSecond;
  const pathOk = path.every(
    (item) => (typeof item === 'string' && item !== '') || (Number.isSafeInteger(item) && (item as number) >= 0),
  );
  if (typeof element !== 'string' || element === '' || typeof name !== 'string' || name === '' || !pathOk) {
    return null;
  }
  return { fn, element, name, path: path as (string | number)[], ...(member === undefined ? {} : { member }) };
}

/** A reference as users write it: `get_attribute [db, url]`. */
export function referenceText(reference: ElementReference): string {
  const member = reference.member === undefined ? [] : [reference.member];
  return `${reference.fn} [${[reference.element, ...member, reference.name, ...reference.path].map(String).join(', ')}]`;
}

/** Every reference in a value, nested anywhere in objects and arrays. */
export function referencesIn(value: unknown, depth = 0): ElementReference[] {
  if (depth > MAX_DEPTH) {
    return [];
  }
  const reference = asReference(value);
  if (reference !== null) {
    return [reference];
  }
  const items = Array.isArray(value) ? (value as unknown[]) : isObject(value) ? Object.values(value) : [];
  return items.flatMap((item) => referencesIn(item, depth + 1));
}

/**
 * Whether a value is, or holds, a reference: a plain loop that stops at the first one and looks closer only at a
 * mapping with a function's key (every message asks it of every element's properties).
 */
function holdsReference(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) {
    return false;
  }
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      if (holdsReference(item, depth + 1)) {
        return true;
      }
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if ((key === 'get_attribute' || key === 'get_property') && asReference(record) !== null) {
      return true;
    }
    if (holdsReference(record[key], depth + 1)) {
      return true;
    }
  }
  return false;
}

/** Whether any value of these properties is, or holds, a reference. */
export function hasReferences(properties: Readonly<Record<string, unknown>> | undefined): boolean {
  return properties !== undefined && holdsReference(properties, 0);
}

const templatesWithReferences = new WeakMap<object, boolean>();

/**
 * Whether any of these properties holds a reference, remembered per list: a composition's node templates are read
 * once per definition revision and asked at every step of its operations.
 */
export function anyHasReferences(list: ReadonlyArray<{ readonly properties?: Readonly<Record<string, unknown>> }>) {
  const known = templatesWithReferences.get(list);
  if (known !== undefined) {
    return known;
  }
  const found = list.some((entry) => hasReferences(entry.properties));
  templatesWithReferences.set(list, found);
  return found;
}

/** One element a reference may read: its node template's properties, its own and what it reported. */
export interface ReferencedElement {
  readonly templateProperties: Readonly<Record<string, unknown>>;
  readonly properties: Readonly<Record<string, unknown>>;
  readonly outProperties: Readonly<Record<string, unknown>>;
}

/** Where references look elements up: by node template name, and a group's member by index. */
export type ReferencedElements = (templateName: string, member?: number) => ReferencedElement | undefined;

/** One reference resolved: where it is written (`baseUrl`, `conf.db.url`) and the value it gave. */
export interface ResolvedReference {
  readonly at: string;
  readonly reference: ElementReference;
  readonly value: unknown;
}

export type Resolution =
  | { readonly ok: true; readonly value: JsonObject; readonly resolved: readonly ResolvedReference[] }
  | { readonly ok: false; readonly unresolved: readonly string[] };

function follow(value: unknown, path: readonly (string | number)[]): { found: boolean; value: unknown } {
  let current = value;
  for (const step of path) {
    if (typeof step === 'number' && Array.isArray(current) && step < current.length) {
      current = current[step];
    } else if (typeof step === 'string' && isObject(current) && Object.prototype.hasOwnProperty.call(current, step)) {
      current = current[step];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: current !== undefined && current !== null, value: current };
}

/** The element's properties as `get_property` reads them: the node template's, the instance's over them. */
export function mergedProperties(element: ReferencedElement): JsonObject {
  return { ...element.templateProperties, ...element.properties };
}

interface Walk {
  readonly self: string;
  readonly elements: ReferencedElements;
  readonly resolved: ResolvedReference[];
  readonly unresolved: string[];
  /** Unresolvable references become this value instead of failing (the plan's "known after deploy"). */
  readonly placeholder: ((reference: ElementReference) => unknown) | undefined;
  readonly depth: number;
}

function resolveOne(reference: ElementReference, at: string, walk: Walk): unknown {
  const name = reference.element === SELF_REFERENCE ? walk.self : reference.element;
  const target = walk.elements(name, reference.member);
  const text = referenceText(reference);
  const fail = (why: string): unknown => {
    if (walk.placeholder !== undefined) {
      return walk.placeholder(reference);
    }
    walk.unresolved.push(`${text}: ${why}`);
    return null;
  };
  if (target === undefined) {
    return reference.member === undefined || walk.elements(name) === undefined
      ? fail(`${name} is not an element of this instance`)
      : fail(`${name} has no member ${reference.member} in this instance`);
  }
  const field = [reference.name, ...reference.path].map(String).join('.');
  if (reference.fn === 'get_attribute') {
    const found = follow(target.outProperties, [reference.name, ...reference.path]);
    return found.found ? found.value : fail(`${name} has not reported ${field}`);
  }
  const found = follow(mergedProperties(target), [reference.name, ...reference.path]);
  if (!found.found) {
    return fail(`${name} has no property ${field}`);
  }
  // A property may itself read another element (cycles were refused at commission; the depth bounds the rest).
  return walkValue(found.value, at, { ...walk, self: name, depth: walk.depth + 1 }, false);
}

function walkValue(value: unknown, at: string, walk: Walk, record: boolean): unknown {
  if (walk.depth > MAX_DEPTH) {
    return value;
  }
  const reference = asReference(value);
  if (reference !== null) {
    const resolved = resolveOne(reference, at, walk);
    if (record) {
      walk.resolved.push({ at, reference, value: resolved });
    }
    return resolved;
  }
  const inner = { ...walk, depth: walk.depth + 1 };
  if (Array.isArray(value)) {
    return (value as unknown[]).map((item, index) => walkValue(item, `${at}[${index}]`, inner, record));
  }
  if (isObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        walkValue(item, at === '' ? key : `${at}.${key}`, inner, record),
      ]),
    );
  }
  return value;
}

/**
 * The properties of element `self` (a node template name) with every reference replaced by the value it reads now.
 * Pure: the caller gives the elements' current state. Without `placeholder`, a reference that cannot be resolved
 * makes the whole resolution fail with a message naming it (`get_attribute [db, url]: db has not reported url`);
 * with it, that reference takes the placeholder's value.
 */
export function resolveReferences(
  properties: Readonly<Record<string, unknown>>,
  self: string,
  elements: ReferencedElements,
  placeholder?: (reference: ElementReference) => unknown,
): Resolution {
  const walk: Walk = { self, elements, resolved: [], unresolved: [], placeholder, depth: 0 };
  const value = walkValue(properties, '', walk, true) as JsonObject;
  return walk.unresolved.length > 0
    ? { ok: false, unresolved: walk.unresolved }
    : { ok: true, value, resolved: walk.resolved };
}

/**
 * An instance's elements as references read them, by node template name (the first element of each template, in
 * id order, when an instance has several), with their node templates' properties.
 */
export function referencedElementsOf(
  instance: Pick<AutomationComposition, 'elements'>,
  templateProperties: (templateName: string) => Readonly<Record<string, unknown>> | undefined,
): ReferencedElements {
  const byName = elementsByName(instance.elements);
  return (name, member) => {
    const element = member === undefined ? byName.get(name) : memberOf(instance.elements, name, member);
    return element === undefined
      ? undefined
      : {
          templateProperties: templateProperties(name) ?? {},
          properties: element.properties,
          outProperties: element.outProperties,
        };
  };
}

/**
 * An instance's elements by node template name, indexed once per elements object: every element of a message, and
 * every element of a plan's step, asks it. The domain never changes an elements object in place.
 */
const indexes = new WeakMap<object, ReadonlyMap<string, InstanceElement>>();

function elementsByName(elements: Readonly<Record<string, InstanceElement>>): ReadonlyMap<string, InstanceElement> {
  const known = indexes.get(elements);
  if (known !== undefined) {
    return known;
  }
  const byName = new Map<string, InstanceElement>();
  // A group is read through its member 0 (the others sort after it); other elements in id order.
  const sorted = Object.values(elements).sort(
    (a, b) => (memberIndexOf(a) ?? 0) - (memberIndexOf(b) ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  for (const element of sorted) {
    if (!byName.has(element.definition.name)) {
      byName.set(element.definition.name, element);
    }
  }
  indexes.set(elements, byName);
  return byName;
}

/** Member `index` of a group (an element that is no group member is its own member 0). */
function memberOf(
  elements: Readonly<Record<string, InstanceElement>>,
  name: string,
  index: number,
): InstanceElement | undefined {
  return Object.values(elements).find(
    (element) =>
      element.definition.name === name &&
      element.migrationState !== 'REMOVED' &&
      (memberIndexOf(element) ?? 0) === index,
  );
}
