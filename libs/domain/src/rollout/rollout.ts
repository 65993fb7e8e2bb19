import { DomainError } from '../errors';
import type { Refusal } from '../refusal';
import { refusal } from '../refusal';
import { DEPLOY_STATES, STATE_CHANGE_RESULTS } from '../states';
import type { DeployState, StateChangeResult } from '../states';
import type { HealthState } from '../observation/observation';
import { metadataHolds, parseMetadataValues } from '../instance/metadata-filter';

/**
 * A rollout: one order given to many instances of a fleet, in batches. These are its rules, pure: what a request
 * may ask, how the selection splits into batches, and what happens when an instance's operation ends or an operator
 * pauses, resumes or cancels. A batch is judged only on the operations the rollout itself started (their outcomes
 * arrive as OPERATION_ENDED), never on a status read.
 */

export const ROLLOUT_ORDERS = ['DEPLOY', 'UNDEPLOY', 'LOCK', 'UNLOCK', 'UPDATE', 'MIGRATE'] as const;
export type RolloutOrder = (typeof ROLLOUT_ORDERS)[number];

export const ROLLOUT_STATES = [
  'RUNNING',
  'PAUSED',
  'WAITING_PROMOTION',
  'ROLLING_BACK',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];

export const ROLLOUT_INSTANCE_STATES = [
  'PENDING',
  'ORDERED',
  'DONE',
  'FAILED',
  'REFUSED',
  'ROLLING_BACK',
  'ROLLED_BACK',
  'ROLLBACK_FAILED',
  'UNHEALTHY',
] as const;
export type RolloutInstanceState = (typeof ROLLOUT_INSTANCE_STATES)[number];

export const ROLLOUT_ON_FAILURE = ['pause', 'continue', 'rollback'] as const;
export type RolloutOnFailure = (typeof ROLLOUT_ON_FAILURE)[number];

/** The order that undoes each order (UPDATE and MIGRATE undo themselves with the body saved before them). */
export const ROLLBACK_ORDERS: Readonly<Record<RolloutOrder, RolloutOrder>> = {
  DEPLOY: 'UNDEPLOY',
  UNDEPLOY: 'DEPLOY',
  LOCK: 'UNLOCK',
  UNLOCK: 'LOCK',
  UPDATE: 'UPDATE',
  MIGRATE: 'MIGRATE',
};

/** A batch size as a count of instances or a percentage of the selection (at least one instance a batch). */
export type BatchSize =
  { readonly kind: 'count'; readonly count: number } | { readonly kind: 'percent'; readonly percent: number };

/** Failures allowed: a count, or a percentage of the instances counted (a batch's, or the whole selection's). */
export type FailureThreshold =
  { readonly kind: 'count'; readonly count: number } | { readonly kind: 'percent'; readonly percent: number };

export interface RolloutStrategy {
  readonly batchSize: BatchSize;
  /** Instances with an operation in flight at once, over the rollout; null: the whole batch at once. */
  readonly maxInFlight: number | null;
  /** Failures a batch may have; one more and the batch fails (onFailure says what then). */
  readonly failureThreshold: FailureThreshold;
  /** Failures the whole rollout may have; one more and it stops (onFailure pause or rollback; continue: FAILED). */
  readonly totalFailureThreshold: FailureThreshold | null;
  readonly onFailure: RolloutOnFailure;
  /** With onFailure rollback: also roll back the batches that succeeded, newest first. */
  readonly rollbackAll: boolean;
  /** Instances of a first batch that waits for PROMOTE once it succeeded; null: no canary. */
  readonly canary: number | null;
  /** Milliseconds between the end of a batch and the start of the next. */
  readonly pauseBetweenBatches: number;
  /** A metadata key grouping the instances into batches; the groups run in batchOrder. */
  readonly batchBy: string | null;
  readonly batchOrder: readonly string[];
  /** Start without the selected instances that would refuse the order (listed in `refused`). */
  readonly skipRefused: boolean;
  /**
   * Seconds a batch whose instances all ended stays baking before the next starts (or the rollout ends): an instance
   * that turns unhealthy meanwhile counts as a failure of the batch. 0: no bake.
   */
  readonly bakeTime: number;
}

/** UPDATE's patch: by element definition name, the properties merged into each such element's current ones. */
export type PropertyPatch = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * The filters of `GET /v2/instances` (and metadata values) narrowing the selection; every filter given must hold.
 * Resolved once, at creation, with the rest of the selection.
 */
export interface RolloutFilter {
  readonly participantId: string | null;
  readonly deployStates: readonly DeployState[];
  readonly stateChangeResults: readonly StateChangeResult[];
  /** Each key's value in the instance's metadata (compared as text). */
  readonly metadata: Readonly<Record<string, string>>;
}

/** What a client asks for, validated; the selection is resolved to instance ids by the application. */
export interface RolloutRequest {
  readonly order: RolloutOrder;
  readonly compositionId: string;
  /** The instances to order, in the order given; null selects every instance of the composition. */
  readonly instanceIds: readonly string[] | null;
  /** Narrows the selection (of instanceIds, or of the composition); null: no filter. */
  readonly filter: RolloutFilter | null;
  /** MIGRATE's target composition; null for the other orders. */
  readonly compositionTargetId: string | null;
  /** UPDATE's property patch; null for the other orders. */
  readonly patch: PropertyPatch | null;
  readonly strategy: RolloutStrategy;
}

function parseStates<T extends string>(field: string, known: readonly T[], value: unknown): T[] {
  if (value === undefined || value === null) {
    return [];
  }
  if (!Array.isArray(value)) {
    throw invalid(`${field}: must be a list, each one of ${known.join(', ')}`);
  }
  return value.map((item: unknown, index) => {
    if (!(known as readonly unknown[]).includes(item)) {
      throw invalid(`${field}[${index}]: must be one of ${known.join(', ')}, got ${JSON.stringify(item)}`);
    }
    return item as T;
  });
}

