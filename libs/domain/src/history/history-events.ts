import type { DefinitionOrder } from '../definition/definition-lifecycle';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { AcTypeState, DeployState, LockState, StateChangeResult } from '../states';
import type { ObservationChange } from '../observation/observation';
import type { RolloutEventKind } from '../rollout/rollout-history';
import type { Actor } from './actor';
import { runtimeActor } from './actor';

/** The order an event concerns: an instance's or a definition's. */
export type HistoryOrder = InstanceOrder | DefinitionOrder;

/** A phase message left: which phase, under which messageId, setting which elements going. */
export type DispatchDetail = {
  readonly phase: number;
  readonly messageId: string;
  readonly elementIds: readonly string[];
};

/** An instance operation completed: the instance's state it left. */
export type InstanceCompletedDetail = {
  readonly deployState: DeployState;
  readonly lockState: LockState;
};

/** A definition operation (prime, deprime) completed: the definition's state it left. */
export type DefinitionCompletedDetail = {
  readonly state: AcTypeState;
};

/** An instance's silent phase was sent again to its participants. */
export type InstanceResentDetail = {
  readonly phase: number | null;
  readonly attempt: number;
  readonly elementIds: readonly string[];
  readonly nextDueAt: number | null;
};

/** A definition's PRIME or DEPRIME was sent again to its silent participants. */
export type DefinitionResentDetail = {
  readonly attempt: number;
  readonly participantIds: readonly string[];
  readonly messageId: string;
  readonly nextDueAt: number | null;
};

/** One problem of an instance's properties, as the TOSCA reader names it. */
export type PropertyProblem = {
  readonly path: string;
  readonly rule: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
};

/**
 * Every kind of history event with its detail (type literals, not interfaces, so a detail is also a plain JSON
 * record to the generic readers: masking, log fields).
 *: the one vocabulary of `acm_event`, REST history, the live stream,
 * logs, metrics, traces, acmctl and the console. A kind added here, or a field renamed, fails to compile in each
 * reader that handles it, and `npm run check` fails while the OpenAPI document and the types generated from it lag.
 */
