/** AUTOMATION_COMPOSITION_PREPARE: prepare (staged, before a deploy) or review an instance's elements. */
import type { AutomationCompositionPrepare, Uuid } from '@acm/contracts';

import { nextStageOf, stagesOf } from '../../cache';
import { dtoMap } from '../core';
import type { ParticipantCore } from '../core';
import { runElement } from '../element-runner';
import { beginOrder } from '../order-memory';

export async function onPrepare(core: ParticipantCore, message: AutomationCompositionPrepare): Promise<void> {
  const order = await beginOrder(core, message.messageId);
  if (order === undefined) {
    return;
  }
  const instanceId = message.automationCompositionId;
  const operation: 'prepare' | 'review' = message.preDeploy === false ? 'review' : 'prepare';
  const stage = message.stage ?? 0;
  const deploys = core.myDeploys(message.participantList);
  const dtos = core.myDtos(message.participantDtoList);
  const dtoById = dtoMap(dtos);
  let instance = core.cache.instances.get(instanceId);
  let elementIds: Uuid[];
  if (instance === undefined || deploys.length > 0) {
    if (deploys.length === 0 && dtos.length === 0) {
      core.logger('debug', `${operation} for an instance this participant does not use`, { instanceId });
      return;
    }
    const upserted = core.cache.upsertFromOrder(
      instanceId,
      message.compositionId ?? instance?.compositionId,
      message.revisionIdInstance,
      deploys,
      dtos,
      false,
    );
    instance = upserted.instance;
    elementIds = upserted.elementIds;
  } else {
    elementIds = dtoById.size > 0 ? [...dtoById.keys()] : [...instance.elements.keys()];
  }
  for (const elementId of elementIds) {
    const element = instance.elements.get(elementId);
    if (element === undefined) {
      continue;
    }
    const compositionElement = core.compositionElementFor(
      instance.compositionId,
      element.definition,
      dtoById.get(elementId)?.compositionElement,
    );
    const stages = operation === 'prepare' ? stagesOf(compositionElement.inProperties, 'prepare') : [stage];
    if (!stages.includes(stage)) {
      continue;
    }
    const nextStage = nextStageOf(stages, stage);
    const handler = core.handler;
    await runElement(core, {
      order,
      messageId: message.messageId,
      operation,
      instanceId,
      element,
      compositionElement,
      phase: stage,
      ...(message.revisionIdInstance === undefined ? {} : { revision: message.revisionIdInstance }),
      invoke:
        handler[operation] === undefined ? undefined : (ctx) => handler[operation]?.({ ...ctx, stage, nextStage }),
      ...(operation === 'prepare' ? { staged: { stage, nextStage } } : {}),
    });
  }
}
