/** PROPERTIES_UPDATE: update (or revert an update of) instance element properties. */
import type { PropertiesUpdate, PropertyMap, Uuid } from '@acm/contracts';

import { copy } from '../../cache';
import { dtoMap } from '../core';
import type { ParticipantCore } from '../core';
import { runElement } from '../element-runner';
import { beginOrder } from '../order-memory';

export async function onUpdate(core: ParticipantCore, message: PropertiesUpdate): Promise<void> {
  const order = await beginOrder(core, message.messageId);
  if (order === undefined) {
    return;
  }
  const instanceId = message.automationCompositionId;
  const deploys = core.myDeploys(message.participantUpdatesList);
  const dtos = core.myDtos(message.participantDtoList);
  const dtoById = dtoMap(dtos);
  const instance =
    core.cache.instances.get(instanceId) ??
    core.cache.upsertFromOrder(instanceId, message.compositionId, message.revisionIdInstance, deploys, dtos, false)
      .instance;
  const targets: { id: Uuid; properties: PropertyMap | undefined }[] =
    deploys.length > 0
      ? deploys.map((deploy) => ({ id: deploy.id, properties: deploy.properties }))
      : [...dtoById.entries()].map(([id, dto]) => ({ id, properties: dto.instanceElementTarget?.inProperties }));
  for (const target of targets) {
    const element = instance.elements.get(target.id);
    if (element === undefined) {
      continue;
    }
    const before = copy(element);
    const dtoBefore = dtoById.get(target.id)?.instanceElement?.inProperties;
    if (dtoBefore !== undefined) {
      before.properties = copy(dtoBefore);
    }
    element.properties = copy(
      target.properties ?? dtoById.get(target.id)?.instanceElementTarget?.inProperties ?? element.properties,
    );
    const updated = copy(element);
    const handler = core.handler;
    await runElement(core, {
      order,
      messageId: message.messageId,
      operation: 'update',
      instanceId,
      element: before,
      compositionElement: core.compositionElementFor(
        instance.compositionId,
        element.definition,
        dtoById.get(target.id)?.compositionElement,
      ),
      phase: 0,
      ...(message.revisionIdInstance === undefined ? {} : { revision: message.revisionIdInstance }),
      target: updated.properties,
      invoke:
        handler.update === undefined
          ? undefined
          : (ctx) => handler.update?.({ ...ctx, instanceElementUpdated: updated }),
    });
  }
}
