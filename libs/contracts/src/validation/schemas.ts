/**
 * Wire schemas of every message and nested structure. Required fields are those ONAP always writes and
 * that a receiver cannot act without; the ack rules are ONAP's own listener checks:
 * a participant may only answer NO_ERROR or FAILED, a PRIME_ACK never reports a transitional state,
 * and an element may only stay transitional in an ack that announces a next `stage`.
 */
import {
  AC_TYPE_STATES,
  DEPLOY_ORDERS,
  DEPLOY_STATES,
  ELEMENT_STATES,
  LOCK_ORDERS,
  LOCK_STATES,
  MIGRATION_STATES,
  PARTICIPANT_STATES,
  PRIME_ORDERS,
  STATE_CHANGE_RESULTS,
} from '@acm/domain';
import type { DeployState, LockState } from '@acm/domain';

import type { MessageType } from '../message-types';
import type {
  AutomationCompositionDeploy,
  AutomationCompositionDeployAck,
  AutomationCompositionMigration,
  AutomationCompositionPrepare,
  AutomationCompositionStateChange,
  MessageOf,
  ParticipantAckEnvelope,
  ParticipantDeregister,
  ParticipantDeregisterAck,
  ParticipantMessageEnvelope,
  ParticipantPrime,
  ParticipantPrimeAck,
  ParticipantRegister,
  ParticipantRegisterAck,
  ParticipantReqSync,
  ParticipantStatus,
  ParticipantStatusReq,
  ParticipantSync,
  PropertiesUpdate,
} from '../messages';
import type { AckMessageType } from '../message-types';
import type {
  AcElementDeploy,
  AcElementDeployAck,
  AcElementDto,
  AcElementRestart,
  AutomationCompositionElementDefinition,
  AutomationCompositionElementInfo,
  ElementObservationInfo,
  AutomationCompositionInfo,
  CompositionDto,
  CompositionElementDto,
  ElementDefinitionOutProperties,
  InstanceElementDto,
  ParticipantDefinition,
  ParticipantDeploy,
  ParticipantDto,
  ParticipantPrimeDto,
  ParticipantRestartAc,
  ParticipantSupportedElementType,
  ToscaConceptIdentifier,
  ToscaNodeTemplateJson,
} from '../structures';
import {
  ContractViolation,
  array,
  at,
  boolean,
  integer,
  isoTimestamp,
  jsonObject,
  literal,
  object,
  oneOf,
  opt,
  record,
  refine,
  req,
  string,
  uuid,
} from './parsers';
import type { Parser, Shape } from './parsers';

// ---------------------------------------------------------------------------------------------------
// Vocabularies

const deployState = oneOf(DEPLOY_STATES);
const lockState = oneOf(LOCK_STATES);
const stateChangeResult = oneOf(STATE_CHANGE_RESULTS);
const acTypeState = oneOf(AC_TYPE_STATES);
const migrationState = oneOf(MIGRATION_STATES);
const elementState = oneOf(ELEMENT_STATES);
const deployOrder = oneOf(DEPLOY_ORDERS);
const lockOrder = oneOf(LOCK_ORDERS);
const primeOrder = oneOf(PRIME_ORDERS);
const participantState = oneOf(PARTICIPANT_STATES);

/** What a participant may answer: the runtime alone decides TIMEOUT. */
const ackResult = oneOf(['NO_ERROR', 'FAILED'] as const);
/** A PRIME_ACK reports where the composition ended, never a transitional state. */
const primeAckState = oneOf(['PRIMED', 'COMMISSIONED'] as const);

const TRANSITIONAL_DEPLOY_STATES: ReadonlySet<DeployState> = new Set<DeployState>([
  'DEPLOYING',
  'UNDEPLOYING',
  'DELETING',
  'UPDATING',
  'UPDATE_REVERTING',
  'MIGRATING',
  'MIGRATION_REVERTING',
]);
const TRANSITIONAL_LOCK_STATES: ReadonlySet<LockState> = new Set<LockState>(['LOCKING', 'UNLOCKING']);

const propertyMap = jsonObject;

// ---------------------------------------------------------------------------------------------------
// Nested structures

const toscaConceptIdentifier = object<ToscaConceptIdentifier>({ name: req(string), version: req(string) });

