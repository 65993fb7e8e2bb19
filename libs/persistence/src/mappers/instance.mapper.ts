import type {
  AutomationComposition,
  DeployState,
  InstanceElement,
  LockState,
  MigrationState,
  StateChangeResult,
  SubState,
} from '@acm/domain';
import type { AutomationCompositionElementEntity } from '../entities/automation-composition-element.entity';
import { AutomationCompositionEntity } from '../entities/automation-composition.entity';

export function elementToDomain(row: AutomationCompositionElementEntity): InstanceElement {
  return {
    id: row.elementId,
    definition: { name: row.definitionName, version: row.definitionVersion },
    participantId: row.participantId,
    deployState: row.deployState as DeployState,
    lockState: row.lockState as LockState,
    subState: row.subState as SubState,
    migrationState: row.migrationState as MigrationState,
    stage: row.stage,
    operationalState: row.operationalState,
    useState: row.useState,
    description: row.description,
    message: row.message,
    properties: row.properties,
    outProperties: row.outProperties,
  };
}

export function instanceToDomain(
  row: AutomationCompositionEntity,
  elements: readonly AutomationCompositionElementEntity[],
): AutomationComposition {
  const ordered = [...elements].sort((a, b) => a.position - b.position);
  return {
    instanceId: row.instanceId,
    compositionId: row.compositionId,
    compositionTargetId: row.compositionTargetId,
    name: row.name,
    version: row.version,
    description: row.description,
    derivedFrom: row.derivedFrom,
    metadata: row.metadata,
    precheck: row.precheck,
    deployState: row.deployState as DeployState,
    lockState: row.lockState as LockState,
    subState: row.subState as SubState,
    stateChangeResult: row.stateChangeResult as StateChangeResult,
    phase: row.phase,
    lastMsg: row.lastMsg.getTime(),
    revisionId: row.revisionId,
    elements: Object.fromEntries(ordered.map((element) => [element.elementId, elementToDomain(element)])),
  };
}

export function instanceToPersistence(
  instance: AutomationComposition,
  rowVersion: number,
): AutomationCompositionEntity {
  const row = new AutomationCompositionEntity();
  row.instanceId = instance.instanceId;
  row.compositionId = instance.compositionId;
  row.compositionTargetId = instance.compositionTargetId;
  row.name = instance.name;
  row.version = instance.version;
  row.description = instance.description;
  row.derivedFrom = instance.derivedFrom;
  row.metadata = instance.metadata;
  row.precheck = instance.precheck;
  row.deployState = instance.deployState;
  row.lockState = instance.lockState;
  row.subState = instance.subState;
  row.stateChangeResult = instance.stateChangeResult;
  row.phase = instance.phase;
  row.lastMsg = new Date(instance.lastMsg);
  row.revisionId = instance.revisionId;
  row.rowVersion = rowVersion;
  return row;
}

/** Element rows as one JSON array, so a whole instance's elements are written in a single statement. */
export function elementsToRecordSet(instance: AutomationComposition, only?: ReadonlySet<string>): string {
  return JSON.stringify(
    Object.values(instance.elements).flatMap((element, position) =>
      only !== undefined && !only.has(element.id)
        ? []
        : [
            {
              element_id: element.id,
              instance_id: instance.instanceId,
              position,
              definition_name: element.definition.name,
              definition_version: element.definition.version,
              participant_id: element.participantId,
              deploy_state: element.deployState,
              lock_state: element.lockState,
              sub_state: element.subState,
              migration_state: element.migrationState,
              stage: element.stage,
              operational_state: element.operationalState,
              use_state: element.useState,
              description: element.description,
              message: element.message,
              properties: element.properties,
              out_properties: element.outProperties,
            },
          ],
    ),
  );
}
