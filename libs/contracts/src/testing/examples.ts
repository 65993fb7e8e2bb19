/**
 * Example payloads shaped like ONAP's example messages, one or more per message type, written as plain
 * JSON objects rather than typed messages so they check the interfaces instead of repeating them.
 * Shared with other suites (runtime, SDK) through the lib's index as `CONTRACT_EXAMPLES`.
 */

/** Fixed ids used by the examples, so tests can address them. */
export const EXAMPLE_IDS = {
  participant: '101c62b3-8918-41b9-a747-d21eb79c6c01',
  participant2: '101c62b3-8918-41b9-a747-d21eb79c6c02',
  replica: '2cf0f8b4-5c1a-4c8c-9d8e-2f4a3a6b7c01',
  composition: 'c0c0c0c0-1111-4222-8333-444455556666',
  compositionTarget: 'c0c0c0c0-1111-4222-8333-444455556677',
  instance: 'a1a1a1a1-2222-4333-8444-555566667777',
  element: 'e1e1e1e1-3333-4444-8555-666677778888',
  element2: 'e1e1e1e1-3333-4444-8555-666677778899',
  message: '5e5e5e5e-4444-4555-8666-777788889999',
  respondedMessage: '5e5e5e5e-4444-4555-8666-7777888899aa',
  revisionComposition: 'f0f0f0f0-5555-4666-8777-88889999aaaa',
  revisionCompositionTarget: 'f0f0f0f0-5555-4666-8777-88889999aabb',
  revisionInstance: 'f1f1f1f1-6666-4777-8888-9999aaaabbbb',
  supportedType: 'b7b7b7b7-7777-4888-8999-aaaabbbbcccc',
} as const;

const id = EXAMPLE_IDS;
const ts = '2026-01-01T00:00:00.123Z';
const simX = { name: 'onap.policy.clamp.ac.element.Sim_X', version: '1.2.3' };
const simType = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const supportedTypes = [{ id: id.supportedType, typeName: simType, typeVersion: '1.0.0' }];
const nodeTemplate = { type: simType, type_version: '1.0.0', properties: { startPhase: 0 } };
const definitionUpdates = [
  {
    participantId: id.participant,
    automationCompositionElementDefinitionList: [
      { acElementDefinitionId: simX, automationCompositionElementToscaNodeTemplate: nodeTemplate, outProperties: {} },
    ],
  },
];
const compositionElement = {
  compositionId: id.composition,
  elementDefinitionId: simX,
  inProperties: { startPhase: 0 },
  outProperties: {},
  state: 'PRESENT',
};
const instanceElement = {
  instanceId: id.instance,
  elementId: id.element,
  inProperties: { deployTimeoutMs: 200000 },
  outProperties: {},
  state: 'PRESENT',
};
const deployList = (orderedState: string, migrationState = 'DEFAULT') => [
  {
    participantId: id.participant,
    acElementList: [{ id: id.element, definition: simX, orderedState, migrationState, properties: { baseUrl: 'x' } }],
  },
];
const dtoList = [
  { participantId: id.participant, elementDtos: [{ compositionElement, instanceElementTarget: instanceElement }] },
];
const revisions = { revisionIdComposition: id.revisionComposition, revisionIdInstance: id.revisionInstance };
const resultMap = (deployState: string, lockState: string) => ({
  [id.element]: {
    deployState,
    lockState,
    operationalState: 'ENABLED',
    useState: 'IDLE',
    outProperties: { k: 'v' },
    result: true,
    message: 'done',
  },
});

