/**
 * The participant protocol's vocabulary of `messageType` values and where each one travels
 * (ONAP's participant topics and message catalogue). Routing is data, so the runtime, the participant SDK and the tests all
 * agree on which topic a message belongs to without repeating the table.
 */

/** Every `messageType` we accept and emit, in ONAP's declaration order minus the two legacy values. */
export const MESSAGE_TYPES = [
  'PARTICIPANT_STATUS',
  'PARTICIPANT_REGISTER',
  'PARTICIPANT_REGISTER_ACK',
  'PARTICIPANT_DEREGISTER',
  'PARTICIPANT_DEREGISTER_ACK',
  'PARTICIPANT_PRIME',
  'PARTICIPANT_PRIME_ACK',
  'AUTOMATION_COMPOSITION_DEPLOY',
  'AUTOMATION_COMPOSITION_DEPLOY_ACK',
  'AUTOMATION_COMPOSITION_STATE_CHANGE',
  'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
  'PARTICIPANT_STATUS_REQ',
  'PROPERTIES_UPDATE',
  'PARTICIPANT_SYNC_MSG',
  'AUTOMATION_COMPOSITION_MIGRATION',
  'AUTOMATION_COMPOSITION_PREPARE',
  'PARTICIPANT_REQ_SYNC_MSG',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/**
 * Values still present in ONAP's enum but refused by its deserializer; we refuse them too, with a
 * reason that says so (PARTICIPANT_RESTART was replaced by PARTICIPANT_SYNC_MSG with `restarting: true`).
 */
export const LEGACY_MESSAGE_TYPES = ['PARTICIPANT_STATE_CHANGE', 'PARTICIPANT_RESTART'] as const;
export type LegacyMessageType = (typeof LEGACY_MESSAGE_TYPES)[number];

/** ONAP's operation topic (`RUNTIME_OPERATION_TOPIC`): work orders, acks, registration, heartbeats. */
export const DEFAULT_OPERATION_TOPIC = 'policy-acruntime-participant';
/** ONAP's sync topic (`RUNTIME_SYNC_TOPIC`): messages every replica of a participant must see. */
export const DEFAULT_SYNC_TOPIC = 'acm-ppnt-sync';

/** Who sends a message: the runtime (R→P) or a participant (P→R). */
export type MessageDirection = 'RUNTIME_TO_PARTICIPANT' | 'PARTICIPANT_TO_RUNTIME';
/** Which of the two topics a message is published on. */
export type TopicRole = 'operation' | 'sync';

/** Direction and topic of one message type. */
export interface MessageRoute {
  readonly direction: MessageDirection;
  readonly topic: TopicRole;
}

const R2P_OP: MessageRoute = { direction: 'RUNTIME_TO_PARTICIPANT', topic: 'operation' };
const R2P_SYNC: MessageRoute = { direction: 'RUNTIME_TO_PARTICIPANT', topic: 'sync' };
const P2R_OP: MessageRoute = { direction: 'PARTICIPANT_TO_RUNTIME', topic: 'operation' };

/**
 * Where each type travels. The runtime consumes only the operation topic (one shared group); each
 * participant consumes the operation topic with its own group id (one replica handles each work order)
 * and the sync topic with a per-replica group (every replica sees every sync message).
 */
export const MESSAGE_ROUTES: Readonly<Record<MessageType, MessageRoute>> = {
  PARTICIPANT_PRIME: R2P_OP,
  AUTOMATION_COMPOSITION_DEPLOY: R2P_OP,
  AUTOMATION_COMPOSITION_STATE_CHANGE: R2P_OP,
  AUTOMATION_COMPOSITION_MIGRATION: R2P_OP,
  AUTOMATION_COMPOSITION_PREPARE: R2P_OP,
  PROPERTIES_UPDATE: R2P_OP,
  PARTICIPANT_DEREGISTER_ACK: R2P_OP,
  PARTICIPANT_REGISTER_ACK: R2P_SYNC,
  PARTICIPANT_STATUS_REQ: R2P_SYNC,
  PARTICIPANT_SYNC_MSG: R2P_SYNC,
  PARTICIPANT_REGISTER: P2R_OP,
  PARTICIPANT_DEREGISTER: P2R_OP,
  PARTICIPANT_STATUS: P2R_OP,
  PARTICIPANT_PRIME_ACK: P2R_OP,
  AUTOMATION_COMPOSITION_DEPLOY_ACK: P2R_OP,
  AUTOMATION_COMPOSITION_STATECHANGE_ACK: P2R_OP,
  PARTICIPANT_REQ_SYNC_MSG: P2R_OP,
};

/**
 * Types built on ONAP's ParticipantAckMessage envelope (`responseTo`, no `messageId`); all others use
 * the ParticipantMessage envelope (`messageId`, `participantIdList`, revisions).
 */
export const ACK_MESSAGE_TYPES = [
  'PARTICIPANT_REGISTER_ACK',
  'PARTICIPANT_DEREGISTER_ACK',
  'PARTICIPANT_PRIME_ACK',
  'AUTOMATION_COMPOSITION_DEPLOY_ACK',
  'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
] as const satisfies readonly MessageType[];
export type AckMessageType = (typeof ACK_MESSAGE_TYPES)[number];

/** Topic names, overridable like ONAP's `RUNTIME_OPERATION_TOPIC` / `RUNTIME_SYNC_TOPIC`. */
export interface ParticipantTopics {
  readonly operation: string;
  readonly sync: string;
}

/** The topic names ONAP uses out of the box. */
export const DEFAULT_TOPICS: ParticipantTopics = { operation: DEFAULT_OPERATION_TOPIC, sync: DEFAULT_SYNC_TOPIC };

/** True for a value of {@link MESSAGE_TYPES}. */
export function isMessageType(value: unknown): value is MessageType {
  return typeof value === 'string' && (MESSAGE_TYPES as readonly string[]).includes(value);
}

/** True for a type using the ack envelope (see {@link ACK_MESSAGE_TYPES}). */
export function isAckMessageType(type: MessageType): type is AckMessageType {
  return (ACK_MESSAGE_TYPES as readonly string[]).includes(type);
}

/** The topic name a message of this type is published on. */
export function topicFor(type: MessageType, topics: ParticipantTopics = DEFAULT_TOPICS): string {
  return topics[MESSAGE_ROUTES[type].topic];
}
