import type { Actor, HistoryEventDetails, HistoryEventKind, RolloutEventKind } from '@acm/domain';
import {
  AC_TYPE_STATES,
  DEPLOY_STATES,
  DRIFT_MODES,
  HEALTH_STATES,
  HISTORY_EVENT_KINDS,
  INSTANCE_ORDERS,
  LOCK_STATES,
  ROLLOUT_EVENT_KINDS,
  RUNTIME_RULES,
  STATE_CHANGE_RESULTS,
} from '@acm/domain';
import type {
  AcTypeState,
  DeployState,
  DriftMode,
  HealthState,
  HistoryOrder,
  LockState,
  RuntimeRule,
  StateChangeResult,
} from '@acm/domain';
import type { Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ToscaProblem } from './instance.dto';

/*
 * One schema per history event kind, oneOf with a discriminator on `event`: what acmctl and the console generate
 * their types from. Each detail class is checked against the domain's union at compile time (`SAME` below), so a
 * kind added to `HistoryEventDetails` or a field renamed there fails to compile here until its schema follows.
 */

const ORDERS = [...INSTANCE_ORDERS, 'PRIME', 'DEPRIME'] as const;
const ORDER = { enum: ORDERS, description: 'An instance order, or PRIME / DEPRIME for a definition' } as const;
const PHASE = { type: 'integer', nullable: true, description: 'The start phase (or stage); null: none' } as const;
const ELEMENT_IDS: ApiPropertyOptions = { type: [String], description: 'Element ids' };
const UUID = { format: 'uuid' } as const;

// ---- Who caused an event ----

export class RequestActorView {
  @ApiProperty({ enum: ['request'] })
  readonly kind!: 'request';

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The authenticated principal (HTTP Basic user); null for a signed signal URL',
  })
  readonly user!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'X-ONAP-RequestID of the request' })
  readonly requestId!: string | null;
}

export class ParticipantActorView {
  @ApiProperty({ enum: ['participant'] })
  readonly kind!: 'participant';

  @ApiProperty()
  readonly participantId!: string;

  @ApiProperty({ type: String, nullable: true })
  readonly replicaId!: string | null;
}

export class RuntimeActorView {
  @ApiProperty({ enum: ['runtime'] })
  readonly kind!: 'runtime';

  @ApiProperty({ enum: RUNTIME_RULES, description: 'The rule of the runtime that caused the event' })
  readonly rule!: RuntimeRule;
}

export class UnrecordedActorView {
  @ApiProperty({ enum: ['unrecorded'], description: 'Recorded before the runtime recorded actors' })
  readonly kind!: 'unrecorded';
}

const ACTOR_VIEWS = {
  request: RequestActorView,
  participant: ParticipantActorView,
  runtime: RuntimeActorView,
  unrecorded: UnrecordedActorView,
} as const satisfies { readonly [K in Actor['kind']]: Type<Extract<Actor, { kind: K }>> };

// ---- The details ----

export class OrderedDetail {
  @ApiProperty(ORDER)
  readonly order!: HistoryOrder;
}

export class ReplacePlannedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ enum: ['REPLACE', 'ORPHAN'] })
  readonly change!: 'REPLACE' | 'ORPHAN';

  @ApiProperty({
    type: [String],
    description: 'The changed properties its definition marks `updatable: false`; empty for an orphan',
  })
  readonly forcedBy!: readonly string[];

  @ApiProperty({
    ...UUID,
    nullable: true,
    description: 'A create-before-destroy replace: the id of the new element',
  })
  readonly replacementId!: string | null;
}

export class SupersededDetail {
  @ApiProperty({ ...UUID, description: 'The operation that ended SUPERSEDED' })
  readonly operationId!: string;

  @ApiProperty(ORDER)
  readonly order!: HistoryOrder;

  @ApiProperty({ ...ORDER, description: 'The order that replaced it' })
  readonly by!: HistoryOrder;
}

export class DispatchDetailView {
  @ApiProperty({ type: 'integer' })
  readonly phase!: number;

  @ApiProperty({ ...UUID, description: 'The messageId the phase message left under' })
  readonly messageId!: string;

  @ApiProperty({ ...ELEMENT_IDS, description: 'The elements the message set going' })
  readonly elementIds!: readonly string[];
}

