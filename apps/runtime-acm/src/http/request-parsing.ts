import { DomainError, isOneOf } from '@acm/domain';
import { excerpt, forbiddenCharacterIn } from '@acm/input-guards';

/** The RFC 4122 textual form; ONAP ids are random UUIDs. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function invalid(message: string): DomainError {
  return new DomainError('VALIDATION_FAILED', message);
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** A path or query id: refused with 400 before any lookup, naming the parameter. */
export function parseUuid(name: string, value: unknown): string {
  if (!isUuid(value)) {
    throw invalid(`${name}: must be a UUID, got ${excerpt(value)}`);
  }
  return value.toLowerCase();
}

export function optionalUuid(name: string, value: unknown): string | undefined {
  return value === undefined || value === '' ? undefined : parseUuid(name, value);
}

export function optionalString(name: string, value: unknown): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string') {
    throw invalid(`${name}: must be given once, as text`);
  }
  const problem = forbiddenCharacterIn(value);
  if (problem !== undefined) {
    throw invalid(`${name}: ${problem}`);
  }
  return value;
}

function nonNegativeInteger(name: string, value: unknown, max: number): number | undefined {
  const text = optionalString(name, value);
  if (text === undefined || text === '') {
    return undefined;
  }
  if (!/^\d+$/.test(text) || Number(text) > max) {
    throw invalid(`${name}: must be an integer from 0 to ${max}, got ${excerpt(text)}`);
  }
  return Number(text);
}

/** ONAP paging: page (0-based) and size apply only together. */
export function parsePage(query: Record<string, unknown>): { page?: number; size?: number } {
  const page = nonNegativeInteger('page', query['page'], 1_000_000);
  const size = nonNegativeInteger('size', query['size'], 10_000);
  if (size === 0) {
    throw invalid('size: must be at least 1');
  }
  return page !== undefined && size !== undefined ? { page, size } : {};
}

/** A comma-separated list of vocabulary values, each checked. */
export function parseEnumList<const T extends readonly string[]>(
  name: string,
  vocabulary: T,
  value: unknown,
): T[number][] | undefined {
  const text = optionalString(name, value);
  if (text === undefined || text.trim() === '') {
    return undefined;
  }
  return text.split(',').map((item) => {
    const trimmed = item.trim();
    if (!isOneOf(vocabulary, trimmed)) {
      throw invalid(`${name}: ${excerpt(trimmed)} is not one of ${vocabulary.join(', ')}`);
    }
    return trimmed;
  });
}

export function parseUuidList(name: string, value: unknown): string[] | undefined {
  const text = optionalString(name, value);
  if (text === undefined || text.trim() === '') {
    return undefined;
  }
  return text.split(',').map((item) => parseUuid(name, item.trim()));
}

export function asObject(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${name}: must be an object`);
  }
  return value as Record<string, unknown>;
}

export function optionalObject(name: string, value: unknown): Record<string, unknown> | undefined {
  return value === undefined || value === null ? undefined : asObject(name, value);
}

export function requiredText(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(`${name}: is required and must be non-empty text`);
  }
  return value;
}

export function optionalText(name: string, value: unknown): string | null {
  if (value === undefined || value === null) {
    return null;
  }
  if (typeof value !== 'string') {
    throw invalid(`${name}: must be text`);
  }
  return value;
}

/**
 * The path (`.a[2].b`) of a number in a value that is not finite, or undefined. A JSON number beyond ±1.8e308
 * (`1e999999`) parses as Infinity, and YAML has `.inf` and `.nan`; PostgreSQL's jsonb can hold none of them, and
 * JSON.stringify would silently store null, so such a value is refused where it arrives. Iterative, so depth is bounded
 * by the body parser's limit alone.
 */
export function nonFiniteNumberPath(value: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, path] = next;
    if (typeof current === 'number' && !Number.isFinite(current)) {
      return path;
    }
    if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push([item, `${path}[${index}]`]));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        pending.push([child, /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${path}.${key}` : `${path}[${excerpt(key)}]`]);
      }
    }
  }
  return undefined;
}

/** Refuses a value holding a number that is not finite, naming where it is (`name` empty: the path alone). */
export function assertFiniteNumbers(name: string, value: unknown): void {
  const path = nonFiniteNumberPath(value);
  if (path !== undefined) {
    throw invalid(
      `${`${name}${path}`.replace(/^\./, '') || 'body'}: must be a finite number; a JSON number beyond ±1.8e308 (such as 1e999999), .inf or .nan ` +
        'cannot be stored',
    );
  }
}
