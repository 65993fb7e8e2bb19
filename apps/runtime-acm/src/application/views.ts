import type { AutomationComposition, CompositionDefinition, InstanceElement, Participant } from '@acm/domain';
import { DEFAULT_PROJECT, orderAvailability } from '@acm/domain';
import type { Disclosure } from '../security/sensitive-values';
import { maskSensitive } from '../security/sensitive-values';

/**
 * REST response shapes, field for field as ONAP returns them. Null fields are left out, as ONAP's
 * Jackson NON_NULL setting does.
 */

/** A view's fields: the null ones are left out. */
export type WithoutNulls<T> = { [K in keyof T]?: Exclude<T[K], null> };

function withoutNulls<T extends object>(value: T): WithoutNulls<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, item]) => item !== null && item !== undefined),
  ) as WithoutNulls<T>;
}

/** ONAP prints times as java.sql.Timestamp text; we print the same form in UTC (docs/compatibility.md). */
export function formatLastMsg(epochMs: number): string {
  return new Date(epochMs).toISOString().replace('T', ' ').replace('Z', '');
}

export function definitionView(definition: CompositionDefinition) {
  return {
    compositionId: definition.compositionId,
    serviceTemplate: definition.serviceTemplate,
    state: definition.state,
    stateChangeResult: definition.stateChangeResult,
    lastMsg: formatLastMsg(definition.lastMsg),
    elementStateMap: Object.fromEntries(
      Object.entries(definition.elementStateMap).map(([name, state]) => [name, withoutNulls(state)]),
    ),
    revisionId: definition.revisionId,
    // Beyond ONAP (its clients ignore unknown fields): the project the definition and its instances are in.
    project: definition.project ?? DEFAULT_PROJECT,
  };
}

/** Sensitive values are masked unless `disclose` was granted by SensitiveValues.disclosure. */
export function elementView(element: InstanceElement, disclose: Disclosure = maskSensitive) {
  return withoutNulls({
    id: element.id,
    definition: element.definition,
    participantId: element.participantId,
    deployState: element.deployState,
    lockState: element.lockState,
    subState: element.subState,
    migrationState: element.migrationState,
    stage: element.stage,
    operationalState: element.operationalState,
    useState: element.useState,
    description: element.description,
    message: element.message,
    properties: disclose(element.properties),
    outProperties: disclose(element.outProperties),
  });
}

export function instanceView(instance: AutomationComposition, disclose: Disclosure = maskSensitive) {
  return withoutNulls({
    name: instance.name,
    version: instance.version,
    derived_from: instance.derivedFrom,
    metadata: instance.metadata,
    description: instance.description,
    instanceId: instance.instanceId,
    compositionId: instance.compositionId,
    compositionTargetId: instance.compositionTargetId,
    precheck: instance.precheck,
    deployState: instance.deployState,
    lockState: instance.lockState,
    subState: instance.subState,
    stateChangeResult: instance.stateChangeResult,
    phase: instance.phase,
    lastMsg: formatLastMsg(instance.lastMsg),
    revisionId: instance.revisionId,
    elements: Object.fromEntries(
      Object.entries(instance.elements).map(([id, element]) => [id, elementView(element, disclose)]),
    ),
    // Beyond ONAP (its clients ignore unknown fields): what the state accepts now, by the rules the orders run.
    ...orderAvailability(instance),
  });
}

export function instancesView(instances: readonly AutomationComposition[], disclose: Disclosure = maskSensitive) {
  return { automationCompositionList: instances.map((instance) => instanceView(instance, disclose)) };
}

/** An instance view with its project (beyond ONAP: its definition's, found by `projectOf`). */
export type WithProject<T> = T & { project?: string };

/**
 * The instances of a list, each with its definition's project (looked up once per definition; a definition deleted
 * meanwhile leaves the field out).
 */
export async function withProjects(
  view: InstancesView,
  projectOf: (compositionId: string) => Promise<string | null>,
): Promise<{ automationCompositionList: WithProject<InstanceView>[] }> {
  const projects = new Map<string, string | null>();
  for (const instance of view.automationCompositionList) {
    const compositionId = instance.compositionId ?? '';
    if (!projects.has(compositionId)) {
      projects.set(compositionId, await projectOf(compositionId));
    }
  }
  return {
    automationCompositionList: view.automationCompositionList.map((instance) => {
      const project = projects.get(instance.compositionId ?? '');
      return project === null || project === undefined ? instance : { ...instance, project };
    }),
  };
}

export function participantView(participant: Participant) {
  return {
    participantId: participant.participantId,
    participantSupportedElementTypes: participant.participantSupportedElementTypes,
    replicas: Object.fromEntries(
      Object.entries(participant.replicas).map(([id, replica]) => [
        id,
        {
          replicaId: replica.replicaId,
          participantState: replica.participantState,
          lastMsg: formatLastMsg(replica.lastMsg),
        },
      ]),
    ),
  };
}

export type DefinitionView = ReturnType<typeof definitionView>;
export type ElementView = ReturnType<typeof elementView>;
export type InstanceView = ReturnType<typeof instanceView>;
export type InstancesView = ReturnType<typeof instancesView>;
export type ParticipantView = ReturnType<typeof participantView>;
