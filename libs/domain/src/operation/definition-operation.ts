import type { CompositionDefinition, NodeTemplateState } from '../model';
import type { DefinitionOrder } from '../definition/definition-lifecycle';
import { DEFINITION_ORDER_EFFECT } from '../definition/definition-lifecycle';
import type { DefinitionOperation } from '../ports/engine.port';
import { freshControl } from '../ports/engine.port';
import type { AcTypeState, StateChangeResult } from '../states';
import type { OperationEffect } from './effects';
import { ignore, recordEvent, supersededEvent } from './effects';
import type { AnsweredMessage, OperationWrite } from './instance-types';
import { operationOfAck } from './ack-input';
import { timeOutOperation } from './timeout';
import { definitionNothingRunsRefusal } from '../control/cancel';
import type { Refusal } from '../refusal';
import type { ResendSettings } from '../control/resend-schedule';
import { decideResend } from '../control/resend-schedule';

/** A PRIME_ACK, as the engine needs it. */
/** The definition metadata field that sets the deadline of a prime or a deprime. */
export type DefinitionTimeoutKey = 'primeTimeoutMs' | 'deprimeTimeoutMs';

/** Which metadata timeout applies to an order: a prime's `primeTimeoutMs`, a deprime's `deprimeTimeoutMs`. */
export function definitionTimeoutKey(order: DefinitionOrder): DefinitionTimeoutKey {
  return order === 'PRIME' ? 'primeTimeoutMs' : 'deprimeTimeoutMs';
}

export interface PrimeAck {
  readonly participantId: string;
  readonly replicaId: string | null;
  readonly responseTo: string | null;
  readonly compositionState: AcTypeState;
  readonly stateChangeResult: StateChangeResult;
  readonly message: string | null;
  /** outProperties per element node template name. */
  readonly outProperties: ReadonlyMap<string, Record<string, unknown>>;
}

/** What can happen to a definition's operation (prime, deprime). */
export type DefinitionInput =
  | {
      readonly kind: 'ORDER';
      readonly order: DefinitionOrder;
      /** The definition's `primeTimeoutMs` / `deprimeTimeoutMs` metadata for this order, when valid. */
      readonly timeoutMs: number | null;
    }
  | { readonly kind: 'ACK'; readonly ack: PrimeAck; readonly answered: AnsweredMessage | null }
  | { readonly kind: 'TICK' }
  /**
   * A supervision pass: a prime or deprime silent for maxWaitMs is sent again. `messageId` is the id the
   * order's message went out under (the shell reads it from the message record); `resend` the settings.
   */
  | { readonly kind: 'SUPERVISE'; readonly messageId: string | null; readonly resend: ResendSettings };

export interface DefinitionStepContext {
  readonly defaultTimeoutMs: number;
  readonly newId: () => string;
}

export interface DefinitionStep {
  readonly target: CompositionDefinition;
  /** The operation the effects belong to, as it is after the step; null when the input concerned none. */
  readonly operation: DefinitionOperation | null;
  readonly operations: readonly OperationWrite[];
  readonly effects: readonly OperationEffect[];
}

/** How much of a participant's prime message a definition keeps (ONAP's column size). */
const MAX_PRIME_MESSAGE_LENGTH = 255;

/** One step of a definition's operation; `running` is its running operation, if any. Pure. */
export function decideDefinition(
  target: CompositionDefinition,
  running: DefinitionOperation | null,
  input: DefinitionInput,
  now: number,
  context: DefinitionStepContext,
): DefinitionStep {
  switch (input.kind) {
    case 'ORDER': {
      const operation: DefinitionOperation = {
        operationId: context.newId(),
        targetKind: 'DEFINITION',
        targetId: target.compositionId,
        order: input.order,
        state: 'RUNNING',
        timedOut: false,
        phase: null,
        startedAt: now,
        deadlineAt: now + (input.timeoutMs ?? context.defaultTimeoutMs),
        finishedAt: null,
        control: freshControl(now),
      };
      return {
        target,
        operation,
        operations: [
          ...(running
            ? [{ operation: { ...running, state: 'SUPERSEDED' as const, finishedAt: now }, isNew: false }]
            : []),
          { operation, isNew: true },
        ],
        effects: [
          { kind: 'SEND_PRIME', order: input.order },
          ...(running ? [supersededEvent(running, input.order)] : []),
          recordEvent('ORDERED', { order: input.order }),
        ],
      };
    }
    case 'ACK':
      return applyPrimeAck(target, running, input.ack, input.answered, now, context);
    case 'SUPERVISE':
      return resendPrime(target, running, input, now);
    case 'TICK': {
      const flagged = running ? timeOutOperation(running, now) : null;
      if (!flagged) {
        return { target, operation: null, operations: [], effects: [] };
      }
      return {
        operation: flagged.operation,
        target:
          target.stateChangeResult === 'NO_ERROR' ? { ...target, stateChangeResult: 'TIMEOUT', lastMsg: now } : target,
        operations: [{ operation: flagged.operation, isNew: false }],
        effects: flagged.effects,
      };
    }
  }
}