export class ElementResultDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ type: String, nullable: true, description: 'null: the runtime answered (a wait condition)' })
  readonly participantId!: string | null;

  @ApiProperty(PHASE)
  readonly phase!: number | null;

  @ApiProperty({ enum: DEPLOY_STATES, enumName: 'DeployState' })
  readonly deployState!: DeployState;

  @ApiProperty({ enum: LOCK_STATES, enumName: 'LockState' })
  readonly lockState!: LockState;

  @ApiPropertyOptional({ enum: [true], description: 'The element left the instance' })
  readonly removed?: true;

  @ApiPropertyOptional({ type: 'integer', description: "A stage ACK: the element's next stage" })
  readonly nextStage?: number;

  @ApiProperty({ description: 'false: the participant reported a failure' })
  readonly result!: boolean;

  @ApiProperty({ type: String, nullable: true })
  readonly message!: string | null;
}

export class ParticipantResultDetail {
  @ApiProperty()
  readonly participantId!: string;

  @ApiProperty({ enum: AC_TYPE_STATES, enumName: 'AcTypeState' })
  readonly state!: AcTypeState;

  @ApiProperty({ enum: STATE_CHANGE_RESULTS, enumName: 'StateChangeResult' })
  readonly result!: StateChangeResult;
}

export class PhaseDetail {
  @ApiProperty(PHASE)
  readonly phase!: number | null;
}

export class InstanceCompletedDetail {
  @ApiProperty({ enum: DEPLOY_STATES, enumName: 'DeployState' })
  readonly deployState!: DeployState;

  @ApiProperty({ enum: LOCK_STATES, enumName: 'LockState' })
  readonly lockState!: LockState;
}

export class DefinitionCompletedDetail {
  @ApiProperty({ enum: AC_TYPE_STATES, enumName: 'AcTypeState' })
  readonly state!: AcTypeState;
}

export class FailedDetail {
  @ApiProperty({ type: String, nullable: true })
  readonly message!: string | null;
}

/** TIMEOUT carries nothing but its kind. */
export class TimeoutDetail {}

export class CancelledDetail {
  @ApiProperty(UUID)
  readonly operationId!: string;

  @ApiProperty(ORDER)
  readonly order!: HistoryOrder;

  @ApiProperty(PHASE)
  readonly phase!: number | null;

  @ApiProperty({ description: 'Whether the reverse order follows' })
  readonly rollback!: boolean;
}

export class ResumedDetail {
  @ApiProperty(PHASE)
  readonly phase!: number | null;

  @ApiProperty({ type: 'integer' })
  readonly pausedMs!: number;
}

export class RetryScheduledDetail {
  @ApiProperty({ type: 'integer' })
  readonly attempt!: number;

  @ApiProperty({ type: 'integer' })
  readonly delayMs!: number;

  @ApiProperty(ELEMENT_IDS)
  readonly elementIds!: readonly string[];

  @ApiProperty({ type: String, nullable: true })
  readonly message!: string | null;
}

export class RetryAttemptDetail {
  @ApiProperty({ type: 'integer' })
  readonly attempt!: number;

  @ApiProperty(ELEMENT_IDS)
  readonly elementIds!: readonly string[];
}

export class InstanceResentDetail {
  @ApiProperty(PHASE)
  readonly phase!: number | null;

  @ApiProperty({ type: 'integer' })
  readonly attempt!: number;

  @ApiProperty(ELEMENT_IDS)
  readonly elementIds!: readonly string[];

  @ApiProperty({ type: 'integer', nullable: true, description: 'Epoch ms of the next resend, if any' })
  readonly nextDueAt!: number | null;
}

export class DefinitionResentDetail {
  @ApiProperty({ type: 'integer' })
  readonly attempt!: number;

  @ApiProperty({ type: [String], description: 'The participants it was sent to again' })
  readonly participantIds!: readonly string[];

  @ApiProperty(UUID)
  readonly messageId!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Epoch ms of the next resend, if any' })
  readonly nextDueAt!: number | null;
}

export class NoProgressDetail {
  @ApiProperty(PHASE)
  readonly phase!: number | null;

  @ApiProperty(ELEMENT_IDS)
  readonly elementIds!: readonly string[];

  @ApiProperty({ type: 'integer' })
  readonly silentForMs!: number;
}

export class WaitStartedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ type: 'integer' })
  readonly count!: number;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly timeoutMs!: number | null;
}

export class GateStartedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ description: 'The health condition (metadata.health_condition)' })
  readonly condition!: string;

  @ApiProperty({ type: 'integer', description: 'How long the condition must hold, in ms' })
  readonly bakeMs!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'How long the gate may wait, in ms' })
  readonly deadlineMs!: number | null;

  @ApiProperty({ description: 'What the condition read when the element answered DEPLOYED' })
  readonly observed!: string;
}

