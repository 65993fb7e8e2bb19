import type { Mapping } from './guards';
import { isMapping } from './guards';
import { isRootType } from './type-references';

/**
 * The part of a property definition (or of an `entry_schema` / `key_schema`) that says what a value must be.
 * Read loosely from the document: commissioning already refused malformed definitions, and ONAP's files write some
 * keys ONAP itself ignores (e.g. `greater-or-equal`), which are ignored here too.
 */
export interface ValueSchema {
  type: string;
  constraints: readonly unknown[];
  entrySchema: ValueSchema | undefined;
  keySchema: ValueSchema | undefined;
}

/** A property definition with the attributes that drive validation and documentation. */
export interface PropertySchema extends ValueSchema {
  name: string;
  /** TOSCA's rule: a property is required unless it says `required: false`. */
  required: boolean;
  /** `undefined` when the definition has no `default`. */
  defaultValue: unknown;
  description: string | undefined;
  /** `metadata.sensitive: true` (ONAP's marker of values to encrypt and hide). */
  sensitive: boolean;
}

/** The sections of a template that property validation reads. */
export interface TypeSections {
  nodeTypes: Mapping;
  dataTypes: Mapping;
}

export function typeSectionsOf(template: Mapping): TypeSections {
  return {
    nodeTypes: isMapping(template['node_types']) ? template['node_types'] : {},
    dataTypes: isMapping(template['data_types']) ? template['data_types'] : {},
  };
}

/** Strips an inline `name:version` reference to its name, as type lookups by name need. */
function typeName(type: string): string {
  const parts = type.split(':');
  return parts.length === 2 && parts[0] !== undefined ? parts[0] : type;
}

export function readValueSchema(raw: unknown): ValueSchema | undefined {
  if (!isMapping(raw) || typeof raw['type'] !== 'string' || raw['type'] === '') {
    return undefined;
  }
  return {
    type: typeName(raw['type']),
    constraints: Array.isArray(raw['constraints']) ? raw['constraints'] : [],
    entrySchema: readValueSchema(raw['entry_schema']),
    keySchema: readValueSchema(raw['key_schema']),
  };
}

function readPropertySchema(name: string, raw: unknown): PropertySchema | undefined {
  const value = readValueSchema(raw);
  if (value === undefined || !isMapping(raw)) {
    return undefined;
  }
  const metadata = isMapping(raw['metadata']) ? raw['metadata'] : {};
  const description = raw['description'];
  return {
    ...value,
    name,
    required: raw['required'] !== false,
    defaultValue: raw['default'] ?? undefined,
    description: typeof description === 'string' ? description : undefined,
    sensitive: metadata['sensitive'] === true || metadata['sensitive'] === 'true',
  };
}

/**
 * The chain of a type and its ancestors through `derived_from`, the type itself first. It stops at a `*.Root`
 * parent, at a parent that is not in the section (a primitive type, for data types) and at a loop.
 */
export function ancestry(section: Mapping, name: string): Array<{ name: string; definition: Mapping }> {
  const chain: Array<{ name: string; definition: Mapping }> = [];
  const seen = new Set<string>();
  let current: string | undefined = name;
  while (current !== undefined && !seen.has(current) && !isRootType(current)) {
    seen.add(current);
    const definition: unknown = section[current];
    if (!isMapping(definition)) {
      break;
    }
    chain.push({ name: current, definition });
    const parent = definition['derived_from'];
    current = typeof parent === 'string' ? parent : undefined;
  }
  return chain;
}

/**
 * The property definitions of a type, inherited through `derived_from`: a child's definition of a name replaces its
 * parent's. Parents' properties come first, in document order, so documentation reads from general to specific.
 */
export function inheritedProperties(section: Mapping, name: string): PropertySchema[] {
  const byName = new Map<string, PropertySchema>();
  for (const { definition } of ancestry(section, name).reverse()) {
    const properties = definition['properties'];
    if (!isMapping(properties)) {
      continue;
    }
    for (const [propertyName, raw] of Object.entries(properties)) {
      const schema = readPropertySchema(propertyName, raw);
      if (schema !== undefined) {
        byName.set(propertyName, schema);
      }
    }
  }
  return [...byName.values()];
}

/**
 * What a data type is made of: its inherited properties, or — for a data type derived from a primitive such as
 * `string` — that primitive, with every constraint met on the way.
 */
export interface DataTypeShape {
  properties: PropertySchema[];
  primitive: string | undefined;
  constraints: unknown[];
}

export function dataTypeShape(dataTypes: Mapping, name: string): DataTypeShape | undefined {
  const chain = ancestry(dataTypes, name);
  if (chain.length === 0) {
    return undefined;
  }
  const constraints = chain.flatMap(({ definition }) =>
    Array.isArray(definition['constraints']) ? (definition['constraints'] as unknown[]) : [],
  );
  const top = chain[chain.length - 1]?.definition['derived_from'];
  const primitive = typeof top === 'string' && !isRootType(top) && !isMapping(dataTypes[top]) ? top : undefined;
  return { properties: inheritedProperties(dataTypes, name), primitive, constraints };
}