/** The sender's node templates take the reported state; all of them done ⇒ PRIMED (or COMMISSIONED). */
function applyPrimeAck(
  target: CompositionDefinition,
  running: DefinitionOperation | null,
  ack: PrimeAck,
  answered: AnsweredMessage | null,
  now: number,
  context: DefinitionStepContext,
): DefinitionStep {
  const compositionId = target.compositionId;
  const found = operationOfAck(answered, running);
  if (!found || found.targetKind !== 'DEFINITION' || found.state !== 'RUNNING' || found.targetId !== compositionId) {
    return {
      target,
      operation: null,
      operations: [],
      effects: [ignore('STALE', `PRIME_ACK for ${compositionId} answers an operation that is no longer running`)],
    };
  }
  const operation = found;
  const effects: OperationEffect[] = [];
  if (answered && ack.responseTo !== null && ack.replicaId !== null) {
    // A replica that answered a prime did work: its loss may leave work behind (needsHandOver).
    effects.push({
      kind: 'RECORD_ANSWER',
      messageId: ack.responseTo,
      participantId: ack.participantId,
      replicaId: ack.replicaId,
    });
  }
  let owned = 0;
  const elementStateMap = Object.fromEntries(
    Object.entries(target.elementStateMap).map(([name, state]): [string, NodeTemplateState] => {
      if (state.participantId !== ack.participantId) {
        return [name, state];
      }
      owned += 1;
      return [
        name,
        {
          ...state,
          state: ack.compositionState,
          message: ack.message?.slice(0, MAX_PRIME_MESSAGE_LENGTH) ?? null,
          outProperties: ack.outProperties.get(name) ?? state.outProperties,
        },
      ];
    }),
  );
  if (owned === 0) {
    return {
      target,
      operation,
      operations: [],
      effects: [
        ...effects,
        ignore('NOT_OWNER', `PRIME_ACK from ${ack.participantId} which owns nothing in ${compositionId}`),
      ],
    };
  }
  effects.push(
    recordEvent('PARTICIPANT_RESULT', {
      participantId: ack.participantId,
      state: ack.compositionState,
      result: ack.stateChangeResult,
    }),
  );
  const order = operation.order;
  const done = DEFINITION_ORDER_EFFECT[order].done;
  const updated: CompositionDefinition = { ...target, elementStateMap, lastMsg: now };
  if (ack.stateChangeResult === 'FAILED') {
    effects.push(recordEvent('FAILED', { message: ack.message }), {
      kind: 'COUNT_FINISHED',
      order,
      result: 'FAILED',
      seconds: null,
    });
    const failed: DefinitionOperation = { ...operation, state: 'FAILED', finishedAt: now };
    return {
      target: { ...updated, stateChangeResult: 'FAILED' },
      operation: failed,
      operations: [{ operation: failed, isNew: false }],
      effects,
    };
  }
  if (!Object.values(elementStateMap).every((state) => state.state === done)) {
    return { target: updated, operation, operations: [], effects };
  }
  effects.push({ kind: 'SYNC_DEFINITION' }, recordEvent('COMPLETED', { state: done }), {
    kind: 'COUNT_FINISHED',
    order,
    result: 'COMPLETED',
    seconds: (now - operation.startedAt) / 1000,
  });
  const completed: DefinitionOperation = { ...operation, state: 'COMPLETED', finishedAt: now };
  return {
    target: { ...updated, state: done, stateChangeResult: 'NO_ERROR', revisionId: context.newId() },
    operation: completed,
    operations: [{ operation: completed, isNew: false }],
    effects,
  };
}

