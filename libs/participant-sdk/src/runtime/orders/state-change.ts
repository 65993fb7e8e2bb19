/** AUTOMATION_COMPOSITION_STATE_CHANGE: undeploy, delete, lock or unlock one start phase of an instance. */
import type { AutomationCompositionStateChange } from '@acm/contracts';

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
  // The DTOs complete a cache that missed elements (e.g. a replica that started after the deploy).
  const instance =
    dtos.length > 0
      ? core.cache.upsertFromOrder(
          instanceId,
          known?.compositionId ?? message.compositionId,
          message.revisionIdInstance ?? known?.revisionId,
          [],
          dtos,
          false,
        ).instance
      : known;
  if (instance === undefined) {
    return;
  }
  if (operation === 'undeploy') {
    delete instance.compositionTargetId;
  }
  const dtoById = dtoMap(dtos);
  const revision = message.revisionIdInstance === undefined ? {} : { revision: message.revisionIdInstance };
  for (const elementId of [...instance.elements.keys()]) {
    const element = instance.elements.get(elementId);
    if (element === undefined || !hasWork(elementId, dtoById, [])) {
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
  if (operation === 'delete') {
    // An element deleted by this order's first delivery is no longer cached: a resend still gets its answer.
    for (const elementId of dtoById.keys()) {
      if (!instance.elements.has(elementId)) {
        await answerResend(core, order, message.messageId, instanceId, elementId, {
          operation,
          phase: message.startPhase,
          ...revision,
        });
      }
    }
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
