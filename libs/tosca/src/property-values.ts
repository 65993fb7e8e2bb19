import { referenceFunctionOf } from './element-references';
import type { Mapping } from './guards';
import { isMapping } from './guards';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import type { PropertySchema, ValueSchema } from './property-schema';
import { dataTypeShape } from './property-schema';
import type { VersionTuple } from './scalar-values';
import {
  SCALAR_UNIT_TYPES,
  compareVersions,
  scalarUnitNames,
  scalarUnitValue,
  timestampValue,
  versionValue,
} from './scalar-values';

/** A value after checking: defaults of data type properties filled in, and every problem found on the way. */
export interface CheckedValue {
  value: unknown;
  problems: ToscaProblem[];
}

/** Data types may nest (a list of maps of data types...); deeper than this is refused rather than recursed. */
const MAX_DEPTH = 32;

/** Types whose values are not checked: anything goes, as TOSCA and ONAP define them. */
const UNCHECKED_TYPES = new Set(['any', 'object', 'tosca.datatypes.Root']);

/** Normative data types that are documents written as strings. */
const STRING_DATA_TYPES = new Set(['tosca.datatypes.json', 'tosca.datatypes.xml']);

/** Normative data types with a mapping value whose fields the template does not declare. */
const MAPPING_DATA_TYPES = new Set([
  'tosca.datatypes.Credential',
  'tosca.datatypes.TimeInterval',
  'tosca.datatypes.network.NetworkInfo',
  'tosca.datatypes.network.PortInfo',
  'tosca.datatypes.network.PortDef',
  'tosca.datatypes.network.PortSpec',
]);

/** Shows a value in a message, short enough for a one-line error. */
export function showValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Checks one value against a property schema (type, `entry_schema`, `key_schema`, constraints) and returns it with
 * the defaults of data type properties applied.
 */
export function checkValue(
  value: unknown,
  schema: ValueSchema,
  path: readonly PathSegment[],
  dataTypes: Mapping,
  depth = 0,
): CheckedValue {
  if (depth > MAX_DEPTH) {
    return { value, problems: [problem(path, 'property-type', `nested deeper than ${MAX_DEPTH} levels`)] };
  }
  // A reference (get_attribute, get_property) is resolved when the element is dispatched: its value is unknown here.
  if (referenceFunctionOf(value) !== null) {
    return { value, problems: [] };
  }
  const typed = checkType(value, schema, path, dataTypes, depth);
  if (typed.problems.length > 0) {
    return typed;
  }
  const shape = dataTypeShape(dataTypes, schema.type);
  const constraints = [...schema.constraints, ...(shape?.constraints ?? [])];
  const comparableType = shape?.primitive ?? schema.type;
  const problems = constraints.flatMap((constraint) => checkConstraint(typed.value, comparableType, constraint, path));
  return { value: typed.value, problems };
}

function typeProblem(path: readonly PathSegment[], expected: string, value: unknown): CheckedValue {
  return { value, problems: [problem(path, 'property-type', `expected ${expected}, got ${showValue(value)}`)] };
}