/** Reads the selection filter: the filters of GET /v2/instances, and metadata values. */
export function parseRolloutFilter(value: unknown): RolloutFilter | null {
  if (value === undefined || value === null) {
    return null;
  }
  if (!isRecord(value)) {
    throw invalid('filter: must be an object of participantId, deployStates, stateChangeResults and/or metadata');
  }
  const participantId = value['participantId'] ?? null;
  if (participantId !== null && (typeof participantId !== 'string' || !UUID.test(participantId))) {
    throw invalid(`filter.participantId: must be a uuid, got ${JSON.stringify(participantId)}`);
  }
  const metadata = parseMetadataValues('filter.metadata', value['metadata'] ?? {});
  return {
    participantId: participantId === null ? null : participantId.toLowerCase(),
    deployStates: parseStates('filter.deployStates', DEPLOY_STATES, value['deployStates']),
    stateChangeResults: parseStates('filter.stateChangeResults', STATE_CHANGE_RESULTS, value['stateChangeResults']),
    metadata,
  };
}

/** Whether an instance's metadata has every value the filter asks for. */
export function metadataMatches(
  filter: RolloutFilter | null,
  metadata: Readonly<Record<string, unknown>> | null,
): boolean {
  return metadataHolds(filter?.metadata ?? {}, metadata);
}

/** One selected instance as the application resolved it: its metadata and why it would refuse the order. */
export interface SelectedInstance {
  readonly instanceId: string;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  /** Why the instance's state refuses the order now; null when it allows it. */
  readonly refusal: string | null;
}

export interface RefusedInstance {
  readonly instanceId: string;
  readonly reason: string;
}

export interface RolloutInstance {
  readonly instanceId: string;
  /** The batch the instance belongs to, from 0. */
  readonly batch: number;
  readonly state: RolloutInstanceState;
  /** Why the instance failed, was refused, turned unhealthy or its rollback failed; null otherwise. */
  readonly reason: string | null;
  /** When the rollout recorded its operation DONE (epoch ms); health reported before it is stale for the bake. */
  readonly doneAt?: number;
  /** Why it turned unhealthy during its batch's bake; kept when it is rolled back (the history names it). */
  readonly unhealthyReason?: string;
}

