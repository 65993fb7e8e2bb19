import { DomainError } from '../errors';
import type { JsonObject } from '../model';

/**
 * Observation of deployed elements: what a participant's `observe` hook found (present or gone, healthy or not,
 * the properties it sees) against what was ordered. Health and drift per element are derived here, purely; the shell
 * stores them and records HEALTH_CHANGED and DRIFTED when they change.
 */

/** An element's health: Unknown until a participant reports an observation (ONAP's participants never do). */
export const HEALTH_STATES = ['Healthy', 'Degraded', 'Missing', 'Unknown'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/** How bad a health state is: an instance shows its worst element's state. */
const SEVERITY: Readonly<Record<HealthState, number>> = { Healthy: 0, Unknown: 1, Degraded: 2, Missing: 3 };

/** What a participant's `observe` hook reported for one element (the STATUS element info's `observation`). */
export interface ElementObservation {
  readonly present: boolean;
  readonly healthy: boolean;
  readonly reason?: string | null;
  /** The element's properties as the participant sees them; absent: the participant does not compare properties. */
  readonly properties?: JsonObject;
}

export interface ElementHealth {
  readonly state: HealthState;
  readonly reason: string | null;
  /** Epoch milliseconds of the change into this state. */
  readonly since: number;
}

/** What the runtime keeps per observed element. */
export interface ObservedElement {
  readonly health: ElementHealth;
  /** JSON pointers of the desired properties that differ from the observed ones, sorted; empty: no drift. */
  readonly drift: readonly string[];
}

/** `drift` per definition (node template metadata) or instance (metadata): what a drift does. */
export const DRIFT_MODES = ['off', 'warn', 'correct'] as const;
export type DriftMode = (typeof DRIFT_MODES)[number];

/** The metadata fields that set observation, on a node template (or an instance's metadata for `drift`). */
export const OBSERVE_INTERVAL_FIELD = 'observe_interval';
/** Node template (or instance) metadata: the most heals of one element within an hour. */
export const HEAL_MAX_PER_HOUR_FIELD = 'heal_max_per_hour';
export const DRIFT_IGNORE_FIELD = 'drift_ignore';
export const DRIFT_MODE_FIELD = 'drift';

/** Seconds: the default interval of a participant's own observe schedule, and the shortest one accepted. */
export const DEFAULT_OBSERVE_INTERVAL_SECONDS = 60;
export const OBSERVE_INTERVAL_FLOOR_SECONDS = 5;

/** The drift mode when none is set: ONAP's behaviour, nothing compared. */
export const DEFAULT_DRIFT_MODE: DriftMode = 'off';

/**
 * The reference tokens of an RFC 6901 JSON pointer (`/a/b~1c` → ["a", "b/c"]), or null when it does not parse:
 * not empty-or-starting-with-slash, or a `~` not followed by 0 or 1.
 */
export function parseJsonPointer(pointer: string): string[] | null {
  if (pointer === '') {
    return [];
  }
  if (!pointer.startsWith('/')) {
    return null;
  }
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) {
      return null;
    }
    tokens.push(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return tokens;
}

function pointerOf(tokens: readonly string[]): string {
  return tokens.map((token) => `/${token.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** True when `tokens` is `prefix` or lies under it. */
function under(tokens: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= tokens.length && prefix.every((token, index) => tokens[index] === token);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) {
    return true;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameJson(a[key], b[key]));
  }
  return false;
}

/**
 * The desired properties that differ from the observed ones, as sorted JSON pointers: each member of `desired` is
 * compared (objects member by member, anything else as a whole); a member the participant does not observe differs;
 * members only observed are the participant's own and not drift. A pointer of `ignore` hides itself and what lies under.
 */
export function driftOf(desired: JsonObject, observed: JsonObject, ignore: readonly (readonly string[])[]): string[] {
  const found: string[] = [];
  const walk = (want: JsonObject, have: unknown, path: readonly string[]): void => {
    for (const [key, value] of Object.entries(want)) {
      const at = [...path, key];
      if (ignore.some((prefix) => under(at, prefix))) {
        continue;
      }
      const seen = isObject(have) ? have[key] : undefined;
      if (isObject(value) && isObject(seen)) {
        walk(value, seen, at);
      } else if (!sameJson(value, seen)) {
        found.push(pointerOf(at));
      }
    }
  };
  walk(desired, observed, []);
  return found.sort();
}

/** The health an observation says, with its reason. */
export function healthOfObservation(observation: ElementObservation): { state: HealthState; reason: string | null } {
  const reason = observation.reason ?? null;
  if (!observation.present) {
    return { state: 'Missing', reason: reason ?? 'the participant does not find the element' };
  }
  return observation.healthy ? { state: 'Healthy', reason } : { state: 'Degraded', reason: reason ?? 'unhealthy' };
}

/** The observation settings of one element, read from its node template's metadata and its instance's. */
export interface ObservationSettings {
  readonly driftMode: DriftMode;
  readonly ignore: readonly (readonly string[])[];
}

/** One change of an observed element, as history records it. */
export type ObservationChange =
  | {
      readonly event: 'HEALTH_CHANGED';
      readonly detail: {
        readonly elementId: string;
        readonly health: HealthState;
        readonly previous: HealthState;
        readonly reason: string | null;
      };
    }
  | {
      readonly event: 'DRIFTED';
      readonly detail: {
        readonly elementId: string;
        readonly paths: readonly string[];
        readonly previous: readonly string[];
        readonly mode: DriftMode;
      };
    };

/** What one observation changes: the element's next state (null: nothing changed, nothing to write) and the events. */
export interface ObservationDecision {
  readonly next: ObservedElement | null;
  readonly changes: readonly ObservationChange[];
}

/** The state of an element never observed. */
export function unobserved(since: number): ObservedElement {
  return { health: { state: 'Unknown', reason: null, since }, drift: [] };
}

/**
 * Applies one observation of an element to what is known of it (`previous`, null if never observed). Health changes
 * on a new state or a new reason (`since` moves only with the state); drift is compared only with `warn` or `correct`,
 * on a present element that reports its properties. Nothing changed: `next` is null, so the shell writes nothing.
 */
export function decideObservation(
  elementId: string,
  previous: ObservedElement | null,
  observation: ElementObservation,
  desired: JsonObject,
  settings: ObservationSettings,
  now: number,
): ObservationDecision {
  const before = previous ?? unobserved(now);
  const { state, reason } = healthOfObservation(observation);
  const health: ElementHealth =
    state === before.health.state ? { state, reason, since: before.health.since } : { state, reason, since: now };
  const compares = settings.driftMode !== 'off' && observation.present && observation.properties !== undefined;
  // Not compared this time (a gone element, or no properties observed): the drift known stays; with drift off, none.
  const drift = compares
    ? driftOf(desired, observation.properties ?? {}, settings.ignore)
    : settings.driftMode === 'off'
      ? []
      : before.drift;
  const changes: ObservationChange[] = [];
  if (state !== before.health.state) {
    changes.push({
      event: 'HEALTH_CHANGED',
      detail: { elementId, health: state, previous: before.health.state, reason },
    });
  }
  if (!sameJson(drift, before.drift)) {
    changes.push({
      event: 'DRIFTED',
      detail: { elementId, paths: drift, previous: before.drift, mode: settings.driftMode },
    });
  }
  const unchanged = previous !== null && changes.length === 0 && reason === before.health.reason;
  return { next: unchanged ? null : { health, drift }, changes };
}

/** The worst health of an instance's observed elements (Unknown when none is observed). */
export function worstHealth(states: readonly HealthState[]): HealthState {
  return states.reduce<HealthState>(
    (worst, state) => (SEVERITY[state] > SEVERITY[worst] ? state : worst),
    states.length === 0 ? 'Unknown' : 'Healthy',
  );
}

/**
 * The elements a healing operation would re-apply: Missing, or drifted, and under `correct`. The seam for healing:
 * it needs no more than what the observations say.
 */
export function elementsToHeal(
  observed: Readonly<Record<string, ObservedElement>>,
  modeOf: (elementId: string) => DriftMode,
): string[] {
  return Object.entries(observed)
    .filter(
      ([id, element]) => modeOf(id) === 'correct' && (element.health.state === 'Missing' || element.drift.length > 0),
    )
    .map(([id]) => id)
    .sort();
}

// ---- Settings from metadata ----

/** The `metadata` of a node template of a service template; null when it has none. */
export function metadataOfTemplate(serviceTemplate: JsonObject, templateName: string): JsonObject | null {
  const topology = serviceTemplate['topology_template'];
  const templates = isObject(topology) ? topology['node_templates'] : undefined;
  const template = isObject(templates) ? templates[templateName] : undefined;
  const metadata = isObject(template) ? template['metadata'] : undefined;
  return isObject(metadata) ? metadata : null;
}

/** One problem of the observation metadata of a service template: the field (path) and the rule it breaks. */
export interface ObservationProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * The problems of every node template's observation metadata (`observe_interval`, `drift`, `drift_ignore`,
 * `heal_max_per_hour`), each
 * naming its field; empty when all are absent or valid. Commissioning refuses a template with any.
 */
export function observationProblems(serviceTemplate: JsonObject): ObservationProblem[] {
  const topology = serviceTemplate['topology_template'];
  const templates = isObject(topology) ? topology['node_templates'] : undefined;
  if (!isObject(templates)) {
    return [];
  }
  const problems: ObservationProblem[] = [];
  for (const name of Object.keys(templates)) {
    const metadata = metadataOfTemplate(serviceTemplate, name);
    if (metadata === null) {
      continue;
    }
    const at = `topology_template.node_templates.${name}.metadata`;
    const interval = metadata[OBSERVE_INTERVAL_FIELD];
    if (interval !== undefined && !(typeof interval === 'number' && interval >= OBSERVE_INTERVAL_FLOOR_SECONDS)) {
      problems.push({
        path: `${at}.${OBSERVE_INTERVAL_FIELD}`,
        message: `must be a number of seconds, at least ${OBSERVE_INTERVAL_FLOOR_SECONDS}, got ${JSON.stringify(interval)}`,
      });
    }
    const healMax = metadata[HEAL_MAX_PER_HOUR_FIELD];
    if (healMax !== undefined && !(typeof healMax === 'number' && Number.isInteger(healMax) && healMax >= 0)) {
      problems.push({
        path: `${at}.${HEAL_MAX_PER_HOUR_FIELD}`,
        message: `must be a whole number of heals, at least 0, got ${JSON.stringify(healMax)}`,
      });
    }
    const mode = metadata[DRIFT_MODE_FIELD];
    const modeProblem = driftModeProblem(mode);
    if (modeProblem !== null) {
      problems.push({ path: `${at}.${DRIFT_MODE_FIELD}`, message: modeProblem });
    }
    const ignore = metadata[DRIFT_IGNORE_FIELD];
    if (ignore === undefined) {
      continue;
    }
    if (!Array.isArray(ignore)) {
      problems.push({ path: `${at}.${DRIFT_IGNORE_FIELD}`, message: 'must be a list of JSON pointers' });
      continue;
    }
    ignore.forEach((pointer: unknown, index) => {
      if (typeof pointer !== 'string' || parseJsonPointer(pointer) === null) {
        problems.push({
          path: `${at}.${DRIFT_IGNORE_FIELD}[${index}]`,
          message: `must be a JSON pointer (RFC 6901, e.g. "/replicas"), got ${JSON.stringify(pointer)}`,
        });
      }
    });
  }
  return problems;
}

/** Refuses (VALIDATION_FAILED, 400) a service template whose observation metadata has problems, naming each field. */
export function assertObservationSettings(serviceTemplate: JsonObject): void {
  const problems = observationProblems(serviceTemplate);
  if (problems.length > 0) {
    throw new DomainError(
      'VALIDATION_FAILED',
      problems.map((problem) => `${problem.path}: ${problem.message}`).join('\n'),
      { problems },
    );
  }
}

/** Why a `drift` value is refused, or null when absent or one of off, warn, correct. */
export function driftModeProblem(value: unknown): string | null {
  return value === undefined || value === null || (DRIFT_MODES as readonly unknown[]).includes(value)
    ? null
    : `must be one of ${DRIFT_MODES.join(', ')}, got ${JSON.stringify(value)}`;
}

function driftModeOf(value: unknown): DriftMode | null {
  return driftModeProblem(value) === null && typeof value === 'string' ? (value as DriftMode) : null;
}

/**
 * The observation settings of an element: the instance's `drift` over its node template's over the default (`off`);
 * the ignore pointers of its node template (ones that do not parse were refused at commission, and are skipped).
 */
export function observationSettingsOf(
  serviceTemplate: JsonObject,
  templateName: string,
  instanceMetadata: JsonObject | null,
): ObservationSettings {
  const metadata = metadataOfTemplate(serviceTemplate, templateName);
  const driftMode =
    driftModeOf(instanceMetadata?.[DRIFT_MODE_FIELD]) ??
    driftModeOf(metadata?.[DRIFT_MODE_FIELD]) ??
    DEFAULT_DRIFT_MODE;
  const declared = metadata?.[DRIFT_IGNORE_FIELD];
  const ignore = (Array.isArray(declared) ? declared : [])
    .map((pointer: unknown) => (typeof pointer === 'string' ? parseJsonPointer(pointer) : null))
    .filter((tokens): tokens is string[] => tokens !== null);
  return { driftMode, ignore };
}

/** The interval (seconds) of a participant's own observe schedule for a node template: its metadata or the default. */
export function observeIntervalOf(metadata: JsonObject | null | undefined): number {
  const value = metadata?.[OBSERVE_INTERVAL_FIELD];
  return typeof value === 'number' && value >= OBSERVE_INTERVAL_FLOOR_SECONDS
    ? value
    : DEFAULT_OBSERVE_INTERVAL_SECONDS;
}