function checkType(
  value: unknown,
  schema: ValueSchema,
  path: readonly PathSegment[],
  dataTypes: Mapping,
  depth: number,
): CheckedValue {
  const ok: CheckedValue = { value, problems: [] };
  const type = schema.type;
  switch (type) {
    case 'string':
      return typeof value === 'string' ? ok : typeProblem(path, 'string', value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? ok : typeProblem(path, 'integer', value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? ok : typeProblem(path, 'float', value);
    case 'boolean':
      return typeof value === 'boolean' ? ok : typeProblem(path, 'boolean', value);
    case 'null':
      return value === null ? ok : typeProblem(path, 'null', value);
    case 'timestamp':
      return timestampValue(value) !== undefined
        ? ok
        : typeProblem(path, 'timestamp (e.g. 2026-12-01T10:00:00Z)', value);
    case 'version':
      return versionValue(value) !== undefined
        ? ok
        : typeProblem(path, 'version (major.minor[.fix[.qualifier[-build]]])', value);
    case 'range':
      return isRange(value)
        ? ok
        : typeProblem(path, 'range [lower, upper] of integers (upper may be UNBOUNDED)', value);
    case 'list':
      return checkList(value, schema, path, dataTypes, depth);
    case 'map':
      return checkMap(value, schema, path, dataTypes, depth);
    default:
      break;
  }
  if (SCALAR_UNIT_TYPES.includes(type)) {
    return scalarUnitValue(type, value) !== undefined
      ? ok
      : typeProblem(path, `${type} ("<number> <unit>", unit one of ${scalarUnitNames(type)})`, value);
  }
  if (UNCHECKED_TYPES.has(type)) {
    return ok;
  }
  if (STRING_DATA_TYPES.has(type)) {
    return typeof value === 'string' ? ok : typeProblem(path, `${type} (a string)`, value);
  }
  if (MAPPING_DATA_TYPES.has(type)) {
    return isMapping(value) ? ok : typeProblem(path, `${type} (a mapping)`, value);
  }
  return checkDataType(value, type, path, dataTypes, depth);
}

function isRange(value: unknown): boolean {
  if (!Array.isArray(value) || value.length !== 2) {
    return false;
  }
  const [lower, upper] = value as unknown[];
  return (
    typeof lower === 'number' &&
    Number.isSafeInteger(lower) &&
    (upper === 'UNBOUNDED' || (typeof upper === 'number' && Number.isSafeInteger(upper) && upper >= lower))
  );
}

function checkList(
  value: unknown,
  schema: ValueSchema,
  path: readonly PathSegment[],
  dataTypes: Mapping,
  depth: number,
): CheckedValue {
  if (!Array.isArray(value)) {
    return typeProblem(path, 'list', value);
  }
  const entrySchema = schema.entrySchema;
  if (entrySchema === undefined) {
    return { value, problems: [] };
  }
  const entries = value.map((entry: unknown, position) =>
    checkValue(entry, entrySchema, [...path, position], dataTypes, depth + 1),
  );
  return { value: entries.map((entry) => entry.value), problems: entries.flatMap((entry) => entry.problems) };
}

function checkMap(
  value: unknown,
  schema: ValueSchema,
  path: readonly PathSegment[],
  dataTypes: Mapping,
  depth: number,
): CheckedValue {
  if (!isMapping(value)) {
    return typeProblem(path, 'map', value);
  }
  const problems: ToscaProblem[] = [];
  const checked: Mapping = {};
  for (const [key, entry] of Object.entries(value)) {
    if (schema.keySchema !== undefined) {
      problems.push(...checkValue(key, schema.keySchema, [...path, key], dataTypes, depth + 1).problems);
    }
    if (schema.entrySchema === undefined) {
      checked[key] = entry;
      continue;
    }
    const result = checkValue(entry, schema.entrySchema, [...path, key], dataTypes, depth + 1);
    checked[key] = result.value;
    problems.push(...result.problems);
  }
  return { value: checked, problems };
}

function checkDataType(
  value: unknown,
  type: string,
  path: readonly PathSegment[],
  dataTypes: Mapping,
  depth: number,
): CheckedValue {
  const shape = dataTypeShape(dataTypes, type);
  if (shape === undefined) {
    // Commissioning refused unknown types, so this is a type it let through by name (ONAP's predefined list).
    return { value, problems: [] };
  }
  if (shape.primitive !== undefined) {
    const base: ValueSchema = { type: shape.primitive, constraints: [], entrySchema: undefined, keySchema: undefined };
    return checkType(value, base, path, dataTypes, depth);
  }
  if (!isMapping(value)) {
    return typeProblem(path, `${type} (a mapping)`, value);
  }
  return checkFields(value, shape.properties, path, dataTypes, depth + 1, `data type ${type}`);
}

/**
 * Checks the fields of a mapping against property definitions, filling in defaults: used for the properties of a
 * data type value. Unknown fields are problems: a data type lists its fields.
 */
export function checkFields(
  value: Mapping,
  properties: readonly PropertySchema[],
  path: readonly PathSegment[],
  dataTypes: Mapping,
  depth: number,
  owner: string,
): CheckedValue {
  const problems: ToscaProblem[] = [];
  const checked: Mapping = {};
  const declared = new Set(properties.map((property) => property.name));
  for (const property of properties) {
    const given = value[property.name];
    const raw = given ?? property.defaultValue;
    const fieldPath = [...path, property.name];
    if (raw === undefined || raw === null) {
      if (property.required) {
        problems.push(problem(fieldPath, 'property-required', `required by ${owner}, not set and no default`));
      }
      continue;
    }
    const result = checkValue(raw, property, fieldPath, dataTypes, depth);
    checked[property.name] = result.value;
    problems.push(...result.problems);
  }
  for (const [name, field] of Object.entries(value)) {
    if (!declared.has(name)) {
      checked[name] = field;
      problems.push(problem([...path, name], 'property-unknown', `unknown property: ${owner} does not define it`));
    }
  }
  return { value: checked, problems };
}

/** A value reduced to something `<` can compare, according to the property's type. */
type Comparable = number | string | VersionTuple;

function comparable(type: string, value: unknown): Comparable | undefined {
  if (SCALAR_UNIT_TYPES.includes(type)) {
    return scalarUnitValue(type, value);
  }
  if (type === 'timestamp') {
    return timestampValue(value);
  }
  if (type === 'version') {
    return versionValue(value);
  }
  return typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

function compare(left: Comparable, right: Comparable): number | undefined {
  if (Array.isArray(left) && Array.isArray(right)) {
    return compareVersions(left as VersionTuple, right as VersionTuple);
  }
  if (typeof left === typeof right && !Array.isArray(left)) {
    return left < right ? -1 : left > right ? 1 : 0;
  }
  return undefined;
}

function sameValue(type: string, left: unknown, right: unknown): boolean {
  const a = comparable(type, left);
  const b = comparable(type, right);
  if (a !== undefined && b !== undefined) {
    return compare(a, b) === 0;
  }
  return JSON.stringify(left) === JSON.stringify(right);
}

const COMPARISONS: Record<string, { holds: (order: number) => boolean; words: string }> = {
  greater_than: { holds: (order) => order > 0, words: 'greater than' },
  greater_or_equal: { holds: (order) => order >= 0, words: 'greater than or equal to' },
  less_than: { holds: (order) => order < 0, words: 'less than' },
  less_or_equal: { holds: (order) => order <= 0, words: 'less than or equal to' },
};

function sizeOf(value: unknown): number | undefined {
  if (typeof value === 'string' || Array.isArray(value)) {
    return value.length;
  }
  return isMapping(value) ? Object.keys(value).length : undefined;
}

/**
 * One TOSCA constraint clause (`{operator: operand}`). Operators TOSCA does not define, and operands that cannot
 * apply, are ignored as ONAP ignores them: the definition was accepted at commissioning and an instance cannot fix it.
 */
export function checkConstraint(
  value: unknown,
  type: string,
  constraint: unknown,
  path: readonly PathSegment[],
): ToscaProblem[] {
  if (!isMapping(constraint)) {
    return [];
  }
  const problems: ToscaProblem[] = [];
  const refuse = (operator: string, rule: string): void => {
    problems.push(problem(path, 'property-constraint', `must be ${rule} (${operator}), got ${showValue(value)}`));
  };
  for (const [operator, operand] of Object.entries(constraint)) {
    const comparison = COMPARISONS[operator];
    if (comparison !== undefined) {
      const left = comparable(type, value);
      const right = comparable(type, operand);
      const order = left === undefined || right === undefined ? undefined : compare(left, right);
      if (order !== undefined && !comparison.holds(order)) {
        refuse(operator, `${comparison.words} ${showValue(operand)}`);
      }
      continue;
    }
    switch (operator) {
      case 'equal':
        if (!sameValue(type, value, operand)) {
          refuse(operator, `equal to ${showValue(operand)}`);
        }
        break;
      case 'in_range':
        if (!inRange(type, value, operand)) {
          refuse(operator, `in the range ${showValue(operand)}`);
        }
        break;
      case 'valid_values':
        if (Array.isArray(operand) && !operand.some((candidate) => sameValue(type, value, candidate))) {
          refuse(operator, `one of ${showValue(operand)}`);
        }
        break;
      case 'length':
      case 'min_length':
      case 'max_length':
        checkLength(operator, value, operand, refuse);
        break;
      case 'pattern':
        if (typeof operand === 'string' && typeof value === 'string' && !fullMatch(operand, value)) {
          refuse(operator, `a match of the pattern ${showValue(operand)}`);
        }
        break;
      default:
        break;
    }
  }
  return problems;
}

function inRange(type: string, value: unknown, operand: unknown): boolean {
  if (!Array.isArray(operand) || operand.length !== 2) {
    return true;
  }
  const [lowerBound, upperBound] = operand as unknown[];
  const current = comparable(type, value);
  const lower = comparable(type, lowerBound);
  if (current === undefined || lower === undefined) {
    return true;
  }
  const aboveLower = (compare(current, lower) ?? 0) >= 0;
  if (upperBound === 'UNBOUNDED') {
    return aboveLower;
  }
  const upper = comparable(type, upperBound);
  return aboveLower && (upper === undefined || (compare(current, upper) ?? 0) <= 0);
}

function checkLength(
  operator: 'length' | 'min_length' | 'max_length',
  value: unknown,
  operand: unknown,
  refuse: (operator: string, rule: string) => void,
): void {
  const size = sizeOf(value);
  if (size === undefined || typeof operand !== 'number') {
    return;
  }
  if (operator === 'length' && size !== operand) {
    refuse(operator, `of length ${operand}`);
  } else if (operator === 'min_length' && size < operand) {
    refuse(operator, `of length ${operand} or more`);
  } else if (operator === 'max_length' && size > operand) {
    refuse(operator, `of length ${operand} or less`);
  }
}

/** TOSCA patterns constrain the whole value; an invalid expression constrains nothing (commissioning kept it). */
function fullMatch(pattern: string, value: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`, 'u').test(value);
  } catch {
    return true;
  }
}
