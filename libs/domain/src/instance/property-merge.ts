import type { JsonObject } from '../model';

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mergeValue(stored: unknown, given: unknown): unknown {
  if (isPlainObject(stored) && isPlainObject(given)) {
    return mergeProperties(stored, given);
  }
  if (Array.isArray(stored) && Array.isArray(given) && stored.length === given.length) {
    return given.map((item, index) => mergeValue(stored[index], item));
  }
  return given;
}

/**
 * ONAP's property update rule: maps merge key by key recursively, lists of equal length merge item by
 * item, anything else is replaced by the given value. Keys absent from `given` keep their stored value.
 */
export function mergeProperties(stored: JsonObject, given: JsonObject): JsonObject {
  const merged: JsonObject = { ...stored };
  for (const [key, value] of Object.entries(given)) {
    merged[key] = key in stored ? mergeValue(stored[key], value) : value;
  }
  return merged;
}
