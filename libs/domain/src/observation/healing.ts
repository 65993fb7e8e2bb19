import type { JsonObject } from '../model';
import type { DeployState, LockState, SubState } from '../states';
import type { DependsOnOf } from '../planners/dependency-planner';
import { HEAL_MAX_PER_HOUR_FIELD } from './observation';
import type { DriftMode, ObservedElement } from './observation';

/**
 * Self-healing: whether the runtime re-applies the Missing or drifted elements of an instance under `drift: correct`
 * now, and which; or why not. Pure: the clock, the past heals and the instance's state are arguments.
 */

export const DEFAULT_HEAL_MAX_PER_HOUR = 3;
/** The window the rate limit counts heals in. */
export const HEAL_WINDOW_MS = 3_600_000;

/** Why nothing is healed now. */
export const HEAL_WAITS = ['NOTHING_TO_HEAL', 'NOT_DEPLOYED', 'OPERATION_RUNNING', 'UNLOCKED'] as const;
export type HealWait = (typeof HEAL_WAITS)[number];

/** The instance as the decision needs it. */
export interface HealInstance {
  readonly deployState: DeployState;
  readonly lockState: LockState;
  readonly subState: SubState;
  /** An operation (any order, a heal too) runs on the instance. */
  readonly operationRunning: boolean;
}

/** One observed element of the instance, with its settings and its healing past. */
export interface HealCandidate {
  readonly elementId: string;
  readonly observed: ObservedElement;
  readonly mode: DriftMode;
  readonly maxPerHour: number;
  /** Epoch milliseconds at which heals of this element started (older ones may be left out). */
  readonly healedAt: readonly number[];
  /** Epoch milliseconds of the last "healing stopped" notice of this element; null: never. */
  readonly stoppedAt: number | null;
}

/** An element whose rate limit is reached and whose stop was not yet told: the history records HEALING_STOPPED. */
export interface HealingStopped {
  readonly elementId: string;
  readonly heals: number;
  readonly maxPerHour: number;
}

export interface HealDecision {
  /** The elements to re-apply now, sorted (their dependents are added by `withDependents`); empty: none. */
  readonly heal: readonly string[];
  /** Why nothing is healed now; null when `heal` is not empty. */
  readonly wait: HealWait | null;
  /** The elements to heal that the rate limit holds back, to be told once per run of heals. */
  readonly stopped: readonly HealingStopped[];
}

/** True when an element needs healing: under `correct`, and Missing or drifted. */
export function needsHealing(candidate: Pick<HealCandidate, 'mode' | 'observed'>): boolean {
  return (
    candidate.mode === 'correct' &&
    (candidate.observed.health.state === 'Missing' || candidate.observed.drift.length > 0)
  );
}

/** The heals of an element within the hour before `now`. */
export function healsWithinHour(healedAt: readonly number[], now: number): number {
  return healedAt.filter((at) => at > now - HEAL_WINDOW_MS && at <= now).length;
}

/**
 * Decides a heal of an instance at `now`. Only a DEPLOYED instance with no sub-state and no running operation is
 * healed, and only in ONAP's steady lock state, LOCKED: an UNLOCKED instance's elements are in the operator's hands
 * (and a heal, a deploy, would lock them again). Each element needing healing is healed unless it was
 * healed `maxPerHour` times within the hour: then it is held back, and told once (`stopped`) until it is healed again.
 * The rate limit is told even while the instance waits, so a flapping element is reported whatever else runs.
 */
export function decideHeal(instance: HealInstance, candidates: readonly HealCandidate[], now: number): HealDecision {
  const needing = candidates.filter(needsHealing);
  const allowed = needing.filter((candidate) => healsWithinHour(candidate.healedAt, now) < candidate.maxPerHour);
  const stopped = needing
    .filter((candidate) => !allowed.includes(candidate))
    .filter((candidate) => candidate.stoppedAt === null || candidate.stoppedAt < Math.max(...candidate.healedAt))
    .map((candidate) => ({
      elementId: candidate.elementId,
      heals: healsWithinHour(candidate.healedAt, now),
      maxPerHour: candidate.maxPerHour,
    }))
    .sort((a, b) => a.elementId.localeCompare(b.elementId));
  const wait = waitOf(instance, allowed.length);
  return {
    heal: wait === null ? allowed.map((candidate) => candidate.elementId).sort() : [],
    wait,
    stopped,
  };
}

function waitOf(instance: HealInstance, toHeal: number): HealWait | null {
  if (toHeal === 0) {
    return 'NOTHING_TO_HEAL';
  }
  if (instance.deployState !== 'DEPLOYED' || instance.subState !== 'NONE') {
    return 'NOT_DEPLOYED';
  }
  if (instance.operationRunning || instance.lockState === 'LOCKING' || instance.lockState === 'UNLOCKING') {
    return 'OPERATION_RUNNING';
  }
  if (instance.lockState !== 'LOCKED') {
    return 'UNLOCKED';
  }
  return null;
}

/**
 * The elements a heal re-applies: the given ones and every element whose node template depends on one of theirs,
 * directly or through others (`dependsOn`), sorted. The engine orders them as a deploy does.
 */
export function withDependents(
  elementIds: readonly string[],
  templateOf: Readonly<Record<string, string>>,
  dependsOnOf: DependsOnOf,
): string[] {
  const chosen = new Set(elementIds.filter((id) => templateOf[id] !== undefined));
  let grew = true;
  while (grew) {
    grew = false;
    const chosenTemplates = new Set([...chosen].map((id) => templateOf[id]));
    for (const [id, template] of Object.entries(templateOf)) {
      if (!chosen.has(id) && dependsOnOf(template).some((name) => chosenTemplates.has(name))) {
        chosen.add(id);
        grew = true;
      }
    }
  }
  return [...chosen].sort();
}

/** `heal_max_per_hour` of metadata when it is a whole number of at least 0 (commissioning refuses others), else the default. */
export function healMaxPerHourOf(metadata: JsonObject | null | undefined): number {
  const value = metadata?.[HEAL_MAX_PER_HOUR_FIELD];
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : DEFAULT_HEAL_MAX_PER_HOUR;
}