/**
 * Cancels a running prime or deprime: the definition is left PRIMING/DEPRIMING with FAILED, ONAP's
 * state from which PRIME and DEPRIME both apply; answers that arrive later are stale. Refused (not thrown) when
 * none runs, as an instance's cancel is: the shell answers the refusal as its DomainError (`refusalError`).
 */
export function cancelDefinitionOperation(
  target: CompositionDefinition,
  running: DefinitionOperation | null,
  now: number,
): DefinitionStep | Refusal {
  const refused = definitionNothingRunsRefusal('cancel', target, running !== null);
  if (refused !== null) {
    return refused;
  }
  const operation: DefinitionOperation = { ...running!, state: 'CANCELLED', finishedAt: now };
  return {
    target: { ...target, stateChangeResult: 'FAILED', lastMsg: now },
    operation,
    operations: [{ operation, isNew: false }],
    effects: [
      recordEvent('CANCELLED', {
        operationId: operation.operationId,
        order: operation.order,
        phase: null,
        rollback: false,
      }),
      { kind: 'COUNT_FINISHED', order: operation.order, result: 'CANCELLED', seconds: null },
      { kind: 'COUNT_CONTROL', control: 'CANCEL', order: operation.order, count: 1, rollback: false },
    ],
  };
}

/**
 * The element states a prime or deprime starts with: each node template goes to its participant and into the
 * order's transition, except those the runtime runs itself (wait conditions): no participant primes them, so
 * they take the order's final state at once and keep no participant (ONAP shows an element state map as usual).
 */
export function elementStatesForOrder(
  elementStateMap: Readonly<Record<string, NodeTemplateState>>,
  order: DefinitionOrder,
  assignment: ReadonlyMap<string, string>,
  runtimeRun: ReadonlySet<string>,
): Record<string, NodeTemplateState> {
  const { during, done } = DEFINITION_ORDER_EFFECT[order];
  return Object.fromEntries(
    Object.entries(elementStateMap).map(([name, state]): [string, NodeTemplateState] =>
      runtimeRun.has(name)
        ? [name, { ...state, participantId: null, state: done, message: null }]
        : [
            name,
            { ...state, participantId: assignment.get(name) ?? state.participantId, state: during, message: null },
          ],
    ),
  );
}

/** The participants that have not answered the running prime or deprime: they own node templates not yet done. */
export function silentPrimeParticipants(target: CompositionDefinition, order: DefinitionOrder): string[] {
  const { done } = DEFINITION_ORDER_EFFECT[order];
  return [
    ...new Set(
      Object.values(target.elementStateMap)
        .filter((state) => state.state !== done && state.participantId !== null)
        .map((state) => state.participantId!),
    ),
  ].sort();
}

/**
 * Resend of a silent prime or deprime (ONAP's maxWaitMs/maxRetryCount, as for a phase): once nothing moved for
 * maxWaitMs (doubling at each attempt, up to maxRetryCount), the message goes out again under its messageId to
 * the participants that have not answered, so one that did the work just answers again; the deadline stays.
 */
function resendPrime(
  target: CompositionDefinition,
  running: DefinitionOperation | null,
  input: Extract<DefinitionInput, { kind: 'SUPERVISE' }>,
  now: number,
): DefinitionStep {
  const nothing: DefinitionStep = { target, operation: null, operations: [], effects: [] };
  if (!running || running.state !== 'RUNNING' || running.timedOut || input.messageId === null) {
    return nothing;
  }
  const participants = silentPrimeParticipants(target, running.order);
  const lastProgressAt = Math.max(running.control.progressAt, target.lastMsg);
  const resentSoFar = target.lastMsg > running.control.progressAt ? 0 : running.control.resent;
  const decision = decideResend(input.resend, { lastProgressAt, resentSoFar }, now);
  if (decision.kind !== 'RESEND' || participants.length === 0) {
    return nothing;
  }
  const operation: DefinitionOperation = {
    ...running,
    control: { ...running.control, resent: decision.attempt, progressAt: now },
  };
  return {
    target,
    operation,
    operations: [{ operation, isNew: false }],
    effects: [
      { kind: 'SEND_PRIME', order: running.order, resentMessageId: input.messageId, participants },
      recordEvent('RESENT', {
        attempt: decision.attempt,
        participantIds: participants,
        messageId: input.messageId,
        nextDueAt: decision.nextDueAt,
      }),
      { kind: 'COUNT_CONTROL', control: 'RESEND', order: running.order, count: 1 },
    ],
  };
}