export interface Rollout {
  readonly rolloutId: string;
  readonly order: RolloutOrder;
  readonly compositionId: string;
  readonly compositionTargetId: string | null;
  readonly patch: PropertyPatch | null;
  readonly strategy: RolloutStrategy;
  readonly state: RolloutState;
  /** The batch started last (from 0); batches after it have not started. */
  readonly currentBatch: number;
  readonly batchCount: number;
  /** The batches whose failures went over the threshold. */
  readonly failedBatches: readonly number[];
  /** Batches whose failures a RESUME accepted, and the rollout's failures at the last such RESUME. */
  readonly waivedBatches: readonly number[];
  readonly waivedFailures: number;
  /** The canary batch was promoted. */
  readonly promoted: boolean;
  /** When the next batch may start (epoch ms, the inputs' time); null when no pause between batches runs. */
  readonly nextBatchAt: number | null;
  /** While the current batch bakes: when its bake ends (epoch ms, the inputs' time); null otherwise. */
  readonly bakingUntil: number | null;
  /** The last batch whose bake ended healthy: it never bakes again (after a pause between batches or a promote). */
  readonly bakedBatch: number | null;
  /** While ROLLING_BACK: the batches still to roll back, in the order they are rolled back. */
  readonly rollbackBatches: readonly number[];
  /** The next batch is held by maintenance windows: which, and until when; null while no window holds it. */
  readonly windowWait: WindowWait | null;
  /** Why the rollout paused, failed or was cancelled; null while nothing stopped it. */
  readonly reason: string | null;
  readonly instances: readonly RolloutInstance[];
  /** Selected instances left out because they refuse the order (skipRefused). */
  readonly refused: readonly RefusedInstance[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Maintenance windows holding a batch: their names, and their next opening (null: none found within a year). */
export interface WindowWait {
  readonly windows: readonly string[];
  readonly until: number | null;
}

/**
 * Whether maintenance windows hold a batch at a time (null: it may start). The application computes it from the
 * windows that apply to the batch's instances; without one, no window holds any batch.
 */
export type BatchGate = (batch: number, at: number) => WindowWait | null;

/** A batch held by windows with no opening in sight is looked at again after this long (windows may change). */
export const WINDOW_RECHECK_MS = 3_600_000;

export type RolloutInput =
  | { readonly kind: 'START' }
  /** Time passed: a batch due after pauseBetweenBatches may start. */
  | { readonly kind: 'TICK' }
  | {
      readonly kind: 'OPERATION_ENDED';
      readonly instanceId: string;
      readonly outcome: 'DONE' | 'FAILED';
      readonly reason?: string;
    }
  /** The order (or its rollback) could not be given to an instance (its state changed meanwhile). */
  | { readonly kind: 'ORDER_REFUSED'; readonly instanceId: string; readonly reason: string }
  /** A DONE instance of the baking batch was found unhealthy (see `bakeHealthVerdict`). */
  | { readonly kind: 'INSTANCE_UNHEALTHY'; readonly instanceId: string; readonly reason: string }
  | { readonly kind: 'PAUSE' }
  | { readonly kind: 'RESUME' }
  | { readonly kind: 'PROMOTE' }
  | { readonly kind: 'CANCEL' };

export interface RolloutStep {
  readonly rollout: Rollout;
  /** The instances to give the rollout's order now (already ORDERED in `rollout`). */
  readonly orders: readonly string[];
  /** The instances to give the rollback order now (already ROLLING_BACK in `rollout`). */
  readonly rollbacks: readonly string[];
  /** When the next batch is due (a pause between batches or a bake runs): feed a TICK at or after it. */
  readonly dueAt: number | null;
}

const TERMINAL: ReadonlySet<RolloutState> = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const PENDING: ReadonlySet<RolloutInstanceState> = new Set(['PENDING']);
const IN_FLIGHT: ReadonlySet<RolloutInstanceState> = new Set(['ORDERED', 'ROLLING_BACK']);
const FAILURE: ReadonlySet<RolloutInstanceState> = new Set(['FAILED', 'REFUSED', 'UNHEALTHY']);
/** Instances a rollback reverts: their operation completed (an unhealthy one too). */
const REVERTIBLE: ReadonlySet<RolloutInstanceState> = new Set(['DONE', 'UNHEALTHY']);

export function isRolloutFinished(state: RolloutState): boolean {
  return TERMINAL.has(state);
}

/**
 * A rollout stored by an earlier version, with the fields added since at their defaults (a number threshold is a
 * count); a current one is answered as it is.
 */
export function upgradeRollout(stored: Rollout): Rollout {
  const strategy = stored.strategy as RolloutStrategy & { failureThreshold: FailureThreshold | number };
  const threshold = strategy.failureThreshold;
  return {
    ...stored,
    compositionTargetId: stored.compositionTargetId ?? null,
    patch: stored.patch ?? null,
    strategy: {
      ...strategy,
      maxInFlight: strategy.maxInFlight ?? null,
      failureThreshold: typeof threshold === 'number' ? { kind: 'count', count: threshold } : threshold,
      totalFailureThreshold: strategy.totalFailureThreshold ?? null,
      rollbackAll: strategy.rollbackAll ?? false,
      canary: strategy.canary ?? null,
      pauseBetweenBatches: strategy.pauseBetweenBatches ?? 0,
      batchBy: strategy.batchBy ?? null,
      batchOrder: strategy.batchOrder ?? [],
      skipRefused: strategy.skipRefused ?? false,
      bakeTime: strategy.bakeTime ?? 0,
    },
    waivedBatches: stored.waivedBatches ?? [],
    waivedFailures: stored.waivedFailures ?? 0,
    promoted: stored.promoted ?? false,
    nextBatchAt: stored.nextBatchAt ?? null,
    bakingUntil: stored.bakingUntil ?? null,
    bakedBatch: stored.bakedBatch ?? null,
    rollbackBatches: stored.rollbackBatches ?? [],
    windowWait: stored.windowWait ?? null,
    refused: stored.refused ?? [],
  };
}

// ---------------------------------------------------------------- request validation

function invalid(message: string, details: Readonly<Record<string, unknown>> = {}): DomainError {
  return new DomainError('VALIDATION_FAILED', message, details);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PERCENT = /^(\d{1,3})%$/;
/** Longest pause between batches: a day. */
const MAX_PAUSE_MS = 86_400_000;
/** Longest bake of a batch, in seconds: a day. */
export const MAX_BAKE_SECONDS = 86_400;

function parsePercent(field: string, value: string, min: number): number | null {
  const match = PERCENT.exec(value.trim());
  if (match === null) {
    return null;
  }
  const percent = Number(match[1]);
  if (percent < min || percent > 100) {
    throw invalid(`${field}: a percentage must be from ${min}% to 100%, got ${JSON.stringify(value)}`);
  }
  return percent;
}

function parseBatchSize(value: unknown): BatchSize {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 1) {
      throw invalid(`strategy.batchSize: must be a whole number of instances of at least 1, got ${value}`);
    }
    return { kind: 'count', count: value };
  }
  if (typeof value === 'string') {
    const percent = parsePercent('strategy.batchSize', value, 1);
    if (percent !== null) {
      return { kind: 'percent', percent };
    }
  }
  throw invalid(
    `strategy.batchSize: must be a count of instances (e.g. 2) or a percentage (e.g. "25%"), got ${JSON.stringify(value)}`,
  );
}

function parseThreshold(field: string, value: unknown, per: string): FailureThreshold {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
    return { kind: 'count', count: value };
  }
  if (typeof value === 'string') {
    const percent = parsePercent(field, value, 0);
    if (percent !== null) {
      return { kind: 'percent', percent };
    }
  }
  throw invalid(
    `${field}: must be a whole number of failures ${per}, 0 or more, or a percentage (e.g. "10%"), got ${JSON.stringify(value)}`,
  );
}