/** One JSON object per scenario of ONAP's example messages (named after ONAP's scenarios). */
export const CONTRACT_EXAMPLES = {
  REGISTER: {
    messageType: 'PARTICIPANT_REGISTER',
    messageId: id.message,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    participantIdList: [],
    participantSupportedElementType: supportedTypes,
    intermediaryVersion: '9.1.1',
  },
  REGISTER_ACK: {
    messageType: 'PARTICIPANT_REGISTER_ACK',
    responseTo: id.respondedMessage,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    message: 'Participant Register Ack',
  },
  DEREGISTER: {
    messageType: 'PARTICIPANT_DEREGISTER',
    messageId: id.message,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    participantIdList: [],
  },
  DEREGISTER_ACK: {
    messageType: 'PARTICIPANT_DEREGISTER_ACK',
    responseTo: id.respondedMessage,
    timestamp: ts,
    message: 'Participant Deregister Ack',
  },
  STATUS: {
    messageType: 'PARTICIPANT_STATUS',
    messageId: id.message,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    participantIdList: [],
    participantSupportedElementType: supportedTypes,
    participantDefinitionUpdates: [],
    automationCompositionInfoList: [
      {
        automationCompositionId: id.instance,
        deployState: 'DEPLOYED',
        lockState: 'LOCKED',
        elements: [
          {
            automationCompositionElementId: id.element,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            operationalState: 'ENABLED',
            useState: 'IDLE',
            outProperties: { k: 'v' },
          },
        ],
      },
    ],
  },
  STATUS_DEFINITION_OUT_PROPERTIES: {
    messageType: 'PARTICIPANT_STATUS',
    messageId: id.message,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    compositionId: id.composition,
    participantDefinitionUpdates: definitionUpdates,
  },
  STATUS_REQ: {
    messageType: 'PARTICIPANT_STATUS_REQ',
    messageId: id.message,
    timestamp: ts,
    participantId: id.participant,
    participantIdList: [id.participant],
  },
  PRIME: {
    messageType: 'PARTICIPANT_PRIME',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    revisionIdComposition: id.revisionComposition,
    participantIdList: [id.participant],
    primeOrder: 'PRIME',
    participantDefinitionUpdates: definitionUpdates,
    primeDtoList: [
      {
        participantId: id.participant,
        compositionDto: {
          compositionId: id.composition,
          inPropertiesMap: { 'onap.policy.clamp.ac.element.Sim_X 1.2.3': { startPhase: 0 } },
          outPropertiesMap: { 'onap.policy.clamp.ac.element.Sim_X 1.2.3': {} },
        },
      },
    ],
  },
  DEPRIME: {
    messageType: 'PARTICIPANT_PRIME',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    revisionIdComposition: id.revisionComposition,
    participantIdList: [id.participant],
    primeOrder: 'DEPRIME',
  },
  PRIME_ACK: {
    messageType: 'PARTICIPANT_PRIME_ACK',
    responseTo: id.respondedMessage,
    timestamp: ts,
    compositionId: id.composition,
    participantId: id.participant,
    replicaId: id.replica,
    compositionState: 'PRIMED',
    stateChangeResult: 'NO_ERROR',
    message: 'Primed',
    outPropertiesList: [{ elementDefinitionId: simX, outProperties: {} }],
  },
  DEPLOY: {
    messageType: 'AUTOMATION_COMPOSITION_DEPLOY',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    automationCompositionId: id.instance,
    ...revisions,
    participantIdList: [id.participant],
    startPhase: 0,
    firstStartPhase: true,
    participantUpdatesList: deployList('DEPLOY'),
    participantDtoList: dtoList,
  },
  STATE_CHANGE: {
    messageType: 'AUTOMATION_COMPOSITION_STATE_CHANGE',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    automationCompositionId: id.instance,
    ...revisions,
    participantIdList: [id.participant],
    deployOrderedState: 'UNDEPLOY',
    lockOrderedState: 'NONE',
    startPhase: 1,
    firstStartPhase: true,
    participantDtoList: dtoList,
  },
  DEPLOY_ACK: {
    messageType: 'AUTOMATION_COMPOSITION_DEPLOY_ACK',
    responseTo: id.respondedMessage,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    automationCompositionId: id.instance,
    stateChangeResult: 'NO_ERROR',
    message: 'Deployed',
    outPropertiesUpdated: true,
    automationCompositionResultMap: resultMap('DEPLOYED', 'LOCKED'),
  },
  ACK: {
    messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
    responseTo: id.respondedMessage,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    automationCompositionId: id.instance,
    stateChangeResult: 'NO_ERROR',
    message: 'Deployed',
    outPropertiesUpdated: true,
    automationCompositionResultMap: resultMap('DEPLOYED', 'LOCKED'),
  },
  STAGE_ACK: {
    messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    automationCompositionId: id.instance,
    stateChangeResult: 'NO_ERROR',
    message: 'Migrating',
    stage: 2,
    outPropertiesUpdated: false,
    automationCompositionResultMap: resultMap('MIGRATING', 'LOCKED'),
  },
  DELETE_UNKNOWN_ACK: {
    messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
    responseTo: id.respondedMessage,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    automationCompositionId: id.instance,
    stateChangeResult: 'NO_ERROR',
    message: 'Already deleted or never used',
    automationCompositionResultMap: {},
  },
  PROPS_UPDATE: {
    messageType: 'PROPERTIES_UPDATE',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    automationCompositionId: id.instance,
    ...revisions,
    participantIdList: [id.participant],
    rollback: false,
    participantUpdatesList: deployList('UPDATE'),
    participantDtoList: [
      {
        participantId: id.participant,
        elementDtos: [
          {
            compositionElement,
            instanceElement,
            instanceElementTarget: { ...instanceElement, inProperties: { deployTimeoutMs: 100000 } },
          },
        ],
      },
    ],
  },
  MIGRATION: {
    messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    compositionTargetId: id.compositionTarget,
    automationCompositionId: id.instance,
    revisionIdComposition: id.revisionComposition,
    revisionIdCompositionTarget: id.revisionCompositionTarget,
    revisionIdInstance: id.revisionInstance,
    participantIdList: [id.participant, id.participant2],
    precheck: false,
    rollback: false,
    firstStage: true,
    stage: 0,
    participantUpdatesList: deployList('MIGRATE', 'NEW'),
    participantDtoList: [
      {
        participantId: id.participant,
        elementDtos: [
          {
            compositionElement: { ...compositionElement, state: 'NOT_PRESENT' },
            instanceElement: { ...instanceElement, state: 'NOT_PRESENT' },
            compositionElementTarget: { ...compositionElement, compositionId: id.compositionTarget, state: 'NEW' },
            instanceElementTarget: { ...instanceElement, state: 'NEW' },
          },
        ],
      },
    ],
  },
  PREPARE: {
    messageType: 'AUTOMATION_COMPOSITION_PREPARE',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    automationCompositionId: id.instance,
    ...revisions,
    participantIdList: [id.participant],
    preDeploy: true,
    stage: 0,
    participantList: deployList('NONE'),
    participantDtoList: dtoList,
  },
  REVIEW: {
    messageType: 'AUTOMATION_COMPOSITION_PREPARE',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    automationCompositionId: id.instance,
    ...revisions,
    participantIdList: [id.participant],
    preDeploy: false,
    stage: 0,
    participantList: [],
    participantDtoList: dtoList,
  },
  SYNC_DONE: {
    messageType: 'PARTICIPANT_SYNC_MSG',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    automationCompositionId: id.instance,
    state: 'PRIMED',
    participantIdList: [id.participant],
    excludeReplicas: [],
    restarting: false,
    delete: false,
    participantDefinitionUpdates: [],
    automationcompositionList: [
      {
        automationCompositionId: id.instance,
        revisionId: id.revisionInstance,
        deployState: 'DEPLOYED',
        lockState: 'LOCKED',
        stateChangeResult: 'NO_ERROR',
        acElementList: [
          {
            id: id.element,
            definition: simX,
            participantId: id.participant,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            migrationState: 'DEFAULT',
            properties: {},
            outProperties: {},
          },
        ],
      },
    ],
  },
  SYNC_RESTART: {
    messageType: 'PARTICIPANT_SYNC_MSG',
    messageId: id.message,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    participantIdList: [id.participant],
    compositionId: id.composition,
    state: 'PRIMED',
    stateChangeResult: 'NO_ERROR',
    revisionIdComposition: id.revisionComposition,
    restarting: true,
    participantDefinitionUpdates: definitionUpdates,
    automationcompositionList: [
      {
        automationCompositionId: id.instance,
        revisionId: id.revisionInstance,
        deployState: 'MIGRATING',
        lockState: 'LOCKED',
        stateChangeResult: 'NO_ERROR',
        compositionTargetId: id.compositionTarget,
        acElementList: [
          {
            id: id.element,
            definition: simX,
            participantId: id.participant,
            deployState: 'MIGRATING',
            lockState: 'LOCKED',
            migrationState: 'DEFAULT',
            operationalState: 'ENABLED',
            useState: 'IDLE',
            properties: { baseUrl: 'x' },
            outProperties: { k: 'v' },
          },
        ],
      },
    ],
  },
  SYNC_DEF_DELETE: {
    messageType: 'PARTICIPANT_SYNC_MSG',
    messageId: id.message,
    timestamp: ts,
    compositionId: id.composition,
    state: 'COMMISSIONED',
    delete: true,
  },
  REQ_SYNC: {
    messageType: 'PARTICIPANT_REQ_SYNC_MSG',
    messageId: id.message,
    timestamp: ts,
    participantId: id.participant,
    replicaId: id.replica,
    compositionId: id.composition,
    automationCompositionId: id.instance,
    participantIdList: [],
  },
} as const satisfies Record<string, Readonly<Record<string, unknown>>>;

export type ContractExampleName = keyof typeof CONTRACT_EXAMPLES;

/** An example as the JSON text a peer would put on the wire. */
export function exampleJson(name: ContractExampleName): string {
  return JSON.stringify(CONTRACT_EXAMPLES[name]);
}

/** A mutable deep copy of an example, to alter in malformed-input tests. */
export function exampleObject(name: ContractExampleName): Record<string, unknown> {
  return JSON.parse(exampleJson(name)) as Record<string, unknown>;
}
