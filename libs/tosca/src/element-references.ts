import { excerpt, shortText } from '@acm/input-guards';
import type { Checked } from './element-properties';
import { isMapping } from './guards';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';

/**
 * TOSCA's intrinsic functions that read another element's values (TOSCA Simple Profile 1.3, 4.5 and 4.4.2):
 * `get_attribute` reads what the element's participant reported (its outProperties), `get_property` its resolved
 * properties. Each names an element node template (or `SELF`), a name, then a path of keys and list indexes.
 */
export const REFERENCE_FUNCTIONS = ['get_attribute', 'get_property'] as const;
export type ReferenceFunction = (typeof REFERENCE_FUNCTIONS)[number];

/** The element a reference names when it reads the referencing element itself. */
export const SELF = 'SELF';

/** One reference an element's properties hold, with where it is written. */
export interface DeclaredReference {
  readonly fn: ReferenceFunction;
  /** The element node template it reads, or `SELF`. */
  readonly element: string;
  readonly name: string;
  /** A member of a group by index (`[ Group, 2, url ]`); absent: the element itself, or member 0 of a group. */
  readonly member?: number;
  /** Keys (strings) and list indexes (non-negative integers) below `name`. */
  readonly path: readonly (string | number)[];
  /** Where the function is written, e.g. `[..., 'properties', 'baseUrl']`. */
  readonly at: readonly PathSegment[];
}

/** How deep property values are walked for references (the bounded parser already limits documents). */
const MAX_DEPTH = 64;

/** The function name when `value` is written as a reference (a one-key mapping of a function name), else null. */
export function referenceFunctionOf(value: unknown): ReferenceFunction | null {
  if (!isMapping(value)) {
    return null;
  }
  const keys = Object.keys(value);
  const [key] = keys;
  return keys.length === 1 && (REFERENCE_FUNCTIONS as readonly string[]).includes(key ?? '')
    ? (key as ReferenceFunction)
    : null;
}

/** The `[ <element | SELF>, <name>, ...path ]` arguments of one function, or the problem that makes them unusable. */
function readArguments(
  fn: ReferenceFunction,
  args: unknown,
  at: readonly PathSegment[],
): { reference: DeclaredReference | null; problems: ToscaProblem[] } {
  const argsPath = [...at, fn];
  const refuse = (path: readonly PathSegment[], message: string) => ({
    reference: null,
    problems: [problem(path, 'reference', `${fn} ${message}`)],
  });
  if (!Array.isArray(args)) {
    return refuse(argsPath, `must be a list [ <element | SELF>, <name>, ...path ], got ${excerpt(args)}`);
  }
  const items = args as unknown[];
  if (items.length < 2) {
    return refuse(argsPath, `needs at least an element and a name, got ${items.length} item(s)`);
  }
  const [element, second, ...afterSecond] = items;
  // `[ Group, 2, url ]`: a non-negative integer second names a member of a group, the name follows it.
  const member = Number.isSafeInteger(second) && (second as number) >= 0 ? (second as number) : undefined;
  if (member !== undefined && afterSecond.length === 0) {
    return refuse([...argsPath, 1], `must name a property or attribute after the member index ${member}, got nothing`);
  }
  const [name, ...rest] = member === undefined ? [second, ...afterSecond] : afterSecond;
  const offset = member === undefined ? 0 : 1;
  if (typeof element !== 'string' || element === '') {
    return refuse([...argsPath, 0], `must name an element node template or SELF first, got ${excerpt(element)}`);
  }
  if (typeof name !== 'string' || name === '') {
    return refuse(
      [...argsPath, 1 + offset],
      `must name a property or attribute second (after a member index, if any), got ${excerpt(name)}`,
    );
  }
  const path: (string | number)[] = [];
  for (const [position, item] of rest.entries()) {
    const valid = (typeof item === 'string' && item !== '') || (Number.isSafeInteger(item) && (item as number) >= 0);
    if (!valid) {
      return refuse(
        [...argsPath, position + 2 + offset],
        `path items must be keys (non-empty strings) or list indexes (non-negative integers), got ${excerpt(item)}`,
      );
    }
    path.push(item as string | number);
  }
  return { reference: { fn, element, name, path, at, ...(member === undefined ? {} : { member }) }, problems: [] };
}

/**
 * Every reference in a property value, nested anywhere in mappings and lists, with the problems of those written
 * wrongly. A value that is not a one-key mapping of `get_attribute` or `get_property` is a plain value.
 */
export function readReferences(value: unknown, at: readonly PathSegment[], depth = 0): Checked<DeclaredReference[]> {
  if (depth > MAX_DEPTH) {
    return { value: [], problems: [] };
  }
  const fn = referenceFunctionOf(value);
  if (fn !== null) {
    const { reference, problems } = readArguments(fn, (value as Record<string, unknown>)[fn], at);
    return { value: reference ? [reference] : [], problems };
  }
  const entries: Array<[PathSegment, unknown]> = Array.isArray(value)
    ? (value as unknown[]).map((item, position) => [position, item])
    : isMapping(value)
      ? Object.entries(value)
      : [];
  const found: DeclaredReference[] = [];
  const problems: ToscaProblem[] = [];
  for (const [key, item] of entries) {
    const inner = readReferences(item, [...at, key], depth + 1);
    found.push(...inner.value);
    problems.push(...inner.problems);
  }
  return { value: found, problems };
}

/** A reference as users write it, for messages: `get_attribute [db, url]`. */
export function describeReference(
  reference: Pick<DeclaredReference, 'fn' | 'element' | 'name' | 'path' | 'member'>,
): string {
  const member = reference.member === undefined ? [] : [reference.member];
  return `${reference.fn} [${[reference.element, ...member, reference.name, ...reference.path].map(String).join(', ')}]`;
}

/**
 * The references of one element's properties, checked on their own: the syntax of each, and that `get_attribute`
 * does not read `SELF` (the element's own outProperties are not known when it is dispatched). Whether the named
 * elements exist, their phases and cycles are checked against the whole composition by the caller.
 */
export function readElementReferences(
  elementName: string,
  properties: Record<string, unknown>,
  propertiesPath: readonly PathSegment[],
): Checked<DeclaredReference[]> {
  const read = readReferences(properties, propertiesPath);
  const problems = [...read.problems];
  const value: DeclaredReference[] = [];
  for (const reference of read.value) {
    const own = reference.element === SELF || reference.element === elementName;
    if (own && reference.fn === 'get_attribute') {
      const message = `${describeReference(reference)}: get_attribute cannot read element ${shortText(elementName)} itself, its outProperties are not known when it is dispatched (use get_property for its own properties)`;
      problems.push(problem([...reference.at, reference.fn, 0], 'reference', message));
      continue;
    }
    value.push(own ? { ...reference, element: SELF } : reference);
  }
  return { value, problems };
}
