/**
 * Runtime information a participant pushes outside any order (ONAP's ParticipantIntermediaryApi
 * `sendAcElementInfo` / `sendAcDefinitionInfo`): a STATUS carrying the element's or definition's data.
 */
import type { PropertyMap, ToscaConceptIdentifier, Uuid } from '@acm/contracts';

import { copy, definitionKey } from '../cache';
import type { ReportedElementInfo, InstanceElement } from '../types';
import type { ParticipantCore } from './core';
import { statusMessage } from './outbound';

/** Copies what the info names onto the cached element; fields left out keep their values. */
export function applyInfo(element: InstanceElement, info: ReportedElementInfo): void {
  if (info.outProperties !== undefined) {
    element.outProperties = copy(info.outProperties);
  }
  if (info.operationalState !== undefined) {
    element.operationalState = info.operationalState;
  }
  if (info.useState !== undefined) {
    element.useState = info.useState;
  }
}

/**
 * Sends an element's information as a PARTICIPANT_STATUS. `queued` resolves as soon as the message is queued (it
 * still leaves in order, ahead of anything queued after it), so a handler's info and its ack share one send;
 * `sent` waits for the broker.
 */
export async function sendElementInfo(
  core: ParticipantCore,
  instanceId: Uuid,
  elementId: Uuid,
  info: ReportedElementInfo,
  delivery: 'sent' | 'queued' = 'sent',
): Promise<boolean> {
  const instance = core.cache.instances.get(instanceId.toLowerCase());
  const element = instance?.elements.get(elementId.toLowerCase());
  if (instance === undefined || element === undefined) {
    core.logger('warn', 'Cannot send element info: element unknown to this participant', { instanceId, elementId });
    return false;
  }
  applyInfo(element, info);
  const view = core.cache.instanceStates(instance);
  const status = statusMessage(core);
  if (instance.compositionId !== undefined) {
    status.compositionId = instance.compositionId;
  }
  status.automationCompositionInfoList = [
    {
      automationCompositionId: instance.instanceId,
      deployState: view.deployState,
      lockState: view.lockState,
      elements: [
        {
          automationCompositionElementId: element.id,
          deployState: element.deployState,
          lockState: element.lockState,
          ...(element.operationalState === undefined ? {} : { operationalState: element.operationalState }),
          ...(element.useState === undefined ? {} : { useState: element.useState }),
          // No copy: publish encodes the message before anything can change the cached element.
          outProperties: element.outProperties,
        },
      ],
    },
  ];
  const sending = core.publish(status);
  if (delivery === 'sent') {
    await sending;
  }
  return true;
}

export async function sendCompositionInfo(
  core: ParticipantCore,
  compositionId: Uuid,
  definition: ToscaConceptIdentifier,
  outProperties: PropertyMap,
): Promise<boolean> {
  const composition = core.cache.compositions.get(compositionId.toLowerCase());
  const element = composition?.elements.get(definitionKey(definition));
  if (composition === undefined || element === undefined) {
    core.logger('warn', 'Cannot send composition info: definition unknown to this participant', {
      compositionId,
      definition,
    });
    return false;
  }
  element.outProperties = copy(outProperties);
  const status = statusMessage(core);
  status.compositionId = composition.compositionId;
  status.participantDefinitionUpdates = [
    {
      participantId: core.participantId,
      automationCompositionElementDefinitionList: [
        {
          acElementDefinitionId: copy(element.definition),
          automationCompositionElementToscaNodeTemplate: {
            ...(element.type === undefined ? {} : { type: element.type }),
            ...(element.typeVersion === undefined ? {} : { type_version: element.typeVersion }),
            properties: copy(element.inProperties),
          },
          outProperties: copy(element.outProperties),
        },
      ],
    },
  ];
  await core.publish(status);
  return true;
}
