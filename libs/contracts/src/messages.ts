/**
 * The participant messages of ONAP's catalogue, one interface per `messageType`, with ONAP's exact JSON
 * field names (quirks included). The runtime and the participant SDK both use these; no message type
 * is defined twice.
 */
import type { AcTypeState, DeployOrder, LockOrder, ParticipantState, PrimeOrder, StateChangeResult } from '@acm/domain';

import type { AckMessageType, MessageType } from './message-types';
import type {
  AcElementDeployAck,
  AutomationCompositionInfo,
  ElementDefinitionOutProperties,
  ParticipantDefinition,
  ParticipantDeploy,
  ParticipantDto,
  ParticipantPrimeDto,
  ParticipantRestartAc,
  ParticipantSupportedElementType,
  Uuid,
} from './structures';

/**
 * ONAP's ParticipantMessage envelope, used by every non-ack type. `messageId` and
 * `timestamp` are always written by ONAP, so we require them; the ids decide who acts on the message
 * (see `acceptsMessage`).
 */
export interface ParticipantMessageEnvelope<T extends MessageType> {
  messageType: T;
  messageId: Uuid;
  /** ISO-8601 instant, e.g. `2026-01-01T00:00:00.123Z`. */
  timestamp: string;
  participantId?: Uuid;
  replicaId?: Uuid;
  automationCompositionId?: Uuid;
  compositionId?: Uuid;
  revisionIdComposition?: Uuid;
  revisionIdInstance?: Uuid;
  /** When non-empty, only these participants act on the message. */
  participantIdList?: Uuid[];
}

/**
 * ONAP's ParticipantAckMessage envelope: answers carry `responseTo` (the answered
 * `messageId`) instead of a `messageId` of their own. ONAP participants leave `responseTo` out of
 * element-state acks sent after the listener finished, so it is optional.
 */
export interface ParticipantAckEnvelope<T extends AckMessageType> {
  messageType: T;
  responseTo?: Uuid;
  timestamp?: string;
  stateChangeResult?: StateChangeResult;
  message?: string;
  compositionId?: Uuid;
  participantId?: Uuid;
  replicaId?: Uuid;
}

/** P→R op: a replica announces itself (start-up, and every heartbeat until acknowledged). */
export interface ParticipantRegister extends ParticipantMessageEnvelope<'PARTICIPANT_REGISTER'> {
  participantId: Uuid;
  replicaId: Uuid;
  /** Singular name holding a list: ONAP's spelling. */
  participantSupportedElementType?: ParticipantSupportedElementType[];
  intermediaryVersion?: string;
}

/** R→P sync: registration accepted; targets the registering replica. */
export interface ParticipantRegisterAck extends ParticipantAckEnvelope<'PARTICIPANT_REGISTER_ACK'> {
  responseTo: Uuid;
  participantId: Uuid;
}

/** P→R op: a replica shuts down; the runtime forgets it. */
export interface ParticipantDeregister extends ParticipantMessageEnvelope<'PARTICIPANT_DEREGISTER'> {
  participantId: Uuid;
  replicaId: Uuid;
}

/** R→P op: deregistration done; broadcast (no participant id). */
export interface ParticipantDeregisterAck extends ParticipantAckEnvelope<'PARTICIPANT_DEREGISTER_ACK'> {
  responseTo: Uuid;
}

/**
 * P→R op: heartbeat, answer to STATUS_REQ / REGISTER_ACK, and the vehicle for outProperties pushed
 * outside any order (instance elements via `automationCompositionInfoList`, definitions via
 * `compositionId` + `participantDefinitionUpdates`).
 */
export interface ParticipantStatus extends ParticipantMessageEnvelope<'PARTICIPANT_STATUS'> {
  participantId: Uuid;
  replicaId: Uuid;
  /** Legacy participant-level state still present in ONAP's class. */
  state?: ParticipantState;
  participantSupportedElementType?: ParticipantSupportedElementType[];
  participantDefinitionUpdates?: ParticipantDefinition[];
  automationCompositionInfoList?: AutomationCompositionInfo[];
}

/** R→P sync: ask participants (one when `participantId` is set, else all) for a STATUS. */
export type ParticipantStatusReq = ParticipantMessageEnvelope<'PARTICIPANT_STATUS_REQ'>;

/** R→P op: prime or deprime a composition on the participants that own its elements. */
export interface ParticipantPrime extends ParticipantMessageEnvelope<'PARTICIPANT_PRIME'> {
  compositionId: Uuid;
  primeOrder?: PrimeOrder;
  /** Element definitions per participant; PRIME only. */
  participantDefinitionUpdates?: ParticipantDefinition[];
  primeDtoList?: ParticipantPrimeDto[];
}

/** P→R op: result of a prime/deprime on one participant. */
export interface ParticipantPrimeAck extends ParticipantAckEnvelope<'PARTICIPANT_PRIME_ACK'> {
  compositionId: Uuid;
  participantId: Uuid;
  /** PRIMED or COMMISSIONED; never the transitional PRIMING/DEPRIMING (refused on decode). */
  compositionState: AcTypeState;
  /** NO_ERROR or FAILED (TIMEOUT is the runtime's verdict, refused on decode). */
  stateChangeResult: StateChangeResult;
  outPropertiesList?: ElementDefinitionOutProperties[];
}

/** R→P op: deploy one start phase of an instance. */
export interface AutomationCompositionDeploy extends ParticipantMessageEnvelope<'AUTOMATION_COMPOSITION_DEPLOY'> {
  automationCompositionId: Uuid;
  startPhase: number;
  /** True on the first phase: the participant (re)creates its cache entry for the instance. */
  firstStartPhase?: boolean;
  /** Legacy element list (orderedState DEPLOY), still sent by ONAP. */
  participantUpdatesList?: ParticipantDeploy[];
  participantDtoList?: ParticipantDto[];
}