function parseWholeNumber(field: string, value: unknown, min: number, max: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${field}: must be a whole number of ${what} from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function parseBatchOrder(value: Readonly<Record<string, unknown>>): { batchBy: string | null; batchOrder: string[] } {
  const batchBy = value['batchBy'] ?? null;
  const batchOrder = value['batchOrder'] ?? null;
  if (batchBy === null) {
    if (batchOrder !== null) {
      throw invalid('strategy.batchOrder: needs strategy.batchBy, the metadata key whose values it orders');
    }
    return { batchBy: null, batchOrder: [] };
  }
  if (typeof batchBy !== 'string' || batchBy.trim() === '' || batchBy.length > 200) {
    throw invalid(`strategy.batchBy: must be a metadata key (1 to 200 characters), got ${JSON.stringify(batchBy)}`);
  }
  if (!Array.isArray(batchOrder) || batchOrder.length === 0) {
    throw invalid(
      `strategy.batchOrder: with batchBy, must list the values of metadata.${batchBy} in the order they run`,
    );
  }
  const seen = new Set<string>();
  const order = batchOrder.map((item: unknown, index) => {
    if (typeof item !== 'string' || item === '') {
      throw invalid(`strategy.batchOrder[${index}]: must be a non-empty string, got ${JSON.stringify(item)}`);
    }
    if (seen.has(item)) {
      throw invalid(`strategy.batchOrder[${index}]: ${JSON.stringify(item)} is listed twice`);
    }
    seen.add(item);
    return item;
  });
  return { batchBy, batchOrder: order };
}

function parseStrategy(value: unknown): RolloutStrategy {
  if (value === undefined) {
    throw invalid('strategy: is required, with at least batchSize');
  }
  if (!isRecord(value)) {
    throw invalid('strategy: must be an object with batchSize, failureThreshold and onFailure');
  }
  const batchSize = parseBatchSize(value['batchSize']);
  const threshold = parseThreshold('strategy.failureThreshold', value['failureThreshold'] ?? 0, 'per batch');
  if (batchSize.kind === 'count' && threshold.kind === 'count' && threshold.count > batchSize.count) {
    throw invalid(
      `strategy.failureThreshold: ${threshold.count} is above the batch size ${batchSize.count}; a batch could never fail`,
    );
  }
  const total = value['totalFailureThreshold'] ?? null;
  const onFailure = value['onFailure'] ?? 'pause';
  if (!(ROLLOUT_ON_FAILURE as readonly unknown[]).includes(onFailure)) {
    throw invalid(
      `strategy.onFailure: must be one of ${ROLLOUT_ON_FAILURE.join(', ')}, got ${JSON.stringify(onFailure)}`,
    );
  }
  const rollbackAll = value['rollbackAll'] ?? false;
  if (typeof rollbackAll !== 'boolean') {
    throw invalid(`strategy.rollbackAll: must be true or false, got ${JSON.stringify(rollbackAll)}`);
  }
  if (rollbackAll && onFailure !== 'rollback') {
    throw invalid('strategy.rollbackAll: applies only with onFailure rollback');
  }
  const maxInFlight = value['maxInFlight'] ?? null;
  const canary = value['canary'] ?? null;
  const skipRefused = value['skipRefused'] ?? false;
  if (typeof skipRefused !== 'boolean') {
    throw invalid(`strategy.skipRefused: must be true or false, got ${JSON.stringify(skipRefused)}`);
  }
  return {
    batchSize,
    maxInFlight:
      maxInFlight === null
        ? null
        : parseWholeNumber('strategy.maxInFlight', maxInFlight, 1, 10_000, 'instances in flight'),
    failureThreshold: threshold,
    totalFailureThreshold:
      total === null ? null : parseThreshold('strategy.totalFailureThreshold', total, 'over the rollout'),
    onFailure: onFailure as RolloutOnFailure,
    rollbackAll,
    canary: canary === null ? null : parseWholeNumber('strategy.canary', canary, 1, 10_000, 'instances'),
    pauseBetweenBatches: parseWholeNumber(
      'strategy.pauseBetweenBatches',
      value['pauseBetweenBatches'] ?? 0,
      0,
      MAX_PAUSE_MS,
      'milliseconds',
    ),
    ...parseBatchOrder(value),
    skipRefused,
    bakeTime: parseWholeNumber('strategy.bakeTime', value['bakeTime'] ?? 0, 0, MAX_BAKE_SECONDS, 'seconds'),
  };
}

function parsePatch(value: unknown): PropertyPatch {
  if (!isRecord(value) || !isRecord(value['elements']) || Object.keys(value['elements']).length === 0) {
    throw invalid(
      'update: UPDATE needs { "elements": { "<element definition name>": { "<property>": <value> } } }, with at least one element',
    );
  }
  const patch: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const [name, properties] of Object.entries(value['elements'])) {
    if (!isRecord(properties) || Object.keys(properties).length === 0) {
      throw invalid(`update.elements.${name}: must be an object of at least one property and its new value`);
    }
    patch[name] = properties;
  }
  return patch;
}

/** Reads a rollout request body; every refusal names the field and the rule. */
export function parseRolloutRequest(body: unknown): RolloutRequest {
  if (!isRecord(body)) {
    throw invalid('body: must be an object with order, compositionId and strategy');
  }
  const order = body['order'];
  if (!(ROLLOUT_ORDERS as readonly unknown[]).includes(order)) {
    throw invalid(`order: must be one of ${ROLLOUT_ORDERS.join(', ')}, got ${JSON.stringify(order)}`);
  }
  const compositionId = body['compositionId'];
  if (typeof compositionId !== 'string' || !UUID.test(compositionId)) {
    throw invalid(`compositionId: must be a uuid, got ${JSON.stringify(compositionId)}`);
  }
  const rawIds = body['instanceIds'];
  let instanceIds: string[] | null = null;
  if (rawIds !== undefined && rawIds !== null) {
    if (!Array.isArray(rawIds)) {
      throw invalid(
        'instanceIds: must be a list of instance ids, or absent to select every instance of the composition',
      );
    }
    if (rawIds.length === 0) {
      throw invalid('instanceIds: the selection is empty; give at least one instance id, or leave it out for all');
    }
    const seen = new Set<string>();
    instanceIds = rawIds.map((id, index) => {
      if (typeof id !== 'string' || !UUID.test(id)) {
        throw invalid(`instanceIds[${index}]: must be a uuid, got ${JSON.stringify(id)}`);
      }
      if (seen.has(id.toLowerCase())) {
        throw invalid(`instanceIds[${index}]: ${id} is selected twice`);
      }
      seen.add(id.toLowerCase());
      return id.toLowerCase();
    });
  }
  const target = body['compositionTargetId'] ?? null;
  let compositionTargetId: string | null = null;
  if (order === 'MIGRATE') {
    if (typeof target !== 'string' || !UUID.test(target)) {
      throw invalid(`compositionTargetId: MIGRATE needs the target composition's uuid, got ${JSON.stringify(target)}`);
    }
    compositionTargetId = target.toLowerCase();
    if (compositionTargetId === compositionId.toLowerCase()) {
      throw invalid('compositionTargetId: must differ from compositionId');
    }
  } else if (target !== null) {
    throw invalid(`compositionTargetId: only MIGRATE takes a target composition, not ${String(order)}`);
  }
  const update = body['update'] ?? null;
  if (order !== 'UPDATE' && update !== null) {
    throw invalid(`update: only UPDATE takes a property patch, not ${String(order)}`);
  }
  return {
    order: order as RolloutOrder,
    compositionId: compositionId.toLowerCase(),
    instanceIds,
    filter: parseRolloutFilter(body['filter']),
    compositionTargetId,
    patch: order === 'UPDATE' ? parsePatch(update) : null,
    strategy: parseStrategy(body['strategy']),
  };
}