export class GateObservedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty()
  readonly holds!: boolean;

  @ApiProperty({ description: 'What the condition read (`ready=false, replicas=2`)' })
  readonly observed!: string;

  @ApiProperty({ description: 'The waiting reason: `waiting for X: condition Y (observed Z)`' })
  readonly reason!: string;
}

export class GatePassedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty()
  readonly observed!: string;

  @ApiProperty({ type: 'integer', description: 'From the DEPLOYED answer to the pass, in ms' })
  readonly waitedMs!: number;
}

export class GateFailedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty()
  readonly observed!: string;

  @ApiProperty()
  readonly reason!: string;
}

export class WaitTimedOutDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ type: 'integer' })
  readonly successes!: number;

  @ApiProperty({ type: 'integer' })
  readonly count!: number;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly timeoutMs!: number | null;
}

export class SignalReceivedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ enum: ['SUCCESS', 'FAILURE'] })
  readonly status!: 'SUCCESS' | 'FAILURE';

  @ApiProperty({ description: "The signal's id" })
  readonly id!: string;

  @ApiProperty({ type: String, nullable: true })
  readonly reason!: string | null;

  @ApiProperty({ enum: ['COUNTED', 'COMPLETED', 'FAILED'] })
  readonly effect!: 'COUNTED' | 'COMPLETED' | 'FAILED';

  @ApiProperty({ type: 'integer' })
  readonly successes!: number;

  @ApiProperty({ type: 'integer' })
  readonly count!: number;
}

export class WaitEndedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ type: 'integer' })
  readonly successes!: number;

  @ApiProperty({ type: String, nullable: true })
  readonly reason!: string | null;
}

export class HealthChangedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ enum: HEALTH_STATES })
  readonly health!: HealthState;

  @ApiProperty({ enum: HEALTH_STATES })
  readonly previous!: HealthState;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why, as the participant reported it' })
  readonly reason!: string | null;
}

export class DriftedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ type: [String], description: 'JSON pointers of the desired properties that differ from the observed' })
  readonly paths!: readonly string[];

  @ApiProperty({ type: [String], description: 'The pointers before this observation' })
  readonly previous!: readonly string[];

  @ApiProperty({ enum: DRIFT_MODES })
  readonly mode!: DriftMode;
}

export class HealDetail {
  @ApiProperty({ type: [String], format: 'uuid', description: 'The elements deployed again, dependents included' })
  readonly elementIds!: readonly string[];
}

export class HealedDetail {
  @ApiProperty({ type: [String], format: 'uuid', description: 'The elements the completed heal deployed again' })
  readonly elementIds!: readonly string[];
}

export class HealingStoppedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({ description: 'Heals of the element within the last hour' })
  readonly heals!: number;

  @ApiProperty({ description: 'heal_max_per_hour of the element' })
  readonly maxPerHour!: number;
}

export class PropertyProblemsDetail {
  @ApiProperty({ description: 'The request: CREATE, UPDATE, MIGRATE, ...' })
  readonly order!: string;

  @ApiProperty({ enum: ['warn'] })
  readonly mode!: 'warn';

  @ApiProperty({ type: [ToscaProblem] })
  readonly problems!: readonly ToscaProblem[];
}

export class ReferencesResolvedDetail {
  @ApiProperty(UUID)
  readonly elementId!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The value each reference gave, by where it is written in the properties; sensitive ones masked',
    example: { baseUrl: 'http://db.example:5432' },
  })
  readonly values!: Readonly<Record<string, unknown>>;
}

export class AccessRefusedDetail {
  @ApiProperty({ enum: [401, 403], description: '401: no or wrong credentials; 403: a role the caller lacks' })
  readonly status!: 401 | 403;

  @ApiProperty({ description: 'Why, as the answer said it (never the password or the token)' })
  readonly reason!: string;

  @ApiProperty({ example: 'DELETE' })
  readonly method!: string;

  @ApiProperty({ example: '/onap/policy/clamp/acm/v2/compositions' })
  readonly path!: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'The client address', example: '192.0.2.10' })
  readonly source!: string | null;

  @ApiProperty({
    type: 'integer',
    description: 'Refusals of the same source over the limit, not recorded, since the one recorded before this one',
  })
  readonly unrecorded!: number;
}

export class ChildOrderedDetail {
  @ApiProperty({ ...UUID, description: 'The nested-composition element' })
  readonly elementId!: string;

  @ApiProperty({ type: String, description: 'The order its child instance must run', example: 'DEPLOY' })
  readonly order!: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The child instance; null: not made yet' })
  readonly childInstanceId!: string | null;
}

export class ChildEndedDetail {
  @ApiProperty({ ...UUID, description: 'The nested-composition element' })
  readonly elementId!: string;

