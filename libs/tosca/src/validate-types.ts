import { shortText } from '@acm/input-guards';
import type { EntityEntry } from './entity-checks';
import { checkName, checkNameField, checkOptionalVersion, checkReference } from './entity-checks';
import type { Mapping } from './guards';
import { describeKind, isMapping, mappingEntries } from './guards';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import { TOSCA_PRIMITIVE_TYPES, isRootType, typeReference } from './type-references';

/** Sections holding type definitions; each is its own namespace for `derived_from`. */
export const TYPE_SECTIONS = [
  'data_types',
  'capability_types',
  'node_types',
  'relationship_types',
  'policy_types',
] as const;

/** Name of one of the type sections. */
export type TypeSection = (typeof TYPE_SECTIONS)[number];

/** Type definitions by section and name. */
export type TypeIndex = Record<TypeSection, ReadonlyMap<string, EntityEntry>>;

const LABEL: Record<TypeSection, string> = {
  data_types: 'data type',
  capability_types: 'capability type',
  node_types: 'node type',
  relationship_types: 'relationship type',
  policy_types: 'policy type',
};

/** ONAP only checks property data types of these sections; capability/relationship types are stored unchecked. */
const SECTIONS_WITH_CHECKED_PROPERTIES: readonly TypeSection[] = ['data_types', 'node_types', 'policy_types'];

/** Collects the type definitions so later checks can resolve references, reporting sections of the wrong shape. */
export function indexTypes(document: Mapping): { index: TypeIndex; problems: ToscaProblem[] } {
  const problems: ToscaProblem[] = [];
  const index = {} as Record<TypeSection, Map<string, EntityEntry>>;
  for (const section of TYPE_SECTIONS) {
    const entries = new Map<string, EntityEntry>();
    index[section] = entries;
    const value = document[section];
    if (value === undefined || value === null) {
      continue;
    }
    if (!isMapping(value)) {
      problems.push(
        problem([section], 'shape', `${section} must be a mapping of name to definition, got ${describeKind(value)}`),
      );
      continue;
    }
    for (const [name, definition] of Object.entries(value)) {
      const path = [section, name];
      const malformed = !isMapping(definition);
      if (malformed) {
        problems.push(
          problem(
            path,
            'shape',
            `${LABEL[section]} ${shortText(name)} must be a mapping, got ${describeKind(definition)}`,
          ),
        );
      }
      entries.set(name, { name, path, definition: malformed ? {} : definition, malformed });
    }
  }
  return { index, problems };
}

/** Names, versions, parents, ancestry cycles and property data types of every type definition. */
export function checkTypes(index: TypeIndex): ToscaProblem[] {
  const problems: ToscaProblem[] = [];
  for (const section of TYPE_SECTIONS) {
    const entries = index[section];
    for (const entry of entries.values()) {
      problems.push(...checkName(entry.name, entry.path, LABEL[section]));
      if (entry.malformed) {
        continue;
      }
      problems.push(...checkNameField(entry, LABEL[section]));
      problems.push(...checkOptionalVersion(entry.definition, 'version', entry.path));
      problems.push(...checkParent(entry, section, entries));
      if (SECTIONS_WITH_CHECKED_PROPERTIES.includes(section)) {
        problems.push(...checkProperties(entry, index.data_types));
      }
    }
    problems.push(...checkAncestryCycles(entries, section));
  }
  return problems;
}

function checkParent(
  entry: EntityEntry,
  section: TypeSection,
  entries: ReadonlyMap<string, EntityEntry>,
): ToscaProblem[] {
  const parent = entry.definition['derived_from'];
  const path = [...entry.path, 'derived_from'];
  if (parent === undefined || parent === null) {
    return [];
  }
  if (typeof parent !== 'string') {
    return [problem(path, 'shape', `derived_from must be a type name, got ${describeKind(parent)}`)];
  }
  if (isRootType(parent) || entries.has(parent)) {
    return [];
  }
  return [
    problem(
      path,
      'parent-not-found',
      `parent ${shortText(parent)} of ${LABEL[section]} ${shortText(entry.name)} not found in ${section}`,
    ),
  ];
}

function checkProperties(entry: EntityEntry, dataTypes: ReadonlyMap<string, EntityEntry>): ToscaProblem[] {
  const properties = entry.definition['properties'];
  const path = [...entry.path, 'properties'];
  if (properties === undefined || properties === null) {
    return [];
  }
  if (!isMapping(properties)) {
    return [
      problem(path, 'shape', `properties must be a mapping of property definitions, got ${describeKind(properties)}`),
    ];
  }
  return mappingEntries(properties).flatMap(([name, definition]) =>
    checkPropertyDefinition(definition, [...path, name], dataTypes),
  );
}

