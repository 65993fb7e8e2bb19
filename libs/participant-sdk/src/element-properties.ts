/**
 * Reading an element's node-template properties the way ONAP's intermediary does: the definition key,
 * the start phase, the migrate/prepare stages and their order, and the deep copies the cache hands out.
 */
import type { PropertyMap, ToscaConceptIdentifier } from '@acm/contracts';

/**
 * ONAP's CompositionDto key for an element definition: `"<name> <version>"`.
 *
 * @publicApi Prime handlers key their `outProperties` result with it.
 */
export function definitionKey(definition: ToscaConceptIdentifier): string {
  return `${definition.name} ${definition.version}`;
}

/** Parses a `"<name> <version>"` key (the version is the last space-separated word). */
export function parseDefinitionKey(key: string): ToscaConceptIdentifier {
  const space = key.lastIndexOf(' ');
  return space < 0 ? { name: key, version: '' } : { name: key.slice(0, space), version: key.slice(space + 1) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Returned by {@link plainCopy} for what only structuredClone copies faithfully. */
const NOT_PLAIN: unique symbol = Symbol('not plain');

/** Deeper than this is left to structuredClone, which also copies cycles. */
const PLAIN_DEPTH = 64;

/**
 * A copy of plain data (primitives, dense arrays, objects with the default or no prototype), or NOT_PLAIN. What
 * it returns equals structuredClone's copy, made without its serialisation: an element runs several copies per
 * order, nearly all of small property maps, where structuredClone's fixed cost dominated.
 */
function plainCopy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol' ? NOT_PLAIN : value;
  }
  if (depth > PLAIN_DEPTH) {
    return NOT_PLAIN;
  }
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) {
      return NOT_PLAIN;
    }
    const items: unknown[] = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index += 1) {
      if (!(index in value)) {
        return NOT_PLAIN;
      }
      const item = plainCopy(value[index], depth + 1);
      if (item === NOT_PLAIN) {
        return NOT_PLAIN;
      }
      items[index] = item;
    }
    return items;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    return NOT_PLAIN;
  }
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = plainCopy((value as Record<string, unknown>)[key], depth + 1);
    // `__proto__` as an own key (JSON.parse makes one) would set the copy's prototype instead.
    if (member === NOT_PLAIN || key === '__proto__') {
      return NOT_PLAIN;
    }
    result[key] = member;
  }
  return result;
}

/** A deep copy, as structuredClone makes it (which keeps Dates, Maps and cycles; plain data takes a faster path). */
export function copy<T>(value: T): T {
  const plain = plainCopy(value, 0);
  return plain === NOT_PLAIN ? structuredClone(value) : (plain as T);
}

/**
 * The node template's `startPhase` (integer ≥ 0), 0 when absent or malformed, like ONAP.
 *
 * @publicApi The rule the SDK filters phases with, for authors who need it too.
 */
export function startPhaseOf(inProperties: PropertyMap): number {
  const value = inProperties['startPhase'];
  const phase = typeof value === 'string' ? Number(value) : value;
  return typeof phase === 'number' && Number.isInteger(phase) && phase >= 0 ? phase : 0;
}

/**
 * @publicApi The rule the SDK filters stages with, for authors who need it too.
 *
 * The stages an element runs in for `kind` (node-template `stage`: a map `{prepare: [..], migrate: [..]}`
 * or a plain list meaning the migrate stages; absent ⇒ `[0]`), sorted ascending without duplicates.
 */
export function stagesOf(inProperties: PropertyMap, kind: 'prepare' | 'migrate'): number[] {
  const stage = inProperties['stage'];
  const raw: unknown = Array.isArray(stage)
    ? kind === 'migrate'
      ? stage
      : undefined
    : isObject(stage)
      ? stage[kind]
      : undefined;
  const stages = Array.isArray(raw)
    ? raw.filter((item): item is number => typeof item === 'number' && Number.isInteger(item) && item >= 0)
    : [];
  return stages.length === 0 ? [0] : [...new Set(stages)].sort((a, b) => a - b);
}

/**
 * The smallest stage of `stages` after `current`, or `current` when none follows (ONAP's getXxxNextStage).
 *
 * @publicApi Companion of {@link stagesOf}.
 */
export function nextStageOf(stages: readonly number[], current: number): number {
  return stages.find((stage) => stage > current) ?? current;
}

/**
 * The largest stage of `stages` before `current`, or `current` when none precedes: a migration rollback
 * walks the stages downwards (ONAP's getRollbackNextStage).
 *
 * @publicApi Companion of {@link stagesOf}.
 */
export function previousStageOf(stages: readonly number[], current: number): number {
  return [...stages].reverse().find((stage) => stage < current) ?? current;
}
