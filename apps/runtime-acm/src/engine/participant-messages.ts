import type {
  AutomationComposition,
  CompositionDefinition,
  DeployOrder,
  InstanceElement,
  InstanceOrder,
} from '@acm/domain';
import type {
  AcElementDto,
  ParticipantDeploy,
  AutomationCompositionDeploy,
  AutomationCompositionMigration,
  CompositionElementDto,
  AutomationCompositionPrepare,
  AutomationCompositionStateChange,
  ParticipantDefinition,
  ParticipantDto,
  ParticipantMessage,
  ParticipantPrime,
  ParticipantRestartAc,
  ParticipantSync,
  ParticipantTopics,
  PropertiesUpdate,
} from '@acm/contracts';
import { encodeMessage, topicFor } from '@acm/contracts';
import { isElementTransitional } from '@acm/domain';
import type { OutboxRecord } from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';

/** Turns a message into an outbox row on the topic ONAP uses for its type. */
export function toOutbox(message: ParticipantMessage, topics: ParticipantTopics): OutboxRecord {
  const encoded = encodeMessage(message);
  return { topic: topicFor(message.messageType, topics), key: encoded.key, value: encoded.value };
}

function participantsOf(elements: Iterable<InstanceElement>): string[] {
  return [...new Set([...elements].map((element) => element.participantId).filter((id): id is string => id !== null))];
}

/** The per-participant element DTOs ONAP sends with deploy-like orders: the current element as the target. */
export function participantDtos(
  instance: AutomationComposition,
  info: CompositionTemplateInfo,
  elements: readonly InstanceElement[],
): ParticipantDto[] {
  const byName = new Map(info.elements.map((element) => [element.name, element]));
  const groups = new Map<string, AcElementDto[]>();
  for (const element of elements) {
    if (element.participantId === null) {
      continue;
    }
    const definition = byName.get(element.definition.name);
    const dtos = groups.get(element.participantId) ?? [];
    dtos.push({
      compositionElement: {
        compositionId: instance.compositionId,
        elementDefinitionId: element.definition,
        inProperties: definition?.properties ?? {},
        outProperties: {},
        state: 'PRESENT',
      },
      instanceElementTarget: {
        instanceId: instance.instanceId,
        elementId: element.id,
        inProperties: element.properties,
        outProperties: element.outProperties,
        state: 'PRESENT',
      },
    });
    groups.set(element.participantId, dtos);
  }
  return [...groups].map(([participantId, elementDtos]) => ({ participantId, elementDtos }));
}

/** A composition as a message side needs it: the stored definition and its parsed template. */
export interface CompositionSide {
  readonly definition: CompositionDefinition;
  readonly info: CompositionTemplateInfo;
}

/** ONAP's legacy per-participant element lists (ParticipantDeploy), each element with the state ordered for it. */
function participantDeploys(
  participantIds: readonly string[],
  elements: readonly InstanceElement[],
  orderedState: (element: InstanceElement) => DeployOrder,
): ParticipantDeploy[] {
  return participantIds.map((participantId) => ({
    participantId,
    acElementList: elements
      .filter((element) => element.participantId === participantId)
      .map((element) => ({
        id: element.id,
        definition: element.definition,
        orderedState: orderedState(element),
        migrationState: element.migrationState,
        properties: element.properties,
      })),
  }));
}

export interface PhaseMessageInput {
  readonly messageId: string;
  readonly timestamp: string;
  readonly order: InstanceOrder;
  readonly instance: AutomationComposition;
  readonly definition: CompositionDefinition;
  readonly info: CompositionTemplateInfo;
  readonly phase: number;
  readonly firstPhase: boolean;
  /**
   * The other composition of a migration: the target (MIGRATE, MIGRATE_PRECHECK), or the composition a
   * migration rollback returns from (MIGRATION_REVERT).
   */
  readonly other?: CompositionSide;
  /** Elements before the order (the rollback snapshot): update and migration DTOs describe them as the source. */
  readonly before?: Readonly<Record<string, InstanceElement>>;
  /** MIGRATE_PRECHECK: the elements the migration would produce (not stored on the instance). */
  readonly planned?: Readonly<Record<string, InstanceElement>>;
  /**
   * The elements in transition this message asks to act on, when not all of them (`dependsOn`: an element
   * of the open phase waiting for a dependency is left out, and follows in a message of its own).
   */
  readonly describe?: ReadonlySet<string>;
}

