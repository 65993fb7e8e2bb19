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
import {
  anyHasReferences,
  hasReferences,
  isElementTransitional,
  referencedElementsOf,
  resolveReferences,
} from '@acm/domain';
import type { ReferencedElements } from '@acm/domain';
import type { OutboxRecord } from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';

/** Turns a message into an outbox row on the topic ONAP uses for its type. */
export function toOutbox(message: ParticipantMessage, topics: ParticipantTopics): OutboxRecord {
  const encoded = encodeMessage(message);
  return { topic: topicFor(message.messageType, topics), key: encoded.key, value: encoded.value };
}

/**
 * The element properties a message carries, as plain values: every reference (get_attribute, get_property) is
 * replaced by the value it reads from the instance's elements now. An element a deploy or an update sets going was
 * resolved by the domain first (one that cannot be is failed, not sent), so a null here stands for a value not known
 * yet of an element the message does not set going. Without references the stored objects are returned as they are,
 * so such messages are exactly what they were.
 */
export interface PlainProperties {
  /** The node template's properties of an element. */
  template(name: string): Record<string, unknown>;
  /** An element's own properties, or the ones given (the element before an update). */
  element(element: InstanceElement, properties?: Record<string, unknown>): Record<string, unknown>;
}

function unknownAsNull(): null {
  return null;
}

export function plainPropertiesOf(
  elements: Readonly<Record<string, InstanceElement>>,
  info: Pick<CompositionTemplateInfo, 'elements'>,
): PlainProperties {
  const templates = new Map(info.elements.map((element) => [element.name, element.properties]));
  // Built on the first reference met: a message without any costs one walk of each properties object.
  let referenced: ReferencedElements | undefined;
  const lookup = (): ReferencedElements =>
    (referenced ??= referencedElementsOf({ elements }, (name) => templates.get(name)));
  const cache = new Map<string, Record<string, unknown>>();
  // One look at the instance per message (the templates' answer is remembered per definition): without a reference
  // anywhere, every properties object goes as it is. The native serialiser finds a function's name far faster than
  // a walk of each element's properties; a match is then checked element by element.
  const anyReference = anyHasReferences(info.elements) || mayHoldReferences(elements);
  const plain = (properties: Record<string, unknown>, self: string): Record<string, unknown> => {
    if (!anyReference || !hasReferences(properties)) {
      return properties;
    }
    const resolution = resolveReferences(properties, self, lookup(), unknownAsNull);
    return resolution.ok ? resolution.value : properties;
  };
  return {
    template: (name) => {
      const found = cache.get(name);
      if (found !== undefined) {
        return found;
      }
      const own = templates.get(name) ?? {};
      const value = plain(own, name);
      cache.set(name, value);
      return value;
    },
    element: (element, properties = element.properties) => plain(properties, element.definition.name),
  };
}

/** Whether an instance's element properties may hold a reference: false means none does. */
function mayHoldReferences(elements: Readonly<Record<string, InstanceElement>>): boolean {
  const text = JSON.stringify(Object.values(elements).map((element) => element.properties));
  return text.includes('"get_attribute"') || text.includes('"get_property"');
}

/** A node template's properties where no instance exists (prime, a definition's SYNC): references go as null. */
function withoutReferences(properties: Record<string, unknown>, self: string): Record<string, unknown> {
  if (!hasReferences(properties)) {
    return properties;
  }
  const resolution = resolveReferences(properties, self, () => undefined, unknownAsNull);
  return resolution.ok ? resolution.value : properties;
}

function participantsOf(elements: Iterable<InstanceElement>): string[] {
  return [...new Set([...elements].map((element) => element.participantId).filter((id): id is string => id !== null))];
}