export type HistoryEventDetails = {
  /** An order started an operation (instance or definition). */
  readonly ORDERED: { readonly order: HistoryOrder };
  /**
   * An UPDATE replaces an element (a changed property its definition marks non-updatable: `forcedBy`) or removes an
   * orphan (left out of the body of a definition with `removeOrphans`).
   */
  readonly REPLACE_PLANNED: {
    readonly elementId: string;
    readonly change: 'REPLACE' | 'ORPHAN';
    /** The changed properties that cannot change in place; empty for an orphan. */
    readonly forcedBy: readonly string[];
    /** A create-before-destroy replace: the id of the new element; null otherwise. */
    readonly replacementId: string | null;
  };
  /** A running operation was replaced by a newer order of the same target (`supersede`, or a retry after TIMEOUT). */
  readonly SUPERSEDED: {
    readonly operationId: string;
    readonly order: HistoryOrder;
    /** The order that replaced it. */
    readonly by: HistoryOrder;
  };
  /** A start phase (or stage) opened: its first message left. */
  readonly PHASE_STARTED: DispatchDetail;
  /** More elements of the open phase were set going (dependencies done, a slot free, a resume). */
  readonly ELEMENTS_DISPATCHED: DispatchDetail;
  /** A lost replica's share of a phase was handed over, under its original messageId. */
  readonly PHASE_RESENT: DispatchDetail;
  /** A retry sent the failed elements again. */
  readonly RETRY_STARTED: DispatchDetail;
  /** A participant (or the runtime, for a wait condition) answered for one element. */
  readonly ELEMENT_RESULT: {
    readonly elementId: string;
    /** null: the runtime answered for an element it runs itself (a wait condition). */
    readonly participantId: string | null;
    readonly phase: number | null;
    readonly deployState: DeployState;
    readonly lockState: LockState;
    /** The element left the instance (a migration removed it, or a delete). */
    readonly removed?: true;
    /** A stage ACK: the element's next stage. */
    readonly nextStage?: number;
    readonly result: boolean;
    readonly message: string | null;
  };
  /** A participant answered a prime or deprime. */
  readonly PARTICIPANT_RESULT: {
    readonly participantId: string;
    readonly state: AcTypeState;
    readonly result: StateChangeResult;
  };
  /** Every element of the open phase answered. */
  readonly PHASE_COMPLETED: { readonly phase: number | null };
  readonly COMPLETED: InstanceCompletedDetail | DefinitionCompletedDetail;
  readonly FAILED: { readonly message: string | null };
  /** The operation passed its deadline; it stays running, so a late success still completes it. */
  readonly TIMEOUT: Record<string, never>;
  readonly CANCELLED: {
    readonly operationId: string;
    readonly order: HistoryOrder;
    /** The open phase (instances); null for a definition. */
    readonly phase: number | null;
    /** Whether the reverse order follows. */
    readonly rollback: boolean;
  };
  readonly PAUSED: { readonly phase: number | null };
  readonly RESUMED: { readonly phase: number | null; readonly pausedMs: number };
  /** A failed element result under a retry policy: the retry waits for its backoff. */
  readonly RETRY_SCHEDULED: {
    readonly attempt: number;
    readonly delayMs: number;
    readonly elementIds: readonly string[];
    readonly message: string | null;
  };
  readonly RETRY_ATTEMPT: { readonly attempt: number; readonly elementIds: readonly string[] };
  readonly RESENT: InstanceResentDetail | DefinitionResentDetail;
  readonly NO_PROGRESS: {
    readonly phase: number | null;
    readonly elementIds: readonly string[];
    readonly silentForMs: number;
  };
  /** An element answered DEPLOYED and has a health gate: it is deployed, not yet healthy, until the gate holds. */
  readonly GATE_STARTED: {
    readonly elementId: string;
    readonly condition: string;
    readonly bakeMs: number;
    readonly deadlineMs: number | null;
    readonly observed: string;
  };
  /** What a waiting gate's condition read changed: `reason` is the waiting reason the instance shows. */
  readonly GATE_OBSERVED: {
    readonly elementId: string;
    readonly holds: boolean;
    readonly observed: string;
    readonly reason: string;
  };
  /** The gate held for its bake time: the element is done, its dependants and the next phase may go. */
  readonly GATE_PASSED: { readonly elementId: string; readonly observed: string; readonly waitedMs: number };
  /** The gate missed its deadline: the element fails under the operation's failure and retry rules. */
  readonly GATE_FAILED: { readonly elementId: string; readonly observed: string; readonly reason: string };
  readonly WAIT_STARTED: { readonly elementId: string; readonly count: number; readonly timeoutMs: number | null };
  readonly WAIT_TIMED_OUT: {
    readonly elementId: string;
    readonly successes: number;
    readonly count: number;
    readonly timeoutMs: number | null;
  };
  readonly SIGNAL_RECEIVED: {
    readonly elementId: string;
    readonly status: 'SUCCESS' | 'FAILURE';
    readonly id: string;
    readonly reason: string | null;
    readonly effect: 'COUNTED' | 'COMPLETED' | 'FAILED';
    readonly successes: number;
    readonly count: number;
  };
  readonly WAIT_COMPLETED: { readonly elementId: string; readonly successes: number; readonly reason: string | null };
  readonly WAIT_FAILED: { readonly elementId: string; readonly successes: number; readonly reason: string | null };
  /**
   * The references (get_attribute, get_property) of an element set going were resolved: each value by where it is
   * written in its properties (`baseUrl`, `conf.db.url`), sensitive ones masked.
   */
  readonly REFERENCES_RESOLVED: { readonly elementId: string; readonly values: Readonly<Record<string, unknown>> };
  /** A nested-composition element set going: its child instance must run `order` (null: the child is not made yet). */
  readonly CHILD_ORDERED: {
    readonly elementId: string;
    readonly order: string;
    readonly childInstanceId: string | null;
  };
  /** The child instance of a nested-composition element ended its order; the element completes or fails with it. */
  readonly CHILD_ENDED: {
    readonly elementId: string;
    readonly childInstanceId: string;
    readonly order: string;
    readonly result: boolean;
    readonly message: string | null;
  };
  /** This instance is the child of a nested-composition element, and that element's instance ordered it. */
  readonly PARENT_ORDERED: {
    readonly parentInstanceId: string;
    readonly parentElementId: string;
    readonly order: string;
  };
  /** A participant's observation changed a deployed element's health (Healthy, Degraded, Missing, Unknown). */
  readonly HEALTH_CHANGED: Extract<ObservationChange, { readonly event: 'HEALTH_CHANGED' }>['detail'];
  /** The desired properties that differ from the observed ones changed (under drift warn or correct). */
  readonly DRIFTED: Extract<ObservationChange, { readonly event: 'DRIFTED' }>['detail'];
  /**
   * A rollout's own history event, on the feed too (live stream, subscriptions): its subject is the rollout. The
   * same fields as `GET /v2/rollouts/{id}/history` gives, but `at` and `actor`, which every history event has.
   */
  readonly ROLLOUT: {
    readonly kind: RolloutEventKind;
    /** The batch, from 1; null for an event of the whole rollout. */
    readonly batch: number | null;
    readonly instanceId: string | null;
    readonly state: string | null;
    readonly reason: string | null;
  };
  /** An order went through maintenance windows that held it, by a manual override: who, why, and which windows. */
  readonly WINDOW_OVERRIDDEN: {
    readonly order: string;
    readonly reason: string;
    readonly windows: readonly string[];
  };
  /** An order an approval rule holds was stored to wait for approvals; its actor is the orderer. */
  readonly APPROVAL_REQUESTED: ApprovalEventDetail;
  /** One approval of a waiting order (its actor the approver); with the last one needed, the order is submitted. */
  readonly APPROVED: ApprovalEventDetail;
  /** A waiting order was rejected (its actor the one who rejected, `reason` theirs); it never runs. */
  readonly APPROVAL_REJECTED: ApprovalEventDetail;
  /** A waiting order's time ran out before its approvals arrived (the runtime's decision); it never runs. */
  readonly APPROVAL_EXPIRED: ApprovalEventDetail;
  /** The runtime re-applies elements found Missing or drifted under `drift: correct` (a DEPLOY of just those). */
  readonly HEAL: { readonly elementIds: readonly string[] };
  /** A heal completed: the elements it re-applied (and their dependants) are deployed again. Its operation's. */
  readonly HEALED: { readonly elementIds: readonly string[] };
  /** An element needing healing was healed `heal_max_per_hour` times within the hour: it is left as it is. */
  readonly HEALING_STOPPED: {
    readonly elementId: string;
    readonly heals: number;
    readonly maxPerHour: number;
  };
  /** PROPERTY_VALIDATION=warn accepted an instance whose properties have problems. */
  readonly PROPERTY_PROBLEMS: {
    readonly order: string;
    readonly mode: 'warn';
    readonly problems: readonly PropertyProblem[];
  };
  /**
   * A request was refused (401: no or wrong credentials; 403: a role it lacks). Never the password or the token: the
   * user name given, if any, is the actor's. Its subject is REFUSAL_SUBJECT (it concerns no definition or instance).
   */
  readonly ACCESS_REFUSED: {
    readonly status: 401 | 403;
    readonly reason: string;
    readonly method: string;
    readonly path: string;
    /** The client's address as the runtime sees it; null when the socket has none. */
    readonly source: string | null;
    /** Refusals of the same source left unrecorded (over the limit) since the one recorded before this one. */
    readonly unrecorded: number;
  };
};