const toscaNodeTemplate: Parser<ToscaNodeTemplateJson> = jsonObject;

const supportedElementType = object<ParticipantSupportedElementType>({
  id: opt(uuid),
  typeName: req(string),
  typeVersion: req(string),
});

const acElementDeploy = object<AcElementDeploy>({
  id: req(uuid),
  definition: req(toscaConceptIdentifier),
  orderedState: opt(deployOrder),
  migrationState: opt(migrationState),
  properties: opt(propertyMap),
});

const participantDeploy = object<ParticipantDeploy>({
  participantId: req(uuid),
  acElementList: req(array(acElementDeploy)),
});

const elementDefinition = object<AutomationCompositionElementDefinition>({
  acElementDefinitionId: req(toscaConceptIdentifier),
  automationCompositionElementToscaNodeTemplate: opt(toscaNodeTemplate),
  outProperties: opt(propertyMap),
});

const participantDefinition = object<ParticipantDefinition>({
  participantId: req(uuid),
  automationCompositionElementDefinitionList: req(array(elementDefinition)),
});

const compositionDto = object<CompositionDto>({
  compositionId: req(uuid),
  inPropertiesMap: opt(record(propertyMap)),
  outPropertiesMap: opt(record(propertyMap)),
});

const participantPrimeDto = object<ParticipantPrimeDto>({
  participantId: req(uuid),
  compositionDto: req(compositionDto),
});

const compositionElementDto = object<CompositionElementDto>({
  compositionId: opt(uuid),
  elementDefinitionId: opt(toscaConceptIdentifier),
  inProperties: opt(propertyMap),
  outProperties: opt(propertyMap),
  state: opt(elementState),
});

const instanceElementDto = object<InstanceElementDto>({
  instanceId: opt(uuid),
  elementId: opt(uuid),
  inProperties: opt(propertyMap),
  outProperties: opt(propertyMap),
  state: opt(elementState),
});

const acElementDto = object<AcElementDto>({
  compositionElement: opt(compositionElementDto),
  instanceElement: opt(instanceElementDto),
  compositionElementTarget: opt(compositionElementDto),
  instanceElementTarget: opt(instanceElementDto),
});

const participantDto = object<ParticipantDto>({
  participantId: req(uuid),
  elementDtos: req(array(acElementDto)),
});

const acElementRestart = object<AcElementRestart>({
  id: req(uuid),
  definition: req(toscaConceptIdentifier),
  participantId: opt(uuid),
  deployState: opt(deployState),
  lockState: opt(lockState),
  migrationState: opt(migrationState),
  operationalState: opt(string),
  useState: opt(string),
  properties: opt(propertyMap),
  outProperties: opt(propertyMap),
});

const participantRestartAc = object<ParticipantRestartAc>({
  automationCompositionId: req(uuid),
  deployState: opt(deployState),
  lockState: opt(lockState),
  stateChangeResult: opt(stateChangeResult),
  revisionId: opt(uuid),
  compositionTargetId: opt(uuid),
  acElementList: opt(array(acElementRestart)),
});

const acElementDeployAck = object<AcElementDeployAck>({
  deployState: req(deployState),
  lockState: req(lockState),
  operationalState: opt(string),
  useState: opt(string),
  outProperties: opt(propertyMap),
  result: opt(boolean),
  message: opt(string),
});

const elementDefinitionOutProperties = object<ElementDefinitionOutProperties>({
  elementDefinitionId: req(toscaConceptIdentifier),
  outProperties: opt(propertyMap),
});

const elementObservation = object<ElementObservationInfo>({
  present: req(boolean),
  healthy: req(boolean),
  reason: opt(string),
  properties: opt(propertyMap),
});

const elementInfo = object<AutomationCompositionElementInfo>({
  automationCompositionElementId: req(uuid),
  deployState: opt(deployState),
  lockState: opt(lockState),
  operationalState: opt(string),
  useState: opt(string),
  outProperties: opt(propertyMap),
  observation: opt(elementObservation),
});

const compositionInfo = object<AutomationCompositionInfo>({
  automationCompositionId: req(uuid),
  deployState: opt(deployState),
  lockState: opt(lockState),
  elements: opt(array(elementInfo)),
});