// ---------------------------------------------------------------- batches

/** The number of instances a batch holds for a selection of `total` instances. */
export function batchCapacity(batchSize: BatchSize, total: number): number {
  if (batchSize.kind === 'count') {
    return batchSize.count;
  }
  return Math.max(1, Math.ceil((total * batchSize.percent) / 100));
}

/** The failures a threshold allows among `counted` instances. */
export function allowedFailures(threshold: FailureThreshold, counted: number): number {
  return threshold.kind === 'count' ? threshold.count : Math.floor((counted * threshold.percent) / 100);
}

/** The batches a selection splits into, and the selected instances left out with the reason. */
export interface RolloutPlan {
  readonly batches: readonly (readonly string[])[];
  readonly refused: readonly RefusedInstance[];
}

function groupOf(strategy: RolloutStrategy, selected: SelectedInstance): string | null {
  const value = strategy.batchBy === null ? null : selected.metadata?.[strategy.batchBy];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}

/**
 * Splits the selection into batches: the canary first (from the first group), then each group of batchBy in
 * batchOrder, each split by batchSize (a percentage of the whole selection); a batch never mixes two groups. An
 * instance whose state refuses the order, or whose group is not in batchOrder, is refused with the reason.
 */
export function planRollout(request: RolloutRequest, selection: readonly SelectedInstance[]): RolloutPlan {
  const { strategy } = request;
  const refused: RefusedInstance[] = [];
  const groups = new Map<string, string[]>(
    (strategy.batchBy === null ? [''] : strategy.batchOrder).map((group) => [group, []]),
  );
  for (const selected of selection) {
    if (selected.refusal !== null) {
      refused.push({ instanceId: selected.instanceId, reason: selected.refusal });
      continue;
    }
    const group = strategy.batchBy === null ? '' : groupOf(strategy, selected);
    const members = group === null ? undefined : groups.get(group);
    if (members === undefined) {
      refused.push({
        instanceId: selected.instanceId,
        reason: `metadata.${strategy.batchBy} is ${group === null ? 'not set' : JSON.stringify(group)}, not in strategy.batchOrder`,
      });
      continue;
    }
    members.push(selected.instanceId);
  }
  const capacity = batchCapacity(strategy.batchSize, selection.length - refused.length);
  const batches: string[][] = [];
  let canary = strategy.canary ?? 0;
  for (const members of groups.values()) {
    let rest = members;
    if (canary > 0 && rest.length > 0) {
      batches.push(rest.slice(0, canary));
      rest = rest.slice(canary);
      canary = 0;
    }
    for (let from = 0; from < rest.length; from += capacity) {
      batches.push(rest.slice(from, from + capacity));
    }
  }
  return { batches, refused };
}

function asSelection(selection: readonly (string | SelectedInstance)[]): SelectedInstance[] {
  return selection.map((item) =>
    typeof item === 'string' ? { instanceId: item, metadata: null, refusal: null } : item,
  );
}

/**
 * A new rollout over the resolved selection (instance ids, or instances with their metadata and refusals).
 * Nothing is ordered yet (START does that). Refuses an empty selection, refused instances without skipRefused
 * (ORDER_NOT_ALLOWED listing each with its reason), and thresholds above what they count.
 */
export function newRollout(
  rolloutId: string,
  request: RolloutRequest,
  selection: readonly (string | SelectedInstance)[],
  createdAt: number,
): Rollout {
  if (selection.length === 0) {
    throw invalid(
      request.instanceIds === null
        ? request.filter !== null
          ? 'filter: the selection is empty; no instance matches the filter'
          : `compositionId: the selection is empty; composition ${request.compositionId} has no instances`
        : request.filter !== null
          ? 'filter: the selection is empty; no instance matches the filter'
          : 'instanceIds: the selection is empty',
    );
  }
  const plan = planRollout(request, asSelection(selection));
  const { strategy } = request;
  if (plan.refused.length > 0 && !strategy.skipRefused) {
    throw new DomainError(
      'ORDER_NOT_ALLOWED',
      `order: ${request.order} is refused for ${plan.refused.length} selected instance(s): ` +
        plan.refused.map((item) => `${item.instanceId}: ${item.reason}`).join('; ') +
        '; set strategy.skipRefused to start without them',
      { refused: plan.refused },
    );
  }
  if (plan.batches.length === 0) {
    throw invalid('strategy.skipRefused: every selected instance refuses the order; the selection is empty');
  }
  const capacity = batchCapacity(strategy.batchSize, selection.length - plan.refused.length);
  if (strategy.failureThreshold.kind === 'count' && strategy.failureThreshold.count > capacity) {
    throw invalid(
      `strategy.failureThreshold: ${strategy.failureThreshold.count} is above the batch size ${capacity}; a batch could never fail`,
    );
  }
  const total = strategy.totalFailureThreshold;
  const counted = selection.length - plan.refused.length;
  if (total?.kind === 'count' && total.count > counted) {
    throw invalid(
      `strategy.totalFailureThreshold: ${total.count} is above the ${counted} instance(s) selected; the rollout could never fail`,
    );
  }
  return {
    rolloutId,
    order: request.order,
    compositionId: request.compositionId,
    compositionTargetId: request.compositionTargetId,
    patch: request.patch,
    strategy,
    state: 'RUNNING',
    currentBatch: -1,
    batchCount: plan.batches.length,
    failedBatches: [],
    waivedBatches: [],
    waivedFailures: 0,
    promoted: false,
    nextBatchAt: null,
    bakingUntil: null,
    bakedBatch: null,
    rollbackBatches: [],
    windowWait: null,
    reason: null,
    instances: plan.batches.flatMap((members, batch) =>
      members.map((instanceId) => ({ instanceId, batch, state: 'PENDING' as const, reason: null })),
    ),
    refused: plan.refused,
    createdAt,
    updatedAt: createdAt,
  };
}