/** What the history says of an approval: the order waiting, how many approvals it needs, and who gave them so far. */
export type ApprovalEventDetail = {
  readonly approvalId: string;
  readonly order: string;
  readonly required: number;
  /** The approvers so far, in order; with the last one needed, those whose approvals ran the order. */
  readonly approvers: readonly string[];
  /** The orderer, also on events whose actor is someone else. */
  readonly orderedBy: string;
  /** A rejection's reason, an expiry's, or why the approved order was refused when it ran; null otherwise. */
  readonly reason: string | null;
};

export type HistoryEventKind = keyof HistoryEventDetails;

export type HistoryEventDetail<K extends HistoryEventKind> = HistoryEventDetails[K];

/** What happened, as a discriminated union on `event`: narrowing on the kind types the detail. */
export type HistoryEventBody = {
  readonly [K in HistoryEventKind]: { readonly event: K; readonly detail: HistoryEventDetails[K] };
}[HistoryEventKind];

/** The body of one kind. */
export type HistoryEventOf<K extends HistoryEventKind> = Extract<HistoryEventBody, { readonly event: K }>;

const KINDS: { readonly [K in HistoryEventKind]: true } = {
  ORDERED: true,
  REPLACE_PLANNED: true,
  SUPERSEDED: true,
  PHASE_STARTED: true,
  ELEMENTS_DISPATCHED: true,
  PHASE_RESENT: true,
  RETRY_STARTED: true,
  ELEMENT_RESULT: true,
  PARTICIPANT_RESULT: true,
  PHASE_COMPLETED: true,
  COMPLETED: true,
  FAILED: true,
  TIMEOUT: true,
  CANCELLED: true,
  PAUSED: true,
  RESUMED: true,
  RETRY_SCHEDULED: true,
  RETRY_ATTEMPT: true,
  RESENT: true,
  NO_PROGRESS: true,
  WAIT_STARTED: true,
  WAIT_TIMED_OUT: true,
  SIGNAL_RECEIVED: true,
  WAIT_COMPLETED: true,
  WAIT_FAILED: true,
  REFERENCES_RESOLVED: true,
  PROPERTY_PROBLEMS: true,
  ACCESS_REFUSED: true,
  CHILD_ORDERED: true,
  CHILD_ENDED: true,
  PARENT_ORDERED: true,
  GATE_STARTED: true,
  GATE_OBSERVED: true,
  GATE_PASSED: true,
  GATE_FAILED: true,
  HEALTH_CHANGED: true,
  DRIFTED: true,
  WINDOW_OVERRIDDEN: true,
  ROLLOUT: true,
  HEAL: true,
  HEALED: true,
  HEALING_STOPPED: true,
  APPROVAL_REQUESTED: true,
  APPROVED: true,
  APPROVAL_REJECTED: true,
  APPROVAL_EXPIRED: true,
};