// ---------------------------------------------------------------------------------------------------
// Envelopes

function envelope<T extends MessageType>(type: T): Shape<ParticipantMessageEnvelope<T>> {
  return {
    messageType: req(literal(type)),
    messageId: req(uuid),
    timestamp: req(isoTimestamp),
    participantId: opt(uuid),
    replicaId: opt(uuid),
    automationCompositionId: opt(uuid),
    compositionId: opt(uuid),
    revisionIdComposition: opt(uuid),
    revisionIdInstance: opt(uuid),
    participantIdList: opt(array(uuid)),
  };
}

function ackEnvelope<T extends AckMessageType>(type: Parser<T>): Shape<ParticipantAckEnvelope<T>> {
  return {
    messageType: req(type),
    responseTo: opt(uuid),
    timestamp: opt(isoTimestamp),
    stateChangeResult: opt(stateChangeResult),
    message: opt(string),
    compositionId: opt(uuid),
    participantId: opt(uuid),
    replicaId: opt(uuid),
  };
}

// ---------------------------------------------------------------------------------------------------
// Messages

const register = object<ParticipantRegister>({
  ...envelope('PARTICIPANT_REGISTER'),
  participantId: req(uuid),
  replicaId: req(uuid),
  participantSupportedElementType: opt(array(supportedElementType)),
  intermediaryVersion: opt(string),
});

const registerAck = object<ParticipantRegisterAck>({
  ...ackEnvelope(literal('PARTICIPANT_REGISTER_ACK')),
  responseTo: req(uuid),
  participantId: req(uuid),
});

const deregister = object<ParticipantDeregister>({
  ...envelope('PARTICIPANT_DEREGISTER'),
  participantId: req(uuid),
  replicaId: req(uuid),
});

const deregisterAck = object<ParticipantDeregisterAck>({
  ...ackEnvelope(literal('PARTICIPANT_DEREGISTER_ACK')),
  responseTo: req(uuid),
});

const status = object<ParticipantStatus>({
  ...envelope('PARTICIPANT_STATUS'),
  participantId: req(uuid),
  replicaId: req(uuid),
  state: opt(participantState),
  participantSupportedElementType: opt(array(supportedElementType)),
  participantDefinitionUpdates: opt(array(participantDefinition)),
  automationCompositionInfoList: opt(array(compositionInfo)),
});

const statusReq = object<ParticipantStatusReq>(envelope('PARTICIPANT_STATUS_REQ'));

const prime = object<ParticipantPrime>({
  ...envelope('PARTICIPANT_PRIME'),
  compositionId: req(uuid),
  primeOrder: opt(primeOrder),
  participantDefinitionUpdates: opt(array(participantDefinition)),
  primeDtoList: opt(array(participantPrimeDto)),
});

const primeAck = object<ParticipantPrimeAck>({
  ...ackEnvelope(literal('PARTICIPANT_PRIME_ACK')),
  compositionId: req(uuid),
  participantId: req(uuid),
  compositionState: req(primeAckState),
  stateChangeResult: req(ackResult),
  outPropertiesList: opt(array(elementDefinitionOutProperties)),
});

const deploy = object<AutomationCompositionDeploy>({
  ...envelope('AUTOMATION_COMPOSITION_DEPLOY'),
  automationCompositionId: req(uuid),
  startPhase: req(integer),
  firstStartPhase: opt(boolean),
  participantUpdatesList: opt(array(participantDeploy)),
  participantDtoList: opt(array(participantDto)),
});

const stateChange = object<AutomationCompositionStateChange>({
  ...envelope('AUTOMATION_COMPOSITION_STATE_CHANGE'),
  automationCompositionId: req(uuid),
  deployOrderedState: opt(deployOrder),
  lockOrderedState: opt(lockOrder),
  startPhase: req(integer),
  firstStartPhase: opt(boolean),
  participantDtoList: opt(array(participantDto)),
});