// ---------------------------------------------------------------- decide

interface Draft {
  rollout: Rollout;
  orders: string[];
  rollbacks: string[];
  dueAt: number | null;
  gate: BatchGate | null;
}

/** Starts `batch` unless windows hold it: then the rollout waits for their opening (answers whether it started). */
function startBatch(draft: Draft, batch: number, now: number): boolean {
  const hold = draft.gate?.(batch, now) ?? null;
  if (hold !== null) {
    const recheck = hold.until ?? now + WINDOW_RECHECK_MS;
    draft.rollout = { ...draft.rollout, windowWait: hold, nextBatchAt: recheck };
    draft.dueAt = recheck;
    return false;
  }
  draft.rollout = { ...draft.rollout, currentBatch: batch, nextBatchAt: null, windowWait: null };
  return true;
}

function withInstances(rollout: Rollout, change: ReadonlyMap<string, Partial<RolloutInstance>>): Rollout {
  if (change.size === 0) {
    return rollout;
  }
  return {
    ...rollout,
    instances: rollout.instances.map((item) => {
      const patch = change.get(item.instanceId);
      return patch === undefined ? item : { ...item, ...patch };
    }),
  };
}

function membersOf(rollout: Rollout, batch: number): RolloutInstance[] {
  return rollout.instances.filter((item) => item.batch === batch);
}

function inFlight(rollout: Rollout): number {
  return rollout.instances.filter((item) => IN_FLIGHT.has(item.state)).length;
}

function totalFailures(rollout: Rollout): number {
  return rollout.instances.filter((item) => FAILURE.has(item.state)).length;
}

function batchOverThreshold(rollout: Rollout, batch: number): { failures: number; allowed: number } | null {
  const members = membersOf(rollout, batch);
  const failures = members.filter((item) => FAILURE.has(item.state)).length;
  const allowed = allowedFailures(rollout.strategy.failureThreshold, members.length);
  return failures > allowed ? { failures, allowed } : null;
}

function totalOverThreshold(rollout: Rollout): { failures: number; allowed: number } | null {
  const threshold = rollout.strategy.totalFailureThreshold;
  if (threshold === null) {
    return null;
  }
  const failures = totalFailures(rollout);
  const allowed = allowedFailures(threshold, rollout.instances.length);
  return failures - rollout.waivedFailures > allowed ? { failures, allowed } : null;
}

/** Why the current batch must stop (and not order more); null while it may go on. */
function stopReason(rollout: Rollout, batch: number): string | null {
  const total = totalOverThreshold(rollout);
  if (total !== null) {
    return `the rollout had ${total.failures} failures, over the total threshold ${total.allowed}`;
  }
  if (rollout.strategy.onFailure === 'continue' || rollout.waivedBatches.includes(batch)) {
    return null;
  }
  const over = batchOverThreshold(rollout, batch);
  return over === null ? null : `batch ${batch + 1} had ${over.failures} failures, over the threshold ${over.allowed}`;
}

/** Orders pending instances of `batch` (to give `order` or roll back), up to maxInFlight over the rollout. */
function fill(draft: Draft, batch: number, from: ReadonlySet<RolloutInstanceState>, to: RolloutInstanceState): void {
  const limit = draft.rollout.strategy.maxInFlight ?? Number.MAX_SAFE_INTEGER;
  const room = Math.max(0, limit - inFlight(draft.rollout));
  const picked = membersOf(draft.rollout, batch)
    .filter((item) => from.has(item.state))
    .slice(0, room)
    .map((item) => item.instanceId);
  draft.rollout = withInstances(draft.rollout, new Map(picked.map((id) => [id, { state: to, reason: null }])));
  (to === 'ROLLING_BACK' ? draft.rollbacks : draft.orders).push(...picked);
}

/** Rolls back the batches in rollbackBatches, one after the other, then ends FAILED. */
function advanceRollback(draft: Draft): void {
  for (;;) {
    const rollout = draft.rollout;
    const batch = rollout.rollbackBatches[0];
    if (batch === undefined) {
      const failed = rollout.instances.filter((item) => item.state === 'ROLLBACK_FAILED').length;
      draft.rollout = {
        ...rollout,
        state: 'FAILED',
        reason: `${rollout.reason ?? 'failed'}; rolled back${failed > 0 ? `, ${failed} rollback(s) failed` : ''}`,
      };
      return;
    }
    fill(draft, batch, REVERTIBLE, 'ROLLING_BACK');
    const members = membersOf(draft.rollout, batch);
    if (members.some((item) => item.state === 'ROLLING_BACK' || REVERTIBLE.has(item.state))) {
      return;
    }
    draft.rollout = { ...draft.rollout, rollbackBatches: draft.rollout.rollbackBatches.slice(1) };
  }
}

