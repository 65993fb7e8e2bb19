import { DomainError } from '../errors';
import type { Refusal } from '../refusal';
import { refusal } from '../refusal';

/**
 * A rollout: one order given to many instances of a fleet, in batches. These are its rules, pure: what a request
 * may ask, how the selection splits into batches, and what happens when an instance's operation ends or an operator
 * pauses, resumes or cancels. A batch is judged only on the operations the rollout itself started (their outcomes
 * arrive as OPERATION_ENDED), never on a status read.
 */

export const ROLLOUT_ORDERS = ['DEPLOY', 'UNDEPLOY', 'LOCK', 'UNLOCK'] as const;
export type RolloutOrder = (typeof ROLLOUT_ORDERS)[number];

export const ROLLOUT_STATES = ['RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];

export const ROLLOUT_INSTANCE_STATES = ['PENDING', 'ORDERED', 'DONE', 'FAILED', 'REFUSED'] as const;
export type RolloutInstanceState = (typeof ROLLOUT_INSTANCE_STATES)[number];

export const ROLLOUT_ON_FAILURE = ['pause', 'continue'] as const;
export type RolloutOnFailure = (typeof ROLLOUT_ON_FAILURE)[number];

/** A batch size as a count of instances or a percentage of the selection (at least one instance a batch). */
export type BatchSize =
  { readonly kind: 'count'; readonly count: number } | { readonly kind: 'percent'; readonly percent: number };

export interface RolloutStrategy {
  readonly batchSize: BatchSize;
  /** Failures a batch may have; one more and the batch fails (onFailure says what then). */
  readonly failureThreshold: number;
  readonly onFailure: RolloutOnFailure;
}

/** What a client asks for, validated; the selection is resolved to instance ids by the application. */
export interface RolloutRequest {
  readonly order: RolloutOrder;
  readonly compositionId: string;
  /** The instances to order, in the order given; null selects every instance of the composition. */
  readonly instanceIds: readonly string[] | null;
  readonly strategy: RolloutStrategy;
}

export interface RolloutInstance {
  readonly instanceId: string;
  /** The batch the instance belongs to, from 0. */
  readonly batch: number;
  readonly state: RolloutInstanceState;
  /** Why the instance failed or was refused; null otherwise. */
  readonly reason: string | null;
}

export interface Rollout {
  readonly rolloutId: string;
  readonly order: RolloutOrder;
  readonly compositionId: string;
  readonly strategy: RolloutStrategy;
  readonly state: RolloutState;
  /** The batch started last (from 0); batches after it have not started. */
  readonly currentBatch: number;
  readonly batchCount: number;
  /** The batches whose failures went over the threshold. */
  readonly failedBatches: readonly number[];
  /** Why the rollout paused, failed or was cancelled; null while nothing stopped it. */
  readonly reason: string | null;
  readonly instances: readonly RolloutInstance[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type RolloutInput =
  | { readonly kind: 'START' }
  | {
      readonly kind: 'OPERATION_ENDED';
      readonly instanceId: string;
      readonly outcome: 'DONE' | 'FAILED';
      readonly reason?: string;
    }
  /** The order could not be given to an instance when its batch started (its state changed meanwhile). */
  | { readonly kind: 'ORDER_REFUSED'; readonly instanceId: string; readonly reason: string }
  | { readonly kind: 'PAUSE' }
  | { readonly kind: 'RESUME' }
  | { readonly kind: 'CANCEL' };

export interface RolloutStep {
  readonly rollout: Rollout;
  /** The instances to give the rollout's order now (already ORDERED in `rollout`). */
  readonly orders: readonly string[];
}

const TERMINAL: ReadonlySet<RolloutState> = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const INSTANCE_ENDED: ReadonlySet<RolloutInstanceState> = new Set(['DONE', 'FAILED', 'REFUSED']);

export function isRolloutFinished(state: RolloutState): boolean {
  return TERMINAL.has(state);
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

function parseBatchSize(value: unknown): BatchSize {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 1) {
      throw invalid(`strategy.batchSize: must be a whole number of instances of at least 1, got ${value}`);
    }
    return { kind: 'count', count: value };
  }
  if (typeof value === 'string') {
    const match = PERCENT.exec(value.trim());
    if (match !== null) {
      const percent = Number(match[1]);
      if (percent < 1 || percent > 100) {
        throw invalid(`strategy.batchSize: a percentage must be from 1% to 100%, got ${JSON.stringify(value)}`);
      }
      return { kind: 'percent', percent };
    }
  }
  throw invalid(
    `strategy.batchSize: must be a count of instances (e.g. 2) or a percentage (e.g. "25%"), got ${JSON.stringify(value)}`,
  );
}

function parseStrategy(value: unknown): RolloutStrategy {
  if (value === undefined) {
    throw invalid('strategy: is required, with at least batchSize');
  }
  if (!isRecord(value)) {
    throw invalid('strategy: must be an object with batchSize, failureThreshold and onFailure');
  }
  const batchSize = parseBatchSize(value['batchSize']);
  const threshold = value['failureThreshold'] ?? 0;
  if (typeof threshold !== 'number' || !Number.isInteger(threshold) || threshold < 0) {
    throw invalid(
      `strategy.failureThreshold: must be a whole number of failures per batch, 0 or more, got ${JSON.stringify(threshold)}`,
    );
  }
  if (batchSize.kind === 'count' && threshold > batchSize.count) {
    throw invalid(
      `strategy.failureThreshold: ${threshold} is above the batch size ${batchSize.count}; a batch could never fail`,
    );
  }
  const onFailure = value['onFailure'] ?? 'pause';
  if (!(ROLLOUT_ON_FAILURE as readonly unknown[]).includes(onFailure)) {
    throw invalid(
      `strategy.onFailure: must be one of ${ROLLOUT_ON_FAILURE.join(', ')}, got ${JSON.stringify(onFailure)}`,
    );
  }
  return { batchSize, failureThreshold: threshold, onFailure: onFailure as RolloutOnFailure };
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
  return {
    order: order as RolloutOrder,
    compositionId: compositionId.toLowerCase(),
    instanceIds,
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

/**
 * A new rollout over the resolved selection, in the order given: instance i is in batch floor(i / capacity).
 * Nothing is ordered yet (START does that). Refuses an empty selection and, for a percentage, a threshold above the
 * batch size it resolves to.
 */
export function newRollout(
  rolloutId: string,
  request: RolloutRequest,
  instanceIds: readonly string[],
  createdAt: number,
): Rollout {
  if (instanceIds.length === 0) {
    throw invalid(
      request.instanceIds === null
        ? `compositionId: the selection is empty; composition ${request.compositionId} has no instances`
        : 'instanceIds: the selection is empty',
    );
  }
  const capacity = batchCapacity(request.strategy.batchSize, instanceIds.length);
  if (request.strategy.failureThreshold > capacity) {
    throw invalid(
      `strategy.failureThreshold: ${request.strategy.failureThreshold} is above the batch size ${capacity}; a batch could never fail`,
    );
  }
  return {
    rolloutId,
    order: request.order,
    compositionId: request.compositionId,
    strategy: request.strategy,
    state: 'RUNNING',
    currentBatch: -1,
    batchCount: Math.ceil(instanceIds.length / capacity),
    failedBatches: [],
    reason: null,
    instances: instanceIds.map((instanceId, index) => ({
      instanceId,
      batch: Math.floor(index / capacity),
      state: 'PENDING',
      reason: null,
    })),
    createdAt,
    updatedAt: createdAt,
  };
}

// ---------------------------------------------------------------- decide

function withInstance(rollout: Rollout, instanceId: string, change: Partial<RolloutInstance>): Rollout {
  return {
    ...rollout,
    instances: rollout.instances.map((item) => (item.instanceId === instanceId ? { ...item, ...change } : item)),
  };
}

function batchFinished(rollout: Rollout, batch: number): boolean {
  return rollout.instances.every((item) => item.batch !== batch || INSTANCE_ENDED.has(item.state));
}

function failuresOf(rollout: Rollout, batch: number): number {
  return rollout.instances.filter(
    (item) => item.batch === batch && (item.state === 'FAILED' || item.state === 'REFUSED'),
  ).length;
}

/** Starts the batch after the current one, or ends the rollout when there is none. */
function startNextBatch(rollout: Rollout): RolloutStep {
  const next = rollout.currentBatch + 1;
  if (next >= rollout.batchCount) {
    const failed = rollout.failedBatches.length > 0;
    return {
      rollout: {
        ...rollout,
        state: failed ? 'FAILED' : 'COMPLETED',
        reason: failed
          ? `batches over the failure threshold: ${rollout.failedBatches.map((b) => b + 1).join(', ')}`
          : null,
      },
      orders: [],
    };
  }
  const orders = rollout.instances.filter((item) => item.batch === next).map((item) => item.instanceId);
  return {
    rollout: {
      ...rollout,
      currentBatch: next,
      instances: rollout.instances.map((item) => (item.batch === next ? { ...item, state: 'ORDERED' } : item)),
    },
    orders,
  };
}

/** After an instance of the current batch ended: close the batch if it is finished, judge it, go on or pause. */
function afterInstanceEnded(rollout: Rollout): RolloutStep {
  if (rollout.currentBatch < 0 || !batchFinished(rollout, rollout.currentBatch)) {
    return { rollout, orders: [] };
  }
  const failures = failuresOf(rollout, rollout.currentBatch);
  let judged = rollout;
  if (failures > rollout.strategy.failureThreshold && !rollout.failedBatches.includes(rollout.currentBatch)) {
    judged = { ...rollout, failedBatches: [...rollout.failedBatches, rollout.currentBatch] };
    if (rollout.strategy.onFailure === 'pause' && rollout.state === 'RUNNING') {
      return {
        rollout: {
          ...judged,
          state: 'PAUSED',
          reason: `batch ${rollout.currentBatch + 1} had ${failures} failures, over the threshold ${rollout.strategy.failureThreshold}`,
        },
        orders: [],
      };
    }
  }
  if (judged.state !== 'RUNNING') {
    return { rollout: judged, orders: [] };
  }
  return startNextBatch(judged);
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

/**
 * The rollout's answer to one input: its new state and the instances to order now. Outcomes of instances the
 * rollout did not order (or already recorded) change nothing, so a replayed or late event is harmless.
 */
export function decideRollout(rollout: Rollout, input: RolloutInput): RolloutStep | Refusal {
  switch (input.kind) {
    case 'START':
      if (rollout.state !== 'RUNNING' || rollout.currentBatch >= 0) {
        return { rollout, orders: [] };
      }
      return startNextBatch(rollout);
    case 'OPERATION_ENDED':
    case 'ORDER_REFUSED': {
      const item = rollout.instances.find((candidate) => candidate.instanceId === input.instanceId);
      if (item === undefined || item.state !== 'ORDERED') {
        return { rollout, orders: [] };
      }
      const state: RolloutInstanceState =
        input.kind === 'ORDER_REFUSED' ? 'REFUSED' : input.outcome === 'DONE' ? 'DONE' : 'FAILED';
      const reason = input.kind === 'ORDER_REFUSED' ? input.reason : (input.reason ?? null);
      const recorded = withInstance(rollout, input.instanceId, { state, reason: state === 'DONE' ? null : reason });
      if (isRolloutFinished(rollout.state)) {
        return { rollout: recorded, orders: [] };
      }
      return afterInstanceEnded(recorded);
    }
    case 'PAUSE':
      if (rollout.state !== 'RUNNING') {
        return refused(rollout, 'pause', 'RUNNING');
      }
      return { rollout: { ...rollout, state: 'PAUSED', reason: 'paused by request' }, orders: [] };
    case 'RESUME': {
      if (rollout.state !== 'PAUSED') {
        return refused(rollout, 'resume', 'PAUSED');
      }
      const resumed: Rollout = { ...rollout, state: 'RUNNING', reason: null };
      if (resumed.currentBatch >= 0 && batchFinished(resumed, resumed.currentBatch)) {
        return startNextBatch(resumed);
      }
      return { rollout: resumed, orders: [] };
    }
    case 'CANCEL':
      if (isRolloutFinished(rollout.state)) {
        return refused(rollout, 'cancel', 'RUNNING or PAUSED');
      }
      return { rollout: { ...rollout, state: 'CANCELLED', reason: 'cancelled by request' }, orders: [] };
  }
}
