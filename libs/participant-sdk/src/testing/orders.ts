/**
 * Builders of runtime-to-participant orders as plain JSON shaped like ONAP's runtime writes them
 * (ONAP's example messages): both the legacy lists and the DTO lists are filled, so a participant that reads
 * either is exercised. For tests that play the runtime ({@link ScriptedRuntime}).
 */
import { randomUUID } from 'node:crypto';

import type { PropertyMap, ToscaConceptIdentifier, Uuid } from '@acm/contracts';

/**
 * An element of a test composition + instance.
 *
 * @publicApi Input of the order builders.
 */
export interface TestElement {
  /** Instance element id. */
  id: Uuid;
  /** Node template `{name, version}`. */
  definition: ToscaConceptIdentifier;
  /** Node template `properties.startPhase`; default 0. */
  startPhase?: number;
  /** Extra node-template properties (e.g. `stage`). */
  nodeProperties?: PropertyMap;
  /** Instance element properties. */
  properties?: PropertyMap;
  /** Owner; default the order's participant. */
  participantId?: Uuid;
  typeName?: string;
  typeVersion?: string;
}

/** @publicApi An order as JSON, with its `messageId` at hand. */
export type OrderJson = Record<string, unknown> & { messageId: Uuid; messageType: string };

/** @publicApi Fields every order builder takes. */
export interface OrderBase {
  participantId: Uuid;
  compositionId: Uuid;
  elements: readonly TestElement[];
  messageId?: Uuid;
  /**
   * Revision ids the order carries. They default to stable values (the composition id and the instance
   * id), so consecutive orders pass the participant's revision guard; give others to exercise it.
   */
  revisionIdComposition?: Uuid;
  revisionIdInstance?: Uuid;
}

const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';

function nodeProperties(element: TestElement): PropertyMap {
  return { ...element.nodeProperties, startPhase: element.startPhase ?? 0 };
}

function byParticipant(base: OrderBase): Map<Uuid, TestElement[]> {
  const groups = new Map<Uuid, TestElement[]>();
  for (const element of base.elements) {
    const owner = element.participantId ?? base.participantId;
    groups.set(owner, [...(groups.get(owner) ?? []), element]);
  }
  return groups;
}

function envelope(type: string, base: OrderBase): OrderJson {
  return {
    messageType: type,
    messageId: base.messageId ?? randomUUID(),
    timestamp: new Date().toISOString(),
    compositionId: base.compositionId,
    participantIdList: [...byParticipant(base).keys()],
  };
}

function dtoList(base: OrderBase, instanceId: Uuid): unknown[] {
  return [...byParticipant(base)].map(([participantId, elements]) => ({
    participantId,
    elementDtos: elements.map((element) => ({
      compositionElement: {
        compositionId: base.compositionId,
        elementDefinitionId: element.definition,
        inProperties: nodeProperties(element),
        outProperties: {},
        state: 'PRESENT',
      },
      instanceElementTarget: {
        instanceId,
        elementId: element.id,
        inProperties: element.properties ?? {},
        outProperties: {},
        state: 'PRESENT',
      },
    })),
  }));
}

/**
 * PARTICIPANT_PRIME (primeOrder PRIME) with `participantDefinitionUpdates` and `primeDtoList`.
 *
 * @publicApi Test helper.
 */
export function primeOrder(base: OrderBase): OrderJson {
  const groups = [...byParticipant(base)];
  return {
    ...envelope('PARTICIPANT_PRIME', base),
    revisionIdComposition: base.revisionIdComposition ?? base.compositionId,
    primeOrder: 'PRIME',
    participantDefinitionUpdates: groups.map(([participantId, elements]) => ({
      participantId,
      automationCompositionElementDefinitionList: elements.map((element) => ({
        acElementDefinitionId: element.definition,
        automationCompositionElementToscaNodeTemplate: {
          type: element.typeName ?? SIM_TYPE,
          type_version: element.typeVersion ?? '1.0.0',
          properties: nodeProperties(element),
        },
        outProperties: {},
      })),
    })),
    primeDtoList: groups.map(([participantId, elements]) => ({
      participantId,
      compositionDto: {
        compositionId: base.compositionId,
        inPropertiesMap: Object.fromEntries(
          elements.map((element) => [
            `${element.definition.name} ${element.definition.version}`,
            nodeProperties(element),
          ]),
        ),
        outPropertiesMap: Object.fromEntries(
          elements.map((element) => [`${element.definition.name} ${element.definition.version}`, {}]),
        ),
      },
    })),
  };
}

/**
 * PARTICIPANT_PRIME with primeOrder DEPRIME (no definitions, as ONAP sends it).
 *
 * @publicApi Test helper.
 */
export function deprimeOrder(base: OrderBase): OrderJson {
  return {
    ...envelope('PARTICIPANT_PRIME', base),
    revisionIdComposition: base.revisionIdComposition ?? base.compositionId,
    primeOrder: 'DEPRIME',
  };
}

/**
 * AUTOMATION_COMPOSITION_DEPLOY for one start phase.
 *
 * @publicApi Test helper.
 */
export function deployOrder(
  base: OrderBase & { instanceId: Uuid; startPhase?: number; firstStartPhase?: boolean },
): OrderJson {
  return {
    ...envelope('AUTOMATION_COMPOSITION_DEPLOY', base),
    automationCompositionId: base.instanceId,
    revisionIdComposition: base.revisionIdComposition ?? base.compositionId,
    revisionIdInstance: base.revisionIdInstance ?? base.instanceId,
    startPhase: base.startPhase ?? 0,
    firstStartPhase: base.firstStartPhase ?? true,
    participantUpdatesList: [...byParticipant(base)].map(([participantId, elements]) => ({
      participantId,
      acElementList: elements.map((element) => ({
        id: element.id,
        definition: element.definition,
        orderedState: 'DEPLOY',
        migrationState: 'DEFAULT',
        properties: element.properties ?? {},
      })),
    })),
    participantDtoList: dtoList(base, base.instanceId),
  };
}

/**
 * AUTOMATION_COMPOSITION_STATE_CHANGE (undeploy / delete / lock / unlock) for one start phase.
 *
 * @publicApi Test helper.
 */
export function stateChangeOrder(
  base: OrderBase & {
    instanceId: Uuid;
    startPhase?: number;
    firstStartPhase?: boolean;
    deployOrderedState?: 'UNDEPLOY' | 'DELETE' | 'NONE';
    lockOrderedState?: 'LOCK' | 'UNLOCK' | 'NONE';
  },
): OrderJson {
  return {
    ...envelope('AUTOMATION_COMPOSITION_STATE_CHANGE', base),
    automationCompositionId: base.instanceId,
    revisionIdComposition: base.revisionIdComposition ?? base.compositionId,
    revisionIdInstance: base.revisionIdInstance ?? base.instanceId,
    deployOrderedState: base.deployOrderedState ?? 'NONE',
    lockOrderedState: base.lockOrderedState ?? 'NONE',
    startPhase: base.startPhase ?? 0,
    firstStartPhase: base.firstStartPhase ?? true,
    participantDtoList: dtoList(base, base.instanceId),
  };
}