/** Without a next `stage`, every reported element must have reached a final state. */
function checkFinalUnlessStaged(ack: AutomationCompositionDeployAck, path: string): void {
  if (ack.stage !== undefined) {
    return;
  }
  for (const [elementId, element] of Object.entries(ack.automationCompositionResultMap)) {
    const elementPath = at(at(path, 'automationCompositionResultMap'), elementId);
    if (TRANSITIONAL_DEPLOY_STATES.has(element.deployState)) {
      throw new ContractViolation(at(elementPath, 'deployState'), 'must not be transitional when stage is absent');
    }
    if (TRANSITIONAL_LOCK_STATES.has(element.lockState)) {
      throw new ContractViolation(at(elementPath, 'lockState'), 'must not be transitional when stage is absent');
    }
  }
}

const deployAck = refine(
  object<AutomationCompositionDeployAck>({
    ...ackEnvelope(oneOf(['AUTOMATION_COMPOSITION_DEPLOY_ACK', 'AUTOMATION_COMPOSITION_STATECHANGE_ACK'] as const)),
    automationCompositionId: req(uuid),
    participantId: req(uuid),
    stateChangeResult: req(ackResult),
    stage: opt(integer),
    startPhase: opt(integer),
    outPropertiesUpdated: opt(boolean),
    automationCompositionResultMap: req(record(acElementDeployAck, uuid)),
  }),
  checkFinalUnlessStaged,
);

const propertiesUpdate = object<PropertiesUpdate>({
  ...envelope('PROPERTIES_UPDATE'),
  automationCompositionId: req(uuid),
  rollback: opt(boolean),
  participantUpdatesList: opt(array(participantDeploy)),
  participantDtoList: opt(array(participantDto)),
});

const migration = object<AutomationCompositionMigration>({
  ...envelope('AUTOMATION_COMPOSITION_MIGRATION'),
  automationCompositionId: req(uuid),
  compositionTargetId: opt(uuid),
  revisionIdCompositionTarget: opt(uuid),
  precheck: opt(boolean),
  rollback: opt(boolean),
  firstStage: opt(boolean),
  stage: opt(integer),
  participantUpdatesList: opt(array(participantDeploy)),
  participantDtoList: opt(array(participantDto)),
});

const prepare = object<AutomationCompositionPrepare>({
  ...envelope('AUTOMATION_COMPOSITION_PREPARE'),
  automationCompositionId: req(uuid),
  preDeploy: opt(boolean),
  stage: opt(integer),
  participantList: opt(array(participantDeploy)),
  participantDtoList: opt(array(participantDto)),
});

const sync = object<ParticipantSync>({
  ...envelope('PARTICIPANT_SYNC_MSG'),
  state: opt(acTypeState),
  stateChangeResult: opt(stateChangeResult),
  participantDefinitionUpdates: opt(array(participantDefinition)),
  automationcompositionList: opt(array(participantRestartAc)),
  excludeReplicas: opt(array(uuid)),
  restarting: opt(boolean),
  delete: opt(boolean),
});

const reqSync = object<ParticipantReqSync>({
  ...envelope('PARTICIPANT_REQ_SYNC_MSG'),
  participantId: req(uuid),
  replicaId: req(uuid),
  compositionTargetId: opt(uuid),
});

/** The parser of each message type, used by `decodeMessage` after dispatching on `messageType`. */
export const MESSAGE_PARSERS: { readonly [T in MessageType]: Parser<MessageOf<T>> } = {
  PARTICIPANT_STATUS: status,
  PARTICIPANT_REGISTER: register,
  PARTICIPANT_REGISTER_ACK: registerAck,
  PARTICIPANT_DEREGISTER: deregister,
  PARTICIPANT_DEREGISTER_ACK: deregisterAck,
  PARTICIPANT_PRIME: prime,
  PARTICIPANT_PRIME_ACK: primeAck,
  AUTOMATION_COMPOSITION_DEPLOY: deploy,
  AUTOMATION_COMPOSITION_DEPLOY_ACK: deployAck,
  AUTOMATION_COMPOSITION_STATE_CHANGE: stateChange,
  AUTOMATION_COMPOSITION_STATECHANGE_ACK: deployAck,
  PARTICIPANT_STATUS_REQ: statusReq,
  PROPERTIES_UPDATE: propertiesUpdate,
  PARTICIPANT_SYNC_MSG: sync,
  AUTOMATION_COMPOSITION_MIGRATION: migration,
  AUTOMATION_COMPOSITION_PREPARE: prepare,
  PARTICIPANT_REQ_SYNC_MSG: reqSync,
};