/** Every kind, in the order above (the object literal makes a missing or unknown kind a compile error). */
export const HISTORY_EVENT_KINDS = Object.keys(KINDS) as readonly HistoryEventKind[];

/** The kinds that end an operation, with the operation state each leaves (TIMEOUT flags it and leaves it running). */
export const OPERATION_ENDS = {
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
  SUPERSEDED: 'SUPERSEDED',
} as const satisfies Partial<Record<HistoryEventKind, string>>;

export function isHistoryEventKind(value: unknown): value is HistoryEventKind {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(KINDS, value);
}

/** The subject of ACCESS_REFUSED events (the nil UUID): a refused request concerns no definition or instance. */
export const REFUSAL_SUBJECT = '00000000-0000-0000-0000-000000000000';

/** One line of history: who caused what, on which subject and operation, when. */
export type OperationEvent = HistoryEventBody & {
  readonly subjectId: string;
  /** The operation the event belongs to; null for one that concerns the subject alone (PROPERTY_PROBLEMS). */
  readonly operationId: string | null;
  readonly actor: Actor;
  /** Epoch milliseconds. */
  readonly at: number;
};

export type StoredEvent = OperationEvent & { readonly sequence: number };

/** The detail of an event of the given kind, or null for another kind. */
export function detailOf<K extends HistoryEventKind>(event: HistoryEventBody, kind: K): HistoryEventDetails[K] | null {
  return event.event === kind ? (event.detail as HistoryEventDetails[K]) : null;
}

/**
 * The actor of one event of a step caused by `cause`: a supervision pass names, per event, the rule that made it
 * (one pass may resend a phase, start a retry and report elements without progress).
 */
export function actorOfEvent(cause: Actor, kind: HistoryEventKind): Actor {
  if (cause.kind !== 'runtime' || cause.rule !== 'supervision') {
    return cause;
  }
  switch (kind) {
    case 'RESENT':
    case 'PHASE_RESENT':
      return runtimeActor('resend');
    case 'RETRY_STARTED':
    case 'RETRY_ATTEMPT':
    case 'RETRY_SCHEDULED':
      return runtimeActor('retry');
    case 'NO_PROGRESS':
      return runtimeActor('no-progress');
    case 'TIMEOUT':
    case 'WAIT_TIMED_OUT':
      return runtimeActor('timeout');
    default:
      return cause;
  }
}

/** The phase message an event records as sent (PHASE_STARTED, ELEMENTS_DISPATCHED, PHASE_RESENT, RETRY_STARTED). */
export function dispatchOf(event: HistoryEventBody): DispatchDetail | null {
  switch (event.event) {
    case 'PHASE_STARTED':
    case 'ELEMENTS_DISPATCHED':
    case 'PHASE_RESENT':
    case 'RETRY_STARTED':
      return event.detail;
    default:
      return null;
  }
}