/** The per-participant element DTOs ONAP sends with deploy-like orders: the current element as the target. */
export function participantDtos(
  instance: AutomationComposition,
  info: CompositionTemplateInfo,
  elements: readonly InstanceElement[],
  plain: PlainProperties = plainPropertiesOf(instance.elements, info),
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
        inProperties: definition === undefined ? {} : plain.template(definition.name),
        outProperties: {},
        state: 'PRESENT',
      },
      instanceElementTarget: {
        instanceId: instance.instanceId,
        elementId: element.id,
        inProperties: plain.element(element),
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
  plain: PlainProperties,
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
        properties: plain.element(element),
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

function nodeTemplateProperties(
  side: CompositionSide,
  definition: { name: string },
  elements: Readonly<Record<string, InstanceElement>>,
): Record<string, unknown> {
  const properties = side.info.elements.find((element) => element.name === definition.name)?.properties ?? {};
  return hasReferences(properties) ? plainPropertiesOf(elements, side.info).template(definition.name) : properties;
}

function compositionElementDto(
  side: CompositionSide,
  definition: InstanceElement['definition'],
  state: CompositionElementDto['state'],
  elements: Readonly<Record<string, InstanceElement>>,
): CompositionElementDto {
  const present = state !== 'NOT_PRESENT';
  return {
    compositionId: side.definition.compositionId,
    elementDefinitionId: definition,
    inProperties: present ? nodeTemplateProperties(side, definition, elements) : {},
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
  plain: PlainProperties,
): ParticipantDto[] {
  const groups = new Map<string, AcElementDto[]>();
  const all = Object.fromEntries(elements.map((element) => [element.id, element]));
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
      compositionElement: compositionElementDto(from, source?.definition ?? element.definition, sourceState, all),
      instanceElement: {
        instanceId,
        elementId: element.id,
        inProperties: sourceState === 'PRESENT' ? plain.element(element, source?.properties ?? element.properties) : {},
        outProperties: sourceState === 'PRESENT' ? element.outProperties : {},
        state: sourceState,
      },
      compositionElementTarget: compositionElementDto(
        element.migrationState === 'REMOVED' ? from : to,
        element.definition,
        targetState,
        all,
      ),
      instanceElementTarget: {
        instanceId,
        elementId: element.id,
        inProperties: plain.element(element),
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
  const plain = plainPropertiesOf(Object.fromEntries(elements.map((element) => [element.id, element])), to.info);
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
    participantUpdatesList: participantDeploys(
      participantsOf(elements),
      elements,
      () => (rollback ? 'MIGRATION_REVERT' : 'MIGRATE'),
      plain,
    ),
    participantDtoList: migrationDtos(
      instance.instanceId,
      from,
      to,
      elements,
      input.before ?? (precheck ? instance.elements : {}),
      plain,
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
  const plain = plainPropertiesOf(instance.elements, info);
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
    participantDtoList: participantDtos(instance, info, asDeployed(input, elements.filter(described)), plain),
  };
  if (input.order === 'DEPLOY') {
    const deploy: AutomationCompositionDeploy = {
      messageType: 'AUTOMATION_COMPOSITION_DEPLOY',
      ...envelope,
      participantUpdatesList: participantDeploys(
        envelope.participantIdList,
        elements,
        (element) => (described(element) ? 'DEPLOY' : 'NONE'),
        plain,
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
              inProperties:
                previous === undefined
                  ? (dto.instanceElementTarget?.inProperties ?? {})
                  : plain.element(previous, previous.properties),
              outProperties: dto.instanceElementTarget?.outProperties ?? {},
              state: 'PRESENT' as const,
            },
          };
        }),
      })),
      participantUpdatesList: participantDeploys(envelope.participantIdList, elements, () => 'UPDATE', plain),
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
        input.order === 'PREPARE' ? participantDeploys(envelope.participantIdList, elements, () => 'NONE', plain) : [],
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
    const nodeTemplate = nodeTemplates[element.name] ?? {};
    const properties = nodeTemplate['properties'] as Record<string, unknown> | undefined;
    list.push({
      acElementDefinitionId: { name: element.name, version: element.version },
      automationCompositionElementToscaNodeTemplate:
        properties !== undefined && hasReferences(properties)
          ? { ...nodeTemplate, properties: withoutReferences(properties, element.name) }
          : nodeTemplate,
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

export function restartAc(
  instance: AutomationComposition,
  onlyParticipant?: string,
  info: Pick<CompositionTemplateInfo, 'elements'> = { elements: [] },
): ParticipantRestartAc {
  const plain = plainPropertiesOf(instance.elements, info);
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
        properties: plain.element(element),
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
  info?: Pick<CompositionTemplateInfo, 'elements'>,
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
    automationcompositionList: [restartAc(instance, undefined, info)],
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
