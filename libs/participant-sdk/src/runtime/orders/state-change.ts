/** AUTOMATION_COMPOSITION_STATE_CHANGE: undeploy, delete, lock or unlock one start phase of an instance. */
import type { AutomationCompositionStateChange, Uuid } from '@acm/contracts';

import { dtoElementId } from '../../cache';
import { dtoMap, hasWork } from '../core';
import type { ParticipantCore } from '../core';
import { answerResend, runElement } from '../element-runner';
import type { ElementInvoker } from '../element-runner';
import { beginOrder } from '../order-memory';
import { deployAck } from '../outbound';

type StateChangeOperation = 'deploy' | 'undeploy' | 'delete' | 'lock' | 'unlock';

export async function onStateChange(core: ParticipantCore, message: AutomationCompositionStateChange): Promise<void> {
  const order = await beginOrder(core, message.messageId);
  if (order === undefined) {
    return;
  }
  const instanceId = message.automationCompositionId;
  const dtos = core.myDtos(message.participantDtoList);
  const deployOrder = message.deployOrderedState;
  const lockOrder = message.lockOrderedState;
  const known = core.cache.instances.get(instanceId);
  if (known === undefined && (deployOrder === 'DELETE' || dtos.length === 0)) {
    // ONAP: an instance this replica never cached. A DELETE is answered at once (nothing to delete here);
    // other orders are not for this participant.
    if (deployOrder === 'DELETE') {
      const ack = deployAck(core, message.messageId, instanceId, true, 'Already deleted or never used', {});
      order.acks.set('', ack);
      await core.publish(ack);
    } else {
      core.logger('debug', 'State change for an instance this participant does not use', { instanceId });
    }
    return;
  }
  const operation = stateChangeOperation(deployOrder, lockOrder);
  if (operation === undefined) {
    core.logger('warn', 'State change without an order this participant handles', {
      instanceId,
      deployOrderedState: deployOrder,
      lockOrderedState: lockOrder,
    });
    return;
  }
  const revision = message.revisionIdInstance === undefined ? {} : { revision: message.revisionIdInstance };
  const dtoById = dtoMap(dtos);
  // An element deleted by this order's first delivery is no longer cached: a resend gets its recorded answer,
  // and its DTO must not bring it back into the cache.
  const answered = new Set<Uuid>();
  if (operation === 'delete') {
    for (const elementId of dtoById.keys()) {
      const step = { operation, phase: message.startPhase, ...revision };
      if (
        known?.elements.has(elementId) !== true &&
        (await answerResend(core, order, message.messageId, instanceId, elementId, step))
      ) {
        answered.add(elementId);
      }
    }
  }
  const toCache = dtos.filter((dto) => !answered.has(dtoElementId(dto) ?? ''));
  // The DTOs complete a cache that missed elements (e.g. a replica that started after the deploy).
  const instance =
    toCache.length > 0
      ? core.cache.upsertFromOrder(
          instanceId,
          known?.compositionId ?? message.compositionId,
          message.revisionIdInstance ?? known?.revisionId,
          [],
          toCache,
          false,
        ).instance
      : known;
  if (instance === undefined) {
    return;
  }
  if (operation === 'undeploy') {
    delete instance.compositionTargetId;
  }
  for (const elementId of [...instance.elements.keys()]) {
    const element = instance.elements.get(elementId);
    if (element === undefined || answered.has(elementId) || !hasWork(elementId, dtoById, [])) {
      continue;
    }
    const compositionElement = core.compositionElementFor(
      instance.compositionId ?? message.compositionId,
      element.definition,
      dtoById.get(elementId)?.compositionElement,
    );
    if (compositionElement.startPhase !== message.startPhase) {
      continue;
    }
    await runElement(core, {
      order,
      messageId: message.messageId,
      operation,
      instanceId,
      element,
      compositionElement,
      phase: message.startPhase,
      ...revision,
      invoke: elementInvoker(core, operation),
    });
  }
}

function stateChangeOperation(
  deployOrder: AutomationCompositionStateChange['deployOrderedState'],
  lockOrder: AutomationCompositionStateChange['lockOrderedState'],
): StateChangeOperation | undefined {
  if (deployOrder === 'UNDEPLOY' || deployOrder === 'DELETE' || deployOrder === 'DEPLOY') {
    return deployOrder === 'UNDEPLOY' ? 'undeploy' : deployOrder === 'DELETE' ? 'delete' : 'deploy';
  }
  if (lockOrder === 'LOCK' || lockOrder === 'UNLOCK') {
    return lockOrder === 'LOCK' ? 'lock' : 'unlock';
  }
  return undefined;
}

function elementInvoker(core: ParticipantCore, operation: StateChangeOperation): ElementInvoker | undefined {
  const handler = core.handler;
  return handler[operation] === undefined ? undefined : (ctx) => handler[operation]?.(ctx);
}
