import { excerpt } from '@acm/input-guards';
import { describeKind, isMapping } from './guards';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import type { ElementStage } from './service-template';

/** A value read from the document, with the problems found while reading it (the value is then a default). */
export interface Checked<T> {
  value: T;
  problems: ToscaProblem[];
}

/** Stage set ONAP assumes for an operation an element does not list. */
const DEFAULT_STAGES: readonly number[] = [0];

/**
 * ONAP reads counters with `Integer.valueOf(value.toString())`, so `1` and `"1"` both work there; we accept the same
 * spellings and nothing else (no floats like 1.5, no negatives).
 */
export function asNonNegativeInteger(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
    return value;
  }
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) {
    return Number(value);
  }
  return undefined;
}

/** Deploy order of an element: elements start in ascending `startPhase` and stop in descending order. */
export function readStartPhase(properties: Record<string, unknown>, path: readonly PathSegment[]): Checked<number> {
  const raw = properties['startPhase'];
  if (raw === undefined || raw === null) {
    return { value: 0, problems: [] };
  }
  const value = asNonNegativeInteger(raw);
  if (value !== undefined) {
    return { value, problems: [] };
  }
  const message = `startPhase must be a non-negative integer, got ${excerpt(raw)}`;
  return { value: 0, problems: [problem([...path, 'startPhase'], 'start-phase', message)] };
}

/**
 * Prepare/migrate order of an element. Current ONAP templates write a map `{prepare: [..], migrate: [..]}`; older
 * ones a plain list, which ONAP reads as the migrate stages. Missing operations default to stage 0.
 */
export function readStage(properties: Record<string, unknown>, path: readonly PathSegment[]): Checked<ElementStage> {
  const raw = properties['stage'];
  const stagePath = [...path, 'stage'];
  if (raw === undefined || raw === null) {
    return { value: { prepare: [...DEFAULT_STAGES], migrate: [...DEFAULT_STAGES] }, problems: [] };
  }
  if (Array.isArray(raw)) {
    const migrate = readStageList(raw, stagePath);
    return { value: { prepare: [...DEFAULT_STAGES], migrate: migrate.value }, problems: migrate.problems };
  }
  if (!isMapping(raw)) {
    const message = `stage must be a map {prepare: [..], migrate: [..]} or a list of stages, got ${describeKind(raw)}`;
    return {
      value: { prepare: [...DEFAULT_STAGES], migrate: [...DEFAULT_STAGES] },
      problems: [problem(stagePath, 'stage', message)],
    };
  }
  const prepare = readOperationStages(raw, 'prepare', stagePath);
  const migrate = readOperationStages(raw, 'migrate', stagePath);
  return {
    value: { prepare: prepare.value, migrate: migrate.value },
    problems: [...prepare.problems, ...migrate.problems],
  };
}

function readOperationStages(
  stage: Record<string, unknown>,
  operation: 'prepare' | 'migrate',
  path: readonly PathSegment[],
): Checked<number[]> {
  const raw = stage[operation];
  if (raw === undefined || raw === null) {
    return { value: [...DEFAULT_STAGES], problems: [] };
  }
  if (!Array.isArray(raw)) {
    const message = `stage.${operation} must be a list of non-negative integers, got ${describeKind(raw)}`;
    return { value: [...DEFAULT_STAGES], problems: [problem([...path, operation], 'stage', message)] };
  }
  return readStageList(raw, [...path, operation]);
}

/** Stages form a set: duplicates collapse and the result is sorted, which is how the scanners walk them. */
function readStageList(list: readonly unknown[], path: readonly PathSegment[]): Checked<number[]> {
  if (list.length === 0) {
    return { value: [...DEFAULT_STAGES], problems: [problem(path, 'stage', 'stage list must not be empty')] };
  }
  const problems: ToscaProblem[] = [];
  const stages = new Set<number>();
  list.forEach((item, position) => {
    const stage = asNonNegativeInteger(item);
    if (stage === undefined) {
      const message = `stage must be a non-negative integer, got ${excerpt(item)}`;
      problems.push(problem([...path, position], 'stage', message));
    } else {
      stages.add(stage);
    }
  });
  return { value: [...stages].sort((a, b) => a - b), problems };
}

/**
 * Names of the element node templates this element depends on (an extension of this runtime: ONAP orders only by
 * phase/stage). Whether the names exist is checked later, against the whole template.
 */
export function readDependsOn(properties: Record<string, unknown>, path: readonly PathSegment[]): Checked<string[]> {
  const raw = properties['dependsOn'];
  const dependsOnPath = [...path, 'dependsOn'];
  if (raw === undefined || raw === null) {
    return { value: [], problems: [] };
  }
  if (!Array.isArray(raw)) {
    const message = `dependsOn must be a list of element node template names, got ${describeKind(raw)}`;
    return { value: [], problems: [problem(dependsOnPath, 'depends-on', message)] };
  }
  const problems: ToscaProblem[] = [];
  const names: string[] = [];
  raw.forEach((item: unknown, position) => {
    if (typeof item !== 'string' || item === '') {
      const message = `dependsOn entries must be element node template names, got ${excerpt(item)}`;
      problems.push(problem([...dependsOnPath, position], 'depends-on', message));
    } else if (!names.includes(item)) {
      names.push(item);
    }
  });
  return { value: names, problems };
}
