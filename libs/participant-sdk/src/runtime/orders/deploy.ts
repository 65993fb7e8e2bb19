/** AUTOMATION_COMPOSITION_DEPLOY: deploy this participant's elements of one start phase. */
import type { AutomationCompositionDeploy } from '@acm/contracts';

import { dtoMap, hasWork } from '../core';
import type { ParticipantCore } from '../core';
import { runElement } from '../element-runner';
import { beginOrder } from '../order-memory';

export async function onDeploy(core: ParticipantCore, message: AutomationCompositionDeploy): Promise<void> {
  const order = await beginOrder(core, message.messageId);
  if (order === undefined) {
    return;
  }
  const instanceId = message.automationCompositionId;
  const deploys = core.myDeploys(message.participantUpdatesList);
  const dtos = core.myDtos(message.participantDtoList);
  if (deploys.length === 0 && dtos.length === 0) {
    core.logger('debug', 'Deploy without elements of this participant', { instanceId });
    return;
  }
  const { instance, elementIds } = core.cache.upsertFromOrder(
    instanceId,
    message.compositionId ?? core.cache.instances.get(instanceId)?.compositionId,
    message.revisionIdInstance,
    deploys,
    dtos,
    message.firstStartPhase === true,
  );
  const dtoById = dtoMap(dtos);
  for (const elementId of elementIds) {
    const element = instance.elements.get(elementId);
    if (element === undefined || !hasWork(elementId, dtoById, deploys)) {
      continue;
    }
    const compositionElement = core.compositionElementFor(
      instance.compositionId,
      element.definition,
      dtoById.get(elementId)?.compositionElement,
    );
    if (compositionElement.startPhase !== message.startPhase) {
      continue;
    }
    await runElement(core, {
      order,
      messageId: message.messageId,
      operation: 'deploy',
      instanceId,
      element,
      compositionElement,
      phase: message.startPhase,
      ...(message.revisionIdInstance === undefined ? {} : { revision: message.revisionIdInstance }),
      invoke: (ctx) => core.handler.deploy(ctx),
    });
  }
}
