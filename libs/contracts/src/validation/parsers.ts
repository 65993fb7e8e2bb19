/**
 * A tiny hand-written parser kit for wire validation (no class-validator, no reflection): each parser
 * checks one JSON value and returns a normalised copy, or throws a {@link ContractViolation} naming the
 * field path and the broken rule. Object parsers keep only the fields they know, which is how unknown
 * fields are ignored, and treat JSON `null` like an absent field, as Jackson does.
 */

/** A broken wire rule at `path` (e.g. `PARTICIPANT_PRIME_ACK.compositionId`). */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';

  constructor(
    readonly path: string,
    readonly rule: string,
  ) {
    super(`${path}: ${rule}`);
  }
}

/** Checks `value` (found at `path`) and returns its normalised form; throws {@link ContractViolation}. */
export type Parser<T> = (value: unknown, path: string) => T;

/** A field that must be present and non-null. */
export interface RequiredField<T> {
  readonly required: true;
  readonly parse: Parser<T>;
}

/** A field that may be absent or null (then it is left out of the result). */
export interface OptionalField<T> {
  readonly required: false;
  readonly parse: Parser<T>;
}

type OptionalKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? K : never }[keyof T];

/**
 * The parser of each field of `T`; optional properties must use {@link opt}, required ones {@link req},
 * so the schema cannot silently disagree with the interface.
 */
export type Shape<T> = {
  readonly [K in keyof T]-?: K extends OptionalKeys<T> ? OptionalField<NonNullable<T[K]>> : RequiredField<T[K]>;
};

export function req<T>(parse: Parser<T>): RequiredField<T> {
  return { required: true, parse };
}

export function opt<T>(parse: Parser<T>): OptionalField<T> {
  return { required: false, parse };
}

/** `parent.child`, or `child` at the root. */
export function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** A plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function ownValue(input: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(input, key) ? input[key] : undefined;
}

export const string: Parser<string> = (value, path) => {
  if (typeof value !== 'string') {
    throw new ContractViolation(path, 'must be a string');
  }
  return value;
};

export const boolean: Parser<boolean> = (value, path) => {
  if (typeof value !== 'boolean') {
    throw new ContractViolation(path, 'must be a boolean');
  }
  return value;
};

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** A Java `Integer`: whole number within 32 bits. */
export const integer: Parser<number> = (value, path) => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
    throw new ContractViolation(path, 'must be a 32-bit integer');
  }
  return value;
};

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a canonical 8-4-4-4-12 hexadecimal UUID (any case). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

/** A canonical UUID, lower-cased (Java prints UUIDs in lower case, so ids compare equal as strings). */
export const uuid: Parser<string> = (value, path) => {
  if (!isUuid(value)) {
    throw new ContractViolation(path, 'must be a UUID');
  }
  return value.toLowerCase();
};

const ISO_INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** An ISO-8601 date-time with zone (Java `Instant`'s text form), kept as written. */
export const isoTimestamp: Parser<string> = (value, path) => {
  if (typeof value !== 'string' || !ISO_INSTANT_PATTERN.test(value) || Number.isNaN(Date.parse(value))) {
    throw new ContractViolation(path, 'must be an ISO-8601 timestamp');
  }
  return value;
};

/** One of a closed vocabulary (Java enums refuse unknown names, so do we). */
export function oneOf<const V extends readonly string[]>(vocabulary: V): Parser<V[number]> {
  const allowed: readonly string[] = vocabulary;
  return (value, path) => {
    if (typeof value !== 'string' || !allowed.includes(value)) {
      throw new ContractViolation(path, `must be one of ${vocabulary.join('|')}`);
    }
    return value;
  };
}

/** Exactly `expected` (the discriminator, already dispatched on). */
export function literal<const V extends string>(expected: V): Parser<V> {
  return (value, path) => {
    if (value !== expected) {
      throw new ContractViolation(path, `must be ${expected}`);
    }
    return expected;
  };
}

export function array<T>(item: Parser<T>): Parser<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) {
      throw new ContractViolation(path, 'must be an array');
    }
    return value.map((entry: unknown, index) => item(entry, `${path}[${index}]`));
  };
}

/** A free-form JSON object, passed through untouched (properties are user data). */
export const jsonObject: Parser<Record<string, unknown>> = (value, path) => {
  if (!isJsonObject(value)) {
    throw new ContractViolation(path, 'must be an object');
  }
  return value;
};

/** A JSON object used as a map; keys and values are each checked. */
export function record<T>(entry: Parser<T>, key: Parser<string> = string): Parser<Record<string, T>> {
  return (value, path) => {
    if (!isJsonObject(value)) {
      throw new ContractViolation(path, 'must be an object');
    }
    const result: Record<string, T> = {};
    for (const [rawKey, rawValue] of Object.entries(value)) {
      const keyPath = at(path, rawKey);
      let parsedKey: string;
      try {
        parsedKey = key(rawKey, keyPath);
      } catch (error) {
        throw error instanceof ContractViolation ? new ContractViolation(keyPath, `key ${error.rule}`) : error;
      }
      result[parsedKey] = entry(rawValue, keyPath);
    }
    return result;
  };
}

/** A JSON object with known fields; unknown fields are dropped, nulls count as absent. */
export function object<T>(shape: Shape<T>): Parser<T> {
  const fields = Object.entries(shape as Record<string, RequiredField<unknown> | OptionalField<unknown>>);
  return (value, path) => {
    if (!isJsonObject(value)) {
      throw new ContractViolation(path, 'must be an object');
    }
    const result: Record<string, unknown> = {};
    for (const [key, field] of fields) {
      const raw = ownValue(value, key);
      const fieldPath = at(path, key);
      if (raw === undefined || raw === null) {
        if (field.required) {
          throw new ContractViolation(fieldPath, 'is required');
        }
        continue;
      }
      result[key] = field.parse(raw, fieldPath);
    }
    return result as T;
  };
}

/** Adds a cross-field rule after the structural parse. */
export function refine<T>(parse: Parser<T>, check: (value: T, path: string) => void): Parser<T> {
  return (value, path) => {
    const parsed = parse(value, path);
    check(parsed, path);
    return parsed;
  };
}