/** What onFailure does once the current batch stopped and nothing of it is in flight. */
function stop(draft: Draft, batch: number, reason: string): void {
  // A stopped batch bakes no more: after a resume the batch is judged afresh (its bake starts again).
  const rollout = { ...draft.rollout, bakingUntil: null };
  switch (rollout.strategy.onFailure) {
    case 'pause':
      draft.rollout = { ...rollout, state: 'PAUSED', reason };
      return;
    case 'continue':
      draft.rollout = { ...rollout, state: 'FAILED', reason };
      return;
    case 'rollback': {
      const batches = rollout.strategy.rollbackAll
        ? Array.from({ length: batch + 1 }, (_, index) => batch - index)
        : [batch];
      draft.rollout = { ...rollout, state: 'ROLLING_BACK', reason, rollbackBatches: batches };
      advanceRollback(draft);
      return;
    }
  }
}

/**
 * Whether the current batch, ended and judged, still bakes at `now`: its bake starts when it ended and lasts
 * bakeTime; while it runs the step is due at its end. False once the bake is over (or there is none).
 */
function bakes(draft: Draft, now: number): boolean {
  const rollout = draft.rollout;
  if (rollout.strategy.bakeTime === 0 || rollout.bakedBatch === rollout.currentBatch) {
    return false;
  }
  const until = rollout.bakingUntil ?? now + rollout.strategy.bakeTime * 1000;
  if (now < until) {
    draft.rollout = { ...rollout, bakingUntil: until };
    draft.dueAt = until;
    return true;
  }
  draft.rollout = { ...rollout, bakingUntil: null, bakedBatch: rollout.currentBatch };
  return false;
}

/** Moves a RUNNING rollout as far as it goes now: orders, judges, starts batches, waits or ends. */
function advance(draft: Draft, now: number): void {
  for (;;) {
    const rollout = draft.rollout;
    if (rollout.state === 'ROLLING_BACK') {
      advanceRollback(draft);
      return;
    }
    if (rollout.state === 'RUNNING' && rollout.currentBatch < 0 && rollout.windowWait !== null) {
      if (!startBatch(draft, 0, now)) {
        return;
      }
      continue;
    }
    if (rollout.state !== 'RUNNING' || rollout.currentBatch < 0) {
      return;
    }
    const batch = rollout.currentBatch;
    const stopping = stopReason(rollout, batch);
    if (stopping === null) {
      fill(draft, batch, PENDING, 'ORDERED');
    }
    const members = membersOf(draft.rollout, batch);
    if (members.some((item) => IN_FLIGHT.has(item.state) || (stopping === null && item.state === 'PENDING'))) {
      return;
    }
    // The batch ended (or stopped): judge it.
    const over = batchOverThreshold(draft.rollout, batch) !== null;
    if (over && !draft.rollout.failedBatches.includes(batch)) {
      draft.rollout = { ...draft.rollout, failedBatches: [...draft.rollout.failedBatches, batch] };
    }
    if (stopping !== null) {
      stop(draft, batch, stopping);
      return;
    }
    if (bakes(draft, now)) {
      return;
    }
    const judged = draft.rollout;
    if (batch + 1 >= judged.batchCount) {
      const failed = judged.failedBatches.length > 0;
      draft.rollout = {
        ...judged,
        state: failed ? 'FAILED' : 'COMPLETED',
        reason: failed
          ? `batches over the failure threshold: ${judged.failedBatches.map((b) => b + 1).join(', ')}`
          : null,
      };
      return;
    }
    if (batch === 0 && judged.strategy.canary !== null && !judged.promoted) {
      draft.rollout = {
        ...judged,
        state: 'WAITING_PROMOTION',
        reason: 'the canary batch succeeded; waiting for promote',
      };
      return;
    }
    // A batch held by windows already waited its pause: the windows alone say when it starts.
    if (judged.strategy.pauseBetweenBatches > 0 && judged.windowWait === null) {
      const dueAt = judged.nextBatchAt ?? now + judged.strategy.pauseBetweenBatches;
      if (now < dueAt) {
        draft.rollout = { ...judged, nextBatchAt: dueAt };
        draft.dueAt = dueAt;
        return;
      }
    }
    draft.rollout = judged;
    if (!startBatch(draft, batch + 1, now)) {
      return;
    }
  }
}

function refused(rollout: Rollout, action: string, allowedIn: string): Refusal {
  return refusal(
    'ORDER_NOT_ALLOWED',
    `Rollout ${rollout.rolloutId} is ${rollout.state}: ${action} is allowed only when ${allowedIn}`,
    {
      rolloutId: rollout.rolloutId,
      state: rollout.state,
    },
  );
}

function stepOf(rollout: Rollout, now: number, gate: BatchGate | null, change: (draft: Draft) => void): RolloutStep {
  const draft: Draft = { rollout, orders: [], rollbacks: [], dueAt: null, gate };
  change(draft);
  advance(draft, now);
  return { rollout: draft.rollout, orders: draft.orders, rollbacks: draft.rollbacks, dueAt: draft.dueAt };
}

function recordEnd(
  rollout: Rollout,
  input: Extract<RolloutInput, { kind: 'OPERATION_ENDED' | 'ORDER_REFUSED' }>,
  now: number,
): Rollout | null {
  const item = rollout.instances.find((candidate) => candidate.instanceId === input.instanceId);
  if (item === undefined || !IN_FLIGHT.has(item.state)) {
    return null;
  }
  const failed = input.kind === 'ORDER_REFUSED' || input.outcome === 'FAILED';
  const reason = input.kind === 'ORDER_REFUSED' ? input.reason : (input.reason ?? null);
  let state: RolloutInstanceState;
  if (item.state === 'ROLLING_BACK') {
    state = failed ? 'ROLLBACK_FAILED' : 'ROLLED_BACK';
  } else {
    state = input.kind === 'ORDER_REFUSED' ? 'REFUSED' : failed ? 'FAILED' : 'DONE';
  }
  return withInstances(
    rollout,
    new Map([
      [input.instanceId, { state, reason: failed ? reason : null, ...(state === 'DONE' ? { doneAt: now } : {}) }],
    ]),
  );
}