/** R→P op: undeploy / delete / lock / unlock one start phase of an instance. */
export interface AutomationCompositionStateChange extends ParticipantMessageEnvelope<'AUTOMATION_COMPOSITION_STATE_CHANGE'> {
  automationCompositionId: Uuid;
  deployOrderedState?: DeployOrder;
  lockOrderedState?: LockOrder;
  startPhase: number;
  firstStartPhase?: boolean;
  participantDtoList?: ParticipantDto[];
}

/**
 * P→R op: per-element results of a deploy-like order. The two type values share one body; ONAP's
 * intermediary always sends AUTOMATION_COMPOSITION_STATECHANGE_ACK.
 */
export interface AutomationCompositionDeployAck extends ParticipantAckEnvelope<
  'AUTOMATION_COMPOSITION_DEPLOY_ACK' | 'AUTOMATION_COMPOSITION_STATECHANGE_ACK'
> {
  automationCompositionId: Uuid;
  participantId: Uuid;
  /** NO_ERROR or FAILED (refused otherwise on decode). */
  stateChangeResult: StateChangeResult;
  /** Next stage to run: present only on intermediate migrate/prepare progress ("stage ack"). */
  stage?: number;
  /** Legacy: the phase the ack answers (older ONAP). */
  startPhase?: number;
  outPropertiesUpdated?: boolean;
  /** Keyed by element id. Empty ⇒ the runtime treats all this participant's elements as DELETED/NONE. */
  automationCompositionResultMap: Record<Uuid, AcElementDeployAck>;
}

/** R→P op: update (or update-revert when `rollback`) instance element properties. */
export interface PropertiesUpdate extends ParticipantMessageEnvelope<'PROPERTIES_UPDATE'> {
  automationCompositionId: Uuid;
  rollback?: boolean;
  participantUpdatesList?: ParticipantDeploy[];
  /** `instanceElement` = before, `instanceElementTarget` = after. */
  participantDtoList?: ParticipantDto[];
}

/** R→P op: migrate, migration precheck, or migration revert (`rollback`) one stage of an instance. */
export interface AutomationCompositionMigration extends ParticipantMessageEnvelope<'AUTOMATION_COMPOSITION_MIGRATION'> {
  automationCompositionId: Uuid;
  /** `compositionId` is the source definition, this is the target. */
  compositionTargetId?: Uuid;
  revisionIdCompositionTarget?: Uuid;
  precheck?: boolean;
  rollback?: boolean;
  firstStage?: boolean;
  stage?: number;
  participantUpdatesList?: ParticipantDeploy[];
  participantDtoList?: ParticipantDto[];
}

/** R→P op: prepare (`preDeploy` true or absent, staged) or review (`preDeploy` false) an instance. */
export interface AutomationCompositionPrepare extends ParticipantMessageEnvelope<'AUTOMATION_COMPOSITION_PREPARE'> {
  automationCompositionId: Uuid;
  /** ONAP defaults it to true when absent. */
  preDeploy?: boolean;
  stage?: number;
  participantList?: ParticipantDeploy[];
  participantDtoList?: ParticipantDto[];
}

/**
 * R→P sync: cache synchronisation after every finished transition, on restart (`restarting`), and in
 * answer to REQ_SYNC. `automationcompositionList` is spelled with a lower-case c, as in ONAP.
 */
export interface ParticipantSync extends ParticipantMessageEnvelope<'PARTICIPANT_SYNC_MSG'> {
  state?: AcTypeState;
  stateChangeResult?: StateChangeResult;
  participantDefinitionUpdates?: ParticipantDefinition[];
  automationcompositionList?: ParticipantRestartAc[];
  /** Replicas that must ignore this message. */
  excludeReplicas?: Uuid[];
  restarting?: boolean;
  /** Remove the definition (state COMMISSIONED) and/or the listed instances from caches. */
  delete?: boolean;
}

/** P→R op: a replica found its cache stale and asks for a SYNC of whatever it names. */
export interface ParticipantReqSync extends ParticipantMessageEnvelope<'PARTICIPANT_REQ_SYNC_MSG'> {
  participantId: Uuid;
  replicaId: Uuid;
  compositionTargetId?: Uuid;
}

/** Every participant-protocol message, discriminated on `messageType`. */
export type ParticipantMessage =
  | ParticipantRegister
  | ParticipantRegisterAck
  | ParticipantDeregister
  | ParticipantDeregisterAck
  | ParticipantStatus
  | ParticipantStatusReq
  | ParticipantPrime
  | ParticipantPrimeAck
  | AutomationCompositionDeploy
  | AutomationCompositionStateChange
  | AutomationCompositionDeployAck
  | PropertiesUpdate
  | AutomationCompositionMigration
  | AutomationCompositionPrepare
  | ParticipantSync
  | ParticipantReqSync;

type MessagesWithType<M, T extends MessageType> = M extends { messageType: infer K }
  ? T extends K
    ? M
    : never
  : never;

/**
 * The message interface for a `messageType`, e.g. `MessageOf<'PARTICIPANT_PRIME'>`. Works for the two ack
 * types that share one interface (plain `Extract` would not).
 */
export type MessageOf<T extends MessageType> = MessagesWithType<ParticipantMessage, T>;

/** Messages using the ack envelope. */
export type ParticipantAckMessage = Extract<ParticipantMessage, { messageType: AckMessageType }>;