function nodeTemplateProperties(side: CompositionSide, definition: { name: string }): Record<string, unknown> {
  return side.info.elements.find((element) => element.name === definition.name)?.properties ?? {};
}

function compositionElementDto(
  side: CompositionSide,
  definition: InstanceElement['definition'],
  state: CompositionElementDto['state'],
): CompositionElementDto {
  const present = state !== 'NOT_PRESENT';
  return {
    compositionId: side.definition.compositionId,
    elementDefinitionId: definition,
    inProperties: present ? nodeTemplateProperties(side, definition) : {},
    outProperties: present ? (side.definition.elementStateMap[definition.name]?.outProperties ?? {}) : {},
    state,
  };
}

function participantsOfDefinition(definition: CompositionDefinition): string[] {
  return Object.values(definition.elementStateMap)
    .map((state) => state.participantId)
    .filter((id): id is string => id !== null);
}

/**
 * The DTOs of a migration, per ONAP's DtoMapperService: a kept element has source and
 * target views of both composition and instance; a NEW one has NOT_PRESENT sources and NEW targets; a
 * REMOVED one has present sources and REMOVED targets.
 */
function migrationDtos(
  instanceId: string,
  from: CompositionSide,
  to: CompositionSide,
  elements: readonly InstanceElement[],
  before: Readonly<Record<string, InstanceElement>>,
): ParticipantDto[] {
  const groups = new Map<string, AcElementDto[]>();
  for (const element of elements) {
    if (element.participantId === null) {
      continue;
    }
    const source = before[element.id];
    const sourceState = element.migrationState === 'NEW' ? 'NOT_PRESENT' : 'PRESENT';
    const targetState =
      element.migrationState === 'NEW' ? 'NEW' : element.migrationState === 'REMOVED' ? 'REMOVED' : 'PRESENT';
    const dtos = groups.get(element.participantId) ?? [];
    dtos.push({
      compositionElement: compositionElementDto(from, source?.definition ?? element.definition, sourceState),
      instanceElement: {
        instanceId,
        elementId: element.id,
        inProperties: sourceState === 'PRESENT' ? (source?.properties ?? element.properties) : {},
        outProperties: sourceState === 'PRESENT' ? element.outProperties : {},
        state: sourceState,
      },
      compositionElementTarget: compositionElementDto(
        element.migrationState === 'REMOVED' ? from : to,
        element.definition,
        targetState,
      ),
      instanceElementTarget: {
        instanceId,
        elementId: element.id,
        inProperties: element.properties,
        outProperties: element.outProperties,
        state: targetState,
      },
    });
    groups.set(element.participantId, dtos);
  }
  return [...groups].map(([participantId, elementDtos]) => ({ participantId, elementDtos }));
}

/**
 * AUTOMATION_COMPOSITION_MIGRATION for a migrate stage, a precheck or a migration-rollback stage. The
 * rollback is sent as a migration back: `compositionTargetId` (and its revision) name the composition
 * the instance returns to, the source DTOs describe the composition it leaves.
 */
