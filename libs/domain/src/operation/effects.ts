import type { AutomationComposition } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { DefinitionOrder } from '../definition/definition-lifecycle';
import type { HistoryEventBody, HistoryEventDetails, HistoryEventKind, HistoryOrder } from '../history/history-events';

/** Which history event a phase message is recorded as. */
export type DispatchEvent = Extract<
  HistoryEventKind,
  'PHASE_STARTED' | 'ELEMENTS_DISPATCHED' | 'PHASE_RESENT' | 'RETRY_STARTED'
>;

/** How an operation ended, as counted in the metrics. */
export type FinishResult = 'COMPLETED' | 'FAILED' | 'TIMEOUT' | 'CANCELLED';

/** Which composition a message carries: the instance's own, or the other one of a migration. */
export type CompositionRole = 'OWN' | 'OTHER';

/** Why a participant message changed nothing. */
export type IgnoreReason =
  | 'UNKNOWN_MESSAGE'
  | 'UNKNOWN_INSTANCE'
  | 'UNKNOWN_DEFINITION'
  | 'STALE'
  | 'NOT_OWNER'
  | 'UNKNOWN_ELEMENT'
  | 'OTHER_PHASE'
  | 'ALREADY_APPLIED';

/**
 * Send one phase (or stage) message. `instance` is what the message describes (a hand-over describes one
 * participant's share only); `describe` lists the elements it describes in transition (every transitional
 * element when null); `dispatched` are the elements of `phase` it sets going (recorded in the history).
 */
export interface SendPhaseEffect {
  readonly kind: 'SEND_PHASE';
  readonly instance: AutomationComposition;
  readonly phase: number;
  readonly firstPhase: boolean;
  readonly describe: ReadonlySet<string> | null;
  readonly dispatched: readonly string[];
  readonly event: DispatchEvent;
  /** A hand-over sends under the original messageId, so a participant never acts twice. */
  readonly resentMessageId: string | null;
  /**
   * false: the message is recorded (its elements count as dispatched) but not published, since every element
   * of the open phase it sets going is run by the runtime itself (a wait condition); absent: published.
   */
  readonly publish?: boolean;
  /**
   * A step of a replacing UPDATE (replace-steps.ts): the ONAP order the message carries and the start phase of its
   * elements; absent: the operation's own order and `phase`.
   */
  readonly step?: { readonly order: 'UNDEPLOY' | 'DELETE' | 'DEPLOY'; readonly startPhase: number };
}

/** Send the definition's PRIME or DEPRIME message. */
export interface SendPrimeEffect {
  readonly kind: 'SEND_PRIME';
  readonly order: DefinitionOrder;
  /** A resend after maxWaitMs goes out under the original messageId, to the silent participants only. */
  readonly resentMessageId?: string;
  readonly participants?: readonly string[];
}

/** Tell every participant the instance's state (PARTICIPANT_SYNC_MSG). */
export interface SyncInstanceEffect {
  readonly kind: 'SYNC_INSTANCE';
  readonly instance: AutomationComposition;
  readonly deleted: boolean;
  /** The composition the instance belongs to in the message. */
  readonly composition: CompositionRole;
  /** Further compositions the message lists (both sides of a finished migration). */
  readonly alsoCompositions: readonly CompositionRole[];
}

/** Tell every participant the definition's state (a PRIMED/COMMISSIONED definition SYNC). */
export interface SyncDefinitionEffect {
  readonly kind: 'SYNC_DEFINITION';
}

/** Append one line to the target's history. */
export type RecordEventEffect = HistoryEventBody & {
  readonly kind: 'RECORD_EVENT';
  /** The operation the event belongs to when it is not the step's (a superseded one). */
  readonly operationId?: string;
};

/** A replica answered a message: it took that message's work (see needsHandOver). */
export interface RecordAnswerEffect {
  readonly kind: 'RECORD_ANSWER';
  readonly messageId: string;
  readonly participantId: string;
  readonly replicaId: string;
}

/** An operation ended: count it, and observe its duration when it completed. */
export interface CountFinishedEffect {
  readonly kind: 'COUNT_FINISHED';
  readonly order: InstanceOrder | DefinitionOrder;
  readonly result: FinishResult;
  readonly seconds: number | null;
}

/** A message (or part of one) changed nothing: counted and logged at debug level. */
export interface IgnoreEffect {
  readonly kind: 'IGNORE';
  readonly reason: IgnoreReason;
  readonly message: string;
}

/** Control of running work happened (cancel, pause, resume, retry): counted in its Prometheus counter. */
export interface CountControlEffect {
  readonly kind: 'COUNT_CONTROL';
  readonly control: 'RESEND' | 'RETRY' | 'CANCEL' | 'PAUSE' | 'RESUME' | 'NO_PROGRESS';
  readonly order: InstanceOrder | DefinitionOrder;
  readonly count: number;
  /** CANCEL only: whether the reverse order follows. */
  readonly rollback?: boolean;
}

/** A signal reached a wait condition: counted by status and what it did (acm_signals_total). */
export interface CountSignalEffect {
  readonly kind: 'COUNT_SIGNAL';
  readonly elementId: string;
  readonly status: 'SUCCESS' | 'FAILURE';
  readonly effect: 'COUNTED' | 'COMPLETED' | 'FAILED' | 'DUPLICATE';
}

/** A health gate waits: ask the participant for a fresh report (ONAP's PARTICIPANT_STATUS_REQ, on the sync topic). */
export interface RequestStatusEffect {
  readonly kind: 'REQUEST_STATUS';
  readonly participantId: string;
}

/** What a step of an operation asks the world to do; the engine's shell turns each into rows and metrics. */
export type OperationEffect =
  | SendPhaseEffect
  | SendPrimeEffect
  | SyncInstanceEffect
  | SyncDefinitionEffect
  | RecordEventEffect
  | RecordAnswerEffect
  | CountFinishedEffect
  | CountControlEffect
  | CountSignalEffect
  | RequestStatusEffect
  | IgnoreEffect;

export function recordEvent<K extends HistoryEventKind>(
  event: K,
  detail: HistoryEventDetails[K],
  operationId?: string,
): RecordEventEffect {
  return {
    kind: 'RECORD_EVENT',
    event,
    detail,
    ...(operationId === undefined ? {} : { operationId }),
  } as RecordEventEffect;
}

/** The running operation a newer order replaces ends SUPERSEDED: recorded under its own operationId. */
export function supersededEvent(
  running: { readonly operationId: string; readonly order: HistoryOrder },
  by: HistoryOrder,
): RecordEventEffect {
  return recordEvent('SUPERSEDED', { operationId: running.operationId, order: running.order, by }, running.operationId);
}

export function ignore(reason: IgnoreReason, message: string): IgnoreEffect {
  return { kind: 'IGNORE', reason, message };
}
