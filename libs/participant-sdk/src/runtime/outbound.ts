/** The messages a replica sends: acks of orders, heartbeats, registration. Builders only; core.publish sends. */
import { randomUUID } from 'node:crypto';

import type {
  AcElementDeployAck,
  AutomationCompositionDeployAck,
  ElementDefinitionOutProperties,
  ParticipantPrimeAck,
  ParticipantRegister,
  ParticipantStatus,
  Uuid,
} from '@acm/contracts';
import type { AcTypeState } from '@acm/domain';

import { COMPOSITION_DONE_MESSAGES } from '../operations';
import type { CompositionOperation, CompositionResult } from '../types';
import type { ParticipantCore } from './core';

export function deployAck(
  core: ParticipantCore,
  messageId: Uuid,
  instanceId: Uuid,
  ok: boolean,
  message: string,
  resultMap: Record<Uuid, AcElementDeployAck>,
): AutomationCompositionDeployAck {
  return {
    messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
    responseTo: messageId,
    timestamp: core.now(),
    participantId: core.participantId,
    replicaId: core.replicaId,
    automationCompositionId: instanceId,
    stateChangeResult: ok ? 'NO_ERROR' : 'FAILED',
    message,
    automationCompositionResultMap: resultMap,
  };
}

export function primeAck(
  core: ParticipantCore,
  messageId: Uuid,
  operation: CompositionOperation,
  compositionId: Uuid,
  state: AcTypeState,
  result: CompositionResult,
  outPropertiesList: ElementDefinitionOutProperties[],
): ParticipantPrimeAck {
  return {
    messageType: 'PARTICIPANT_PRIME_ACK',
    responseTo: messageId,
    timestamp: core.now(),
    compositionId,
    participantId: core.participantId,
    replicaId: core.replicaId,
    compositionState: state,
    stateChangeResult: result.ok ? 'NO_ERROR' : 'FAILED',
    message: result.message ?? COMPOSITION_DONE_MESSAGES[operation],
    outPropertiesList,
  };
}

export function statusMessage(core: ParticipantCore): ParticipantStatus {
  return {
    messageType: 'PARTICIPANT_STATUS',
    messageId: randomUUID(),
    timestamp: core.now(),
    participantId: core.participantId,
    replicaId: core.replicaId,
    participantIdList: [],
    state: 'ON_LINE',
    participantSupportedElementType: core.supportedTypes.map((type) => ({ ...type })),
  };
}

export function registerMessage(core: ParticipantCore, intermediaryVersion: string): ParticipantRegister {
  return {
    messageType: 'PARTICIPANT_REGISTER',
    messageId: randomUUID(),
    timestamp: core.now(),
    participantId: core.participantId,
    replicaId: core.replicaId,
    participantIdList: [],
    participantSupportedElementType: core.supportedTypes.map((type) => ({ ...type })),
    intermediaryVersion,
  };
}

/** Sends a PARTICIPANT_STATUS heartbeat now. */
export async function sendStatus(core: ParticipantCore): Promise<void> {
  await core.publish(statusMessage(core));
}
