/** A plain mapping as produced by JSON/YAML parsing (not an array, not null). */
export type Mapping = Record<string, unknown>;

/** Narrows parsed JSON/YAML values; arrays and null are not mappings in TOSCA terms. */
export function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names the JSON kind of a value for error messages ("a list", "a number", ...). */
export function describeKind(value: unknown): string {
  if (value === null || value === undefined) {
    return 'empty';
  }
  if (Array.isArray(value)) {
    return 'a list';
  }
  if (typeof value === 'object') {
    return 'a mapping';
  }
  return `a ${typeof value}`;
}

/** Entries of an optional mapping, so callers can iterate without null checks. */
export function mappingEntries(value: unknown): Array<[string, unknown]> {
  return isMapping(value) ? Object.entries(value) : [];
}