export function migrationMessage(input: PhaseMessageInput): AutomationCompositionMigration {
  const { instance, order } = input;
  const own: CompositionSide = { definition: input.definition, info: input.info };
  const other = input.other ?? own;
  const rollback = order === 'MIGRATION_REVERT';
  const precheck = order === 'MIGRATE_PRECHECK';
  const from = rollback ? other : own;
  const to = rollback ? own : other;
  const elements = precheck
    ? Object.values(input.planned ?? instance.elements)
    : Object.values(instance.elements).filter(isElementTransitional);
  const participantIdList = [
    ...new Set([
      ...participantsOfDefinition(from.definition),
      ...participantsOfDefinition(to.definition),
      ...participantsOf(elements),
    ]),
  ];
  return {
    messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
    messageId: input.messageId,
    timestamp: input.timestamp,
    compositionId: instance.compositionId,
    compositionTargetId: to.definition.compositionId,
    automationCompositionId: instance.instanceId,
    revisionIdComposition: input.definition.revisionId,
    revisionIdCompositionTarget: to.definition.revisionId,
    revisionIdInstance: instance.revisionId,
    participantIdList,
    precheck,
    rollback,
    firstStage: input.firstPhase,
    stage: precheck ? 0 : input.phase,
    participantUpdatesList: participantDeploys(participantsOf(elements), elements, () =>
      rollback ? 'MIGRATION_REVERT' : 'MIGRATE',
    ),
    participantDtoList: migrationDtos(
      instance.instanceId,
      from,
      to,
      elements,
      input.before ?? (precheck ? instance.elements : {}),
    ),
  };
}

/**
 * The elements as a message describes them. An UNDEPLOY within an UPDATE (the destroy step of a replace) describes
 * each element with the properties it was deployed with (the update's snapshot), not the ones it is replaced with;
 * every other message describes the elements as they are.
 */
function asDeployed(input: PhaseMessageInput, elements: readonly InstanceElement[]): InstanceElement[] {
  const before = input.before;
  if (input.order !== 'UNDEPLOY' || before === undefined) {
    return [...elements];
  }
  return elements.map((element) => {
    const deployed = before[element.id];
    return deployed === undefined ? element : { ...element, properties: deployed.properties };
  });
}

/**
 * The one message of a phase (ONAP sends DEPLOY for deploy, STATE_CHANGE for the others), addressed to
 * every participant of the instance: each acts only on its elements of that start phase.
 */
export function phaseMessage(input: PhaseMessageInput): ParticipantMessage {
  const { instance, definition, info } = input;
  if (input.order === 'MIGRATE' || input.order === 'MIGRATION_REVERT' || input.order === 'MIGRATE_PRECHECK') {
    return migrationMessage(input);
  }
  const elements = Object.values(instance.elements);
  const described = (element: InstanceElement): boolean =>
    isElementTransitional(element) && (input.describe?.has(element.id) ?? true);
  const envelope = {
    messageId: input.messageId,
    timestamp: input.timestamp,
    compositionId: instance.compositionId,
    automationCompositionId: instance.instanceId,
    revisionIdComposition: definition.revisionId,
    revisionIdInstance: instance.revisionId,
    participantIdList: participantsOf(elements),
    startPhase: input.phase,
    firstStartPhase: input.firstPhase,
    // Only elements that still have work are described: a retry redoes what failed, nothing else.
    participantDtoList: participantDtos(instance, info, asDeployed(input, elements.filter(described))),
  };
  if (input.order === 'DEPLOY') {
    const deploy: AutomationCompositionDeploy = {
      messageType: 'AUTOMATION_COMPOSITION_DEPLOY',
      ...envelope,
      participantUpdatesList: participantDeploys(envelope.participantIdList, elements, (element) =>
        described(element) ? 'DEPLOY' : 'NONE',
      ),
    };
    return deploy;
  }
  if (input.order === 'UPDATE' || input.order === 'UPDATE_REVERT') {
    const before = input.before ?? {};
    const update: PropertiesUpdate = {
      messageType: 'PROPERTIES_UPDATE',
      ...envelope,
      rollback: input.order === 'UPDATE_REVERT',
      // ONAP: the element before the update (the rollback snapshot) and after it.
      participantDtoList: envelope.participantDtoList.map((entry) => ({
        participantId: entry.participantId,
        elementDtos: entry.elementDtos.map((dto) => {
          const id = dto.instanceElementTarget?.elementId ?? '';
          const previous = before[id];
          return {
            ...dto,
            instanceElement: {
              instanceId: instance.instanceId,
              elementId: id,
              inProperties: previous?.properties ?? dto.instanceElementTarget?.inProperties ?? {},
              outProperties: dto.instanceElementTarget?.outProperties ?? {},
              state: 'PRESENT' as const,
            },
          };
        }),
      })),
      participantUpdatesList: participantDeploys(envelope.participantIdList, elements, () => 'UPDATE'),
    };
    return update;
  }
  if (input.order === 'PREPARE' || input.order === 'REVIEW') {
    const prepare: AutomationCompositionPrepare = {
      messageType: 'AUTOMATION_COMPOSITION_PREPARE',
      ...envelope,
      preDeploy: input.order === 'PREPARE',
      stage: input.order === 'PREPARE' ? input.phase : 0,
      participantList:
        input.order === 'PREPARE' ? participantDeploys(envelope.participantIdList, elements, () => 'NONE') : [],
    };
    return prepare;
  }
  const stateChange: AutomationCompositionStateChange = {
    messageType: 'AUTOMATION_COMPOSITION_STATE_CHANGE',
    ...envelope,
    deployOrderedState: input.order === 'UNDEPLOY' ? 'UNDEPLOY' : input.order === 'DELETE' ? 'DELETE' : 'NONE',
    lockOrderedState: input.order === 'LOCK' ? 'LOCK' : input.order === 'UNLOCK' ? 'UNLOCK' : 'NONE',
  };
  return stateChange;
}