  @ApiProperty({ ...UUID, description: 'The child instance' })
  readonly childInstanceId!: string;

  @ApiProperty({ type: String, description: 'The order the child ran', example: 'DEPLOY' })
  readonly order!: string;

  @ApiProperty({ type: Boolean, description: 'Whether the child completed it' })
  readonly result!: boolean;

  @ApiProperty({ type: String, nullable: true })
  readonly message!: string | null;
}

export class ParentOrderedDetail {
  @ApiProperty({ ...UUID, description: 'The parent instance that owns this (child) instance' })
  readonly parentInstanceId!: string;

  @ApiProperty({ ...UUID, description: 'The nested-composition element of the parent' })
  readonly parentElementId!: string;

  @ApiProperty({ type: String, description: 'The order the parent gave', example: 'DEPLOY' })
  readonly order!: string;
}

export class WindowOverriddenDetail {
  @ApiProperty({ type: String, description: 'The order given through the windows', example: 'DEPLOY' })
  readonly order!: string;

  @ApiProperty({ type: String, description: 'Why, as the override gave it', example: 'emergency fix CHG-1234' })
  readonly reason!: string;

  @ApiProperty({ type: [String], description: 'The windows that held the order', example: ['weekend-freeze'] })
  readonly windows!: readonly string[];
}

export class ApprovalDetail {
  @ApiProperty({ type: String, format: 'uuid', description: 'The approval (GET /v2/approvals)' })
  readonly approvalId!: string;

  @ApiProperty({ type: String, description: 'The order waiting for approvals', example: 'DEPLOY' })
  readonly order!: string;

  @ApiProperty({ type: 'integer', description: 'How many approvals the order needs', example: 2 })
  readonly required!: number;

  @ApiProperty({ type: [String], description: 'The approvers so far, in order', example: ['carol'] })
  readonly approvers!: readonly string[];

  @ApiProperty({ type: String, description: 'Who gave the order', example: 'alice' })
  readonly orderedBy!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "A rejection's reason, an expiry's, or why the approved order was refused when it ran",
  })
  readonly reason!: string | null;
}

export class RolloutDetail {
  @ApiProperty({ enum: ROLLOUT_EVENT_KINDS, description: "The rollout event, as the rollout's history names it" })
  readonly kind!: RolloutEventKind;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The batch, from 1; null for the whole rollout' })
  readonly batch!: number | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  readonly instanceId!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The rollout's new state, or the instance's" })
  readonly state!: string | null;

  @ApiProperty({ type: String, nullable: true })
  readonly reason!: string | null;
}

/** The detail schema of each kind: one class, or the classes of which the detail is one. */
const DETAILS = {
  ORDERED: [OrderedDetail],
  REPLACE_PLANNED: [ReplacePlannedDetail],
  SUPERSEDED: [SupersededDetail],
  PHASE_STARTED: [DispatchDetailView],
  ELEMENTS_DISPATCHED: [DispatchDetailView],
  PHASE_RESENT: [DispatchDetailView],
  RETRY_STARTED: [DispatchDetailView],
  ELEMENT_RESULT: [ElementResultDetail],
  PARTICIPANT_RESULT: [ParticipantResultDetail],
  PHASE_COMPLETED: [PhaseDetail],
  COMPLETED: [InstanceCompletedDetail, DefinitionCompletedDetail],
  FAILED: [FailedDetail],
  TIMEOUT: [TimeoutDetail],
  CANCELLED: [CancelledDetail],
  PAUSED: [PhaseDetail],
  RESUMED: [ResumedDetail],
  RETRY_SCHEDULED: [RetryScheduledDetail],
  RETRY_ATTEMPT: [RetryAttemptDetail],
  RESENT: [InstanceResentDetail, DefinitionResentDetail],
  NO_PROGRESS: [NoProgressDetail],
  GATE_STARTED: [GateStartedDetail],
  GATE_OBSERVED: [GateObservedDetail],
  GATE_PASSED: [GatePassedDetail],
  GATE_FAILED: [GateFailedDetail],
  WAIT_STARTED: [WaitStartedDetail],
  WAIT_TIMED_OUT: [WaitTimedOutDetail],
  SIGNAL_RECEIVED: [SignalReceivedDetail],
  WAIT_COMPLETED: [WaitEndedDetail],
  WAIT_FAILED: [WaitEndedDetail],
  REFERENCES_RESOLVED: [ReferencesResolvedDetail],
  PROPERTY_PROBLEMS: [PropertyProblemsDetail],
  ACCESS_REFUSED: [AccessRefusedDetail],
  CHILD_ORDERED: [ChildOrderedDetail],
  CHILD_ENDED: [ChildEndedDetail],
  PARENT_ORDERED: [ParentOrderedDetail],
  HEALTH_CHANGED: [HealthChangedDetail],
  DRIFTED: [DriftedDetail],
  WINDOW_OVERRIDDEN: [WindowOverriddenDetail],
  ROLLOUT: [RolloutDetail],
  HEAL: [HealDetail],
  HEALED: [HealedDetail],
  HEALING_STOPPED: [HealingStoppedDetail],
  APPROVAL_REQUESTED: [ApprovalDetail],
  APPROVED: [ApprovalDetail],
  APPROVAL_REJECTED: [ApprovalDetail],
  APPROVAL_EXPIRED: [ApprovalDetail],
} as const satisfies { readonly [K in HistoryEventKind]: readonly [Type<unknown>, ...Array<Type<unknown>>] };