function checkPropertyDefinition(
  definition: unknown,
  path: PathSegment[],
  dataTypes: ReadonlyMap<string, EntityEntry>,
): ToscaProblem[] {
  if (!isMapping(definition)) {
    return [problem(path, 'shape', `property definition must be a mapping, got ${describeKind(definition)}`)];
  }
  const type = definition['type'];
  if (typeof type !== 'string' || type === '') {
    return [problem([...path, 'type'], 'required', 'property definition needs a type')];
  }
  const problems = [
    ...checkOptionalVersion(definition, 'type_version', path),
    ...checkDataTypeReference(type, definition['type_version'], [...path, 'type'], dataTypes),
  ];
  for (const schemaKey of ['entry_schema', 'key_schema']) {
    problems.push(...checkSchema(definition[schemaKey], [...path, schemaKey], dataTypes));
  }
  return problems;
}

/** A schema without a type (`entry_schema:` left empty) is tolerated, as ONAP does. */
function checkSchema(
  schema: unknown,
  path: PathSegment[],
  dataTypes: ReadonlyMap<string, EntityEntry>,
): ToscaProblem[] {
  if (schema === undefined || schema === null) {
    return [];
  }
  if (!isMapping(schema)) {
    return [problem(path, 'shape', `schema must be a mapping, got ${describeKind(schema)}`)];
  }
  const type = schema['type'];
  if (type === undefined || type === null) {
    return [];
  }
  if (typeof type !== 'string') {
    return [problem([...path, 'type'], 'shape', `schema type must be a type name, got ${describeKind(type)}`)];
  }
  return [
    ...checkOptionalVersion(schema, 'type_version', path),
    ...checkDataTypeReference(type, schema['type_version'], [...path, 'type'], dataTypes),
  ];
}

function checkDataTypeReference(
  type: string,
  typeVersion: unknown,
  path: PathSegment[],
  dataTypes: ReadonlyMap<string, EntityEntry>,
): ToscaProblem[] {
  const reference = typeReference(type, typeVersion);
  if (TOSCA_PRIMITIVE_TYPES.has(type) || TOSCA_PRIMITIVE_TYPES.has(reference.name)) {
    return [];
  }
  return checkReference(reference, dataTypes, path, 'data type', 'data_types');
}

/** Reports each `derived_from` loop once, starting from the member that comes first in the document. */
function checkAncestryCycles(entries: ReadonlyMap<string, EntityEntry>, section: TypeSection): ToscaProblem[] {
  const parentOf = new Map<string, string>();
  for (const entry of entries.values()) {
    const parent = entry.definition['derived_from'];
    if (typeof parent === 'string' && entries.has(parent)) {
      parentOf.set(entry.name, parent);
    }
  }
  return findCycles([...entries.keys()], (name) => {
    const parent = parentOf.get(name);
    return parent === undefined ? [] : [parent];
  }).map((cycle) => {
    const first = cycle[0] ?? '';
    const message = `${LABEL[section]} ${first} is its own ancestor: ${cycle.join(' -> ')}`;
    return problem([section, first, 'derived_from'], 'cycle', message);
  });
}

/**
 * Finds the cycles of a directed graph met by a depth-first walk (at least one through every loop), each returned
 * once as a closed path (`[a, b, a]`) starting from the member that comes first in `nodes`, so the report is stable.
 * Shared by `derived_from` and the element `dependsOn` graph.
 */
export function findCycles(nodes: readonly string[], next: (node: string) => readonly string[]): string[][] {
  const order = new Map(nodes.map((node, position) => [node, position]));
  const done = new Set<string>();
  const cycles = new Map<string, string[]>();
  const walk = (node: string, stack: string[]): void => {
    const onStack = stack.indexOf(node);
    if (onStack >= 0) {
      const cycle = rotateToFirst(stack.slice(onStack), order);
      cycles.set(cycle.join('\u0000'), [...cycle, cycle[0] ?? node]);
      return;
    }
    if (done.has(node)) {
      return;
    }
    stack.push(node);
    for (const successor of next(node)) {
      walk(successor, stack);
    }
    stack.pop();
    done.add(node);
  };
  for (const node of nodes) {
    walk(node, []);
  }
  return [...cycles.values()];
}

function rotateToFirst(cycle: string[], order: ReadonlyMap<string, number>): string[] {
  let start = 0;
  cycle.forEach((node, position) => {
    const best = cycle[start];
    if (best !== undefined && (order.get(node) ?? Infinity) < (order.get(best) ?? Infinity)) {
      start = position;
    }
  });
  return [...cycle.slice(start), ...cycle.slice(0, start)];
}