/** Element definitions per participant, as PRIME and SYNC carry them. */
export function participantDefinitions(
  definition: CompositionDefinition,
  info: CompositionTemplateInfo,
  onlyParticipant?: string,
): ParticipantDefinition[] {
  const nodeTemplates =
    (definition.serviceTemplate as { topology_template?: { node_templates?: Record<string, Record<string, unknown>> } })
      .topology_template?.node_templates ?? {};
  const groups = new Map<string, ParticipantDefinition['automationCompositionElementDefinitionList']>();
  for (const element of info.elements) {
    const state = definition.elementStateMap[element.name];
    const participantId = state?.participantId;
    if (!participantId || (onlyParticipant !== undefined && participantId !== onlyParticipant)) {
      continue;
    }
    const list = groups.get(participantId) ?? [];
    list.push({
      acElementDefinitionId: { name: element.name, version: element.version },
      automationCompositionElementToscaNodeTemplate: nodeTemplates[element.name] ?? {},
      outProperties: state.outProperties,
    });
    groups.set(participantId, list);
  }
  return [...groups].map(([participantId, list]) => ({
    participantId,
    automationCompositionElementDefinitionList: list,
  }));
}

export function primeMessage(
  messageId: string,
  timestamp: string,
  definition: CompositionDefinition,
  info: CompositionTemplateInfo,
  primeOrder: 'PRIME' | 'DEPRIME',
  onlyParticipants?: readonly string[],
): ParticipantPrime {
  const definitions = participantDefinitions(definition, info).filter(
    (entry) => onlyParticipants === undefined || onlyParticipants.includes(entry.participantId),
  );
  return {
    messageType: 'PARTICIPANT_PRIME',
    messageId,
    timestamp,
    compositionId: definition.compositionId,
    revisionIdComposition: definition.revisionId,
    participantIdList: definitions.map((entry) => entry.participantId),
    primeOrder,
    participantDefinitionUpdates: primeOrder === 'PRIME' ? definitions : [],
    primeDtoList: definitions.map((entry) => ({
      participantId: entry.participantId,
      compositionDto: {
        compositionId: definition.compositionId,
        inPropertiesMap: Object.fromEntries(
          entry.automationCompositionElementDefinitionList.map((element) => [
            `${element.acElementDefinitionId.name} ${element.acElementDefinitionId.version}`,
            (element.automationCompositionElementToscaNodeTemplate?.properties as Record<string, unknown>) ?? {},
          ]),
        ),
        outPropertiesMap: Object.fromEntries(
          entry.automationCompositionElementDefinitionList.map((element) => [
            `${element.acElementDefinitionId.name} ${element.acElementDefinitionId.version}`,
            element.outProperties ?? {},
          ]),
        ),
      },
    })),
  };
}