// ---- The compile-time check: each schema class says exactly what the domain's type says ----

/** A class instance type as a plain object type (an empty class then matches an empty record). */
type Plain<T> = { [K in keyof T]: T[K] };
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type DetailOfViews<K extends HistoryEventKind> = Plain<InstanceType<(typeof DETAILS)[K][number]>>;
type ActorOfView<K extends Actor['kind']> = Plain<InstanceType<(typeof ACTOR_VIEWS)[K]>>;

// A `false` here names the kind whose schema no longer matches the domain.
const SAME: {
  readonly details: { readonly [K in HistoryEventKind]: Same<DetailOfViews<K>, Plain<HistoryEventDetails[K]>> };
  readonly actors: { readonly [K in Actor['kind']]: Same<ActorOfView<K>, Extract<Actor, { kind: K }>> };
} = {
  details: {
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
    GATE_STARTED: true,
    GATE_OBSERVED: true,
    GATE_PASSED: true,
    GATE_FAILED: true,
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
  },
  actors: { request: true, participant: true, runtime: true, unrecorded: true },
};
void SAME;

// ---- One envelope per kind ----

const TIME = { description: 'UTC', example: '2026-12-01 11:30:15.123' } as const;

const refs = (classes: readonly Type<unknown>[]): SchemaObject['oneOf'] =>
  classes.map((view) => ({ $ref: getSchemaPath(view) }));

const ACTOR_SCHEMA: SchemaObject = {
  oneOf: refs(Object.values(ACTOR_VIEWS)),
  discriminator: {
    propertyName: 'kind',
    mapping: Object.fromEntries(Object.entries(ACTOR_VIEWS).map(([kind, view]) => [kind, getSchemaPath(view)])),
  },
  description: 'Who caused the event: a request (its user and request id), a participant, or a rule of the runtime',
};

const pascal = (kind: string): string =>
  kind
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** The schema of one kind's event: the shared fields, `event` fixed to the kind, and its detail. */
function eventView(kind: HistoryEventKind): Type<unknown> {
  const details: readonly Type<unknown>[] = DETAILS[kind];
  const [only] = details;
  const detail = details.length === 1 && only !== undefined ? { type: only } : { oneOf: refs(details) };
  @ApiExtraModels(...details, ...Object.values(ACTOR_VIEWS))
  class EventOfKind {
    @ApiProperty({ type: 'integer' })
    readonly sequence!: number;

    @ApiProperty({ ...UUID, description: 'The definition or instance' })
    readonly subjectId!: string;

    @ApiProperty({ ...UUID, type: String, nullable: true })
    readonly operationId!: string | null;

    @ApiProperty({ enum: [kind] })
    readonly event!: string;

    @ApiProperty(detail)
    readonly detail!: unknown;

    @ApiProperty(ACTOR_SCHEMA as ApiPropertyOptions)
    readonly actor!: unknown;

    @ApiProperty(TIME)
    readonly at!: string;
  }
  Object.defineProperty(EventOfKind, 'name', { value: `${pascal(kind)}Event` });
  return EventOfKind;
}

/** The schema class of each kind's event, in the domain's order. */
export const EVENT_VIEWS: ReadonlyMap<HistoryEventKind, Type<unknown>> = new Map(
  HISTORY_EVENT_KINDS.map((kind) => [kind, eventView(kind)]),
);

/** `items` of an events array: one of the kinds, told apart by `event`. */
export const HISTORY_EVENT_SCHEMA: SchemaObject = {
  oneOf: refs([...EVENT_VIEWS.values()]),
  discriminator: {
    propertyName: 'event',
    mapping: Object.fromEntries([...EVENT_VIEWS].map(([kind, view]) => [kind, getSchemaPath(view)])),
  },
};
