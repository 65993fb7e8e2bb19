/** PARTICIPANT_SYNC_MSG: bring the caches in line with the runtime, and cancel on a TIMEOUT verdict. */
import type { ParticipantSync, Uuid } from '@acm/contracts';

import type { ParticipantCore } from '../core';

export function onSync(core: ParticipantCore, message: ParticipantSync): void {
  if ((message.excludeReplicas ?? []).some((replica) => replica.toLowerCase() === core.replicaId)) {
    return;
  }
  if (message.stateChangeResult === 'TIMEOUT') {
    cancelOperations(core, message.automationCompositionId, message.compositionId);
  }
  const instances = message.automationcompositionList ?? [];
  if (message.delete === true) {
    if (message.compositionId !== undefined && (message.state === 'COMMISSIONED' || instances.length === 0)) {
      if (message.automationCompositionId === undefined) {
        core.cache.compositions.delete(message.compositionId);
      }
    }
    for (const instance of instances) {
      core.cache.instances.delete(instance.automationCompositionId);
    }
    if (message.automationCompositionId !== undefined && instances.length === 0) {
      core.cache.instances.delete(message.automationCompositionId);
    }
    return;
  }
  const definitions = (message.participantDefinitionUpdates ?? [])
    .filter((entry) => core.isMe(entry.participantId))
    .flatMap((entry) => entry.automationCompositionElementDefinitionList);
  if (message.compositionId !== undefined && definitions.length > 0) {
    core.cache.storeComposition(
      message.compositionId,
      message.state ?? 'PRIMED',
      definitions,
      undefined,
      message.revisionIdComposition,
    );
  } else if (message.compositionId !== undefined && message.state !== undefined) {
    const composition = core.cache.compositions.get(message.compositionId);
    if (composition !== undefined) {
      composition.state = message.state;
      if (message.revisionIdComposition !== undefined) {
        composition.revisionId = message.revisionIdComposition;
      }
    }
  }
  for (const instance of instances) {
    const elements = (instance.acElementList ?? []).filter(
      (element) => element.participantId === undefined || core.isMe(element.participantId),
    );
    if (elements.length === 0) {
      continue;
    }
    const known = core.cache.instances.get(instance.automationCompositionId);
    core.cache.syncInstance(instance, elements, message.compositionId ?? known?.compositionId);
  }
}

/**
 * Why a handler's signal aborts when the runtime times its operation out. As ONAP's intermediary does (it interrupts
 * the handler's thread), the handler is asked to stop; one that finishes anyway still reports, and the runtime
 * applies that late result (a success can still complete the instance).
 */
export class TimedOutByRuntime extends Error {
  constructor() {
    super('Cancelled by the runtime (TIMEOUT)');
    this.name = 'TimedOutByRuntime';
  }
}

/** Whether an abort came from the runtime's TIMEOUT (its late report still goes out), not a newer order or a stop. */
export function isTimedOutByRuntime(signal: AbortSignal): boolean {
  return signal.reason instanceof TimedOutByRuntime;
}

/** Asks the running operations of an instance (or, without one, of a composition's prime/deprime) to stop. */
function cancelOperations(core: ParticipantCore, instanceId: Uuid | undefined, compositionId: Uuid | undefined): void {
  const cancelled = core.abortOperations(
    (operation) =>
      instanceId !== undefined
        ? operation.instanceId === instanceId
        : compositionId !== undefined &&
          operation.compositionId === compositionId &&
          operation.instanceId === undefined,
    () => new TimedOutByRuntime(),
  );
  for (let count = 0; count < cancelled; count += 1) {
    core.logger('info', 'Operation cancelled by the runtime', { instanceId, compositionId });
  }
}
