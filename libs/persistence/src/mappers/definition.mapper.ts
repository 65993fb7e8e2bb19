import { DEFAULT_PROJECT } from '@acm/domain';
import type { AcTypeState, CompositionDefinition, StateChangeResult } from '@acm/domain';
import { CompositionDefinitionEntity } from '../entities/composition-definition.entity';

export function definitionToDomain(row: CompositionDefinitionEntity): CompositionDefinition {
  return {
    compositionId: row.compositionId,
    name: row.name,
    version: row.version,
    serviceTemplate: row.serviceTemplate,
    state: row.state as AcTypeState,
    stateChangeResult: row.stateChangeResult as StateChangeResult,
    lastMsg: row.lastMsg.getTime(),
    elementStateMap: row.elementStateMap,
    revisionId: row.revisionId,
    // Absent for the default project, as a definition built without one reads back the same.
    ...(row.project === DEFAULT_PROJECT ? {} : { project: row.project }),
  };
}

export function definitionToPersistence(
  definition: CompositionDefinition,
  rowVersion: number,
): CompositionDefinitionEntity {
  const row = new CompositionDefinitionEntity();
  row.compositionId = definition.compositionId;
  row.name = definition.name;
  row.version = definition.version;
  row.serviceTemplate = definition.serviceTemplate;
  row.state = definition.state;
  row.stateChangeResult = definition.stateChangeResult;
  row.lastMsg = new Date(definition.lastMsg);
  row.elementStateMap = definition.elementStateMap;
  row.revisionId = definition.revisionId;
  row.project = definition.project ?? DEFAULT_PROJECT;
  row.rowVersion = rowVersion;
  return row;
}