/** A DONE instance of the batch that bakes turned unhealthy: it fails the batch; anything else changes nothing. */
function recordUnhealthy(rollout: Rollout, instanceId: string, reason: string): Rollout | null {
  const item = rollout.instances.find((candidate) => candidate.instanceId === instanceId);
  if (rollout.bakingUntil === null || item?.state !== 'DONE' || item.batch !== rollout.currentBatch) {
    return null;
  }
  return withInstances(
    rollout,
    new Map([[instanceId, { state: 'UNHEALTHY' as const, reason, unhealthyReason: reason }]]),
  );
}

/** One element of an instance as the bake judges it: its observed health, and whether its health gate holds. */
export interface BakedElement {
  readonly name: string;
  /** Its observed health and since when (epoch ms); null when no participant ever observed it. */
  readonly health: {
    readonly state: HealthState;
    readonly since: number;
    readonly reason: string | null;
  } | null;
  /** Its health gate holds on what it last reported (true without a gate). */
  readonly gateHolds: boolean;
}

/**
 * Why an instance that ended DONE at `doneAt` is unhealthy for its batch's bake; null while it is healthy. While the
 * bake runs, an element observed Degraded or Missing counts only when it turned so at or after `doneAt`: a status from
 * before the operation ended may be stale (the operation may have changed it), and a fresh report is on its way (the
 * bake asks for one as it starts). When the bake `ends`, an element still Degraded or Missing counts whenever it
 * turned so: it stayed that way through the whole bake. A gate that no longer holds counts too.
 */
export function bakeHealthVerdict(doneAt: number, elements: readonly BakedElement[], ends = false): string | null {
  for (const element of elements) {
    const health = element.health;
    if (
      health !== null &&
      (health.state === 'Degraded' || health.state === 'Missing') &&
      (ends || health.since >= doneAt)
    ) {
      return `unhealthy during the bake: ${element.name} is ${health.state}${health.reason === null ? '' : ` (${health.reason})`}`;
    }
    if (!element.gateHolds) {
      return `unhealthy during the bake: the health gate of ${element.name} no longer holds`;
    }
  }
  return null;
}

/**
 * The rollout's answer to one input at `now` (the caller's clock, epoch ms): its new state, the instances to order
 * or roll back now, and when the next batch is due. Outcomes of instances the rollout did not order (or already
 * recorded) change nothing, so a replayed or late event is harmless. `gate` says whether maintenance windows hold a
 * batch about to start; a held batch waits (windowWait, nextBatchAt at the opening) and a later input starts it.
 */
export function decideRollout(
  rollout: Rollout,
  input: RolloutInput,
  now: number = rollout.updatedAt,
  gate: BatchGate | null = null,
): RolloutStep | Refusal {
  const none: RolloutStep = { rollout, orders: [], rollbacks: [], dueAt: rollout.nextBatchAt };
  switch (input.kind) {
    case 'START':
      if (rollout.state !== 'RUNNING' || rollout.currentBatch >= 0) {
        return none;
      }
      return stepOf(rollout, now, gate, (draft) => {
        startBatch(draft, 0, now);
      });
    case 'TICK':
      return stepOf(rollout, now, gate, () => undefined);
    case 'OPERATION_ENDED':
    case 'ORDER_REFUSED': {
      const recorded = recordEnd(rollout, input, now);
      if (recorded === null) {
        return none;
      }
      return stepOf(recorded, now, gate, () => undefined);
    }
    case 'INSTANCE_UNHEALTHY': {
      const recorded = recordUnhealthy(rollout, input.instanceId, input.reason);
      if (recorded === null) {
        return none;
      }
      return stepOf(recorded, now, gate, () => undefined);
    }
    case 'PAUSE':
      if (rollout.state !== 'RUNNING') {
        return refused(rollout, 'pause', 'RUNNING');
      }
      return { ...none, rollout: { ...rollout, state: 'PAUSED', reason: 'paused by request' } };
    case 'RESUME':
      if (rollout.state !== 'PAUSED') {
        return refused(rollout, 'resume', 'PAUSED');
      }
      // A resume accepts the failures that paused the rollout: the batch goes on, the total counts afresh.
      return stepOf(rollout, now, gate, (draft) => {
        const batch = rollout.currentBatch;
        draft.rollout = {
          ...rollout,
          state: 'RUNNING',
          reason: null,
          waivedBatches:
            batch >= 0 && !rollout.waivedBatches.includes(batch)
              ? [...rollout.waivedBatches, batch]
              : rollout.waivedBatches,
          waivedFailures: totalFailures(rollout),
        };
      });
    case 'PROMOTE':
      if (rollout.state !== 'WAITING_PROMOTION') {
        return refused(rollout, 'promote', 'WAITING_PROMOTION');
      }
      return stepOf(rollout, now, gate, (draft) => {
        draft.rollout = { ...rollout, state: 'RUNNING', reason: null, promoted: true };
      });
    case 'CANCEL':
      if (isRolloutFinished(rollout.state)) {
        return refused(rollout, 'cancel', 'not finished');
      }
      return { ...none, rollout: { ...rollout, state: 'CANCELLED', reason: 'cancelled by request' }, dueAt: null };
  }
}
