import { DomainError } from '../errors';

/**
 * A filter on instance metadata: each key's value the instance's metadata must have, compared as text. One rule for
 * every selection by metadata (a rollout's `filter.metadata`, a subscription's `filter.metadata`).
 */
export type MetadataValues = Readonly<Record<string, string>>;

/**
 * Reads `{key: value}` at `field` (e.g. `filter.metadata`): an object whose values are strings, numbers or booleans
 * (kept as text). Anything else is refused, naming the field, or `<field>.<key>` for a bad value.
 */
export function parseMetadataValues(field: string, value: unknown): MetadataValues {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `${field}: must be an object of metadata keys and the values they must have`,
    );
  }
  const values: Record<string, string> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
      throw new DomainError(
        'VALIDATION_FAILED',
        `${field}.${key}: must be a string, number or boolean, got ${JSON.stringify(item) ?? String(item)}`,
      );
    }
    values[key] = String(item);
  }
  return values;
}

/** Whether `metadata` has every value `wanted` asks for (an empty `wanted` holds for any metadata, none too). */
export function metadataHolds(wanted: MetadataValues, metadata: Readonly<Record<string, unknown>> | null): boolean {
  return Object.entries(wanted).every(([key, value]) => {
    const actual = metadata?.[key];
    return (
      (typeof actual === 'string' || typeof actual === 'number' || typeof actual === 'boolean') &&
      String(actual) === value
    );
  });
}