export function restartAc(instance: AutomationComposition, onlyParticipant?: string): ParticipantRestartAc {
  return {
    automationCompositionId: instance.instanceId,
    deployState: instance.deployState,
    lockState: instance.lockState,
    stateChangeResult: instance.stateChangeResult,
    revisionId: instance.revisionId,
    ...(instance.compositionTargetId ? { compositionTargetId: instance.compositionTargetId } : {}),
    acElementList: Object.values(instance.elements)
      .filter((element) => onlyParticipant === undefined || element.participantId === onlyParticipant)
      .map((element) => ({
        id: element.id,
        definition: element.definition,
        ...(element.participantId ? { participantId: element.participantId } : {}),
        deployState: element.deployState,
        lockState: element.lockState,
        migrationState: element.migrationState,
        ...(element.operationalState ? { operationalState: element.operationalState } : {}),
        ...(element.useState ? { useState: element.useState } : {}),
        properties: element.properties,
        outProperties: element.outProperties,
      })),
  };
}

/**
 * SYNC after an instance transition finished, so every replica of its participants converges. After a
 * migration `servedBy` names the source and target compositions: every participant of either gets the
 * SYNC, also one whose elements the migration removed or one that serves only elements it added.
 */
export function instanceSyncMessage(
  messageId: string,
  timestamp: string,
  instance: AutomationComposition,
  definition: CompositionDefinition,
  deleted: boolean,
  servedBy: readonly CompositionDefinition[] = [],
): ParticipantSync {
  return {
    messageType: 'PARTICIPANT_SYNC_MSG',
    messageId,
    timestamp,
    compositionId: instance.compositionId,
    automationCompositionId: instance.instanceId,
    revisionIdComposition: definition.revisionId,
    revisionIdInstance: instance.revisionId,
    state: definition.state,
    stateChangeResult: instance.stateChangeResult,
    participantIdList: [
      ...new Set([...participantsOf(Object.values(instance.elements)), ...servedBy.flatMap(participantsOfDefinition)]),
    ],
    excludeReplicas: [],
    restarting: false,
    delete: deleted,
    participantDefinitionUpdates: [],
    automationcompositionList: [restartAc(instance)],
  };
}

/**
 * The answer to a replica's REQ_SYNC naming an instance, addressed to that replica: the instance with its
 * revision and elements, or, when the instance no longer exists, a SYNC that removes it from the cache.
 */
export function requestedInstanceSync(
  messageId: string,
  timestamp: string,
  to: { participantId: string; replicaId: string; instanceId: string },
  found: { instance: AutomationComposition; definition: CompositionDefinition } | undefined,
): ParticipantSync {
  const address = {
    participantId: to.participantId,
    replicaId: to.replicaId,
    participantIdList: [to.participantId],
    excludeReplicas: [],
  };
  if (found === undefined) {
    return {
      messageType: 'PARTICIPANT_SYNC_MSG',
      messageId,
      timestamp,
      automationCompositionId: to.instanceId,
      ...address,
      restarting: false,
      delete: true,
      participantDefinitionUpdates: [],
      automationcompositionList: [],
    };
  }
  return {
    ...instanceSyncMessage(messageId, timestamp, found.instance, found.definition, false),
    ...address,
  };
}

/** SYNC after a prime or deprime finished (deprimed ⇒ delete from caches). */
export function definitionSyncMessage(
  messageId: string,
  timestamp: string,
  definition: CompositionDefinition,
  info: CompositionTemplateInfo,
): ParticipantSync {
  const definitions = participantDefinitions(definition, info);
  return {
    messageType: 'PARTICIPANT_SYNC_MSG',
    messageId,
    timestamp,
    compositionId: definition.compositionId,
    revisionIdComposition: definition.revisionId,
    state: definition.state,
    stateChangeResult: definition.stateChangeResult,
    participantIdList: definitions.map((entry) => entry.participantId),
    excludeReplicas: [],
    restarting: false,
    delete: definition.state === 'COMMISSIONED',
    participantDefinitionUpdates: definition.state === 'PRIMED' ? definitions : [],
    automationcompositionList: [],
  };
}
