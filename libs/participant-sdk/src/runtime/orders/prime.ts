/** PARTICIPANT_PRIME: prime or deprime a composition definition on this participant. */
import type { ElementDefinitionOutProperties, ParticipantPrime, Uuid } from '@acm/contracts';
import type { AcTypeState } from '@acm/domain';
import { describeError } from '@acm/messaging';

import { copy } from '../../cache';
import type { CachedComposition } from '../../cache';
import type {
  CompositionContext,
  CompositionOperation,
  CompositionOutcome,
  CompositionReporter,
  CompositionResult,
} from '../../types';
import { asResult } from '../core';
import type { HandledOrder, ParticipantCore } from '../core';
import { beginOrder } from '../order-memory';
import { primeAck } from '../outbound';
import { isTimedOutByRuntime } from './sync';

export async function onPrime(core: ParticipantCore, message: ParticipantPrime): Promise<void> {
  const order = await beginOrder(core, message.messageId);
  if (order === undefined) {
    return;
  }
  const definitions = (message.participantDefinitionUpdates ?? [])
    .filter((entry) => core.isMe(entry.participantId))
    .flatMap((entry) => entry.automationCompositionElementDefinitionList);
  const dto = (message.primeDtoList ?? []).find((entry) => core.isMe(entry.participantId))?.compositionDto;
  const primeOrder = message.primeOrder ?? (definitions.length > 0 || dto !== undefined ? 'PRIME' : 'DEPRIME');
  const compositionId = message.compositionId;

  if (primeOrder === 'PRIME') {
    const composition = core.cache.storeComposition(
      compositionId,
      'PRIMING',
      definitions,
      dto,
      message.revisionIdComposition,
    );
    runComposition(core, order, message.messageId, 'prime', composition);
    return;
  }
  if (primeOrder === 'DEPRIME') {
    const composition = core.cache.compositions.get(compositionId);
    if (composition === undefined) {
      const result: CompositionResult = { ok: true, message: 'Already deprimed or never primed' };
      await sendPrimeAck(core, order, message.messageId, 'deprime', compositionId, 'COMMISSIONED', result, []);
      return;
    }
    composition.state = 'DEPRIMING';
    runComposition(core, order, message.messageId, 'deprime', composition);
    return;
  }
  core.logger('debug', 'PARTICIPANT_PRIME with primeOrder NONE ignored', { compositionId });
}

function runComposition(
  core: ParticipantCore,
  order: HandledOrder,
  messageId: Uuid,
  operation: CompositionOperation,
  composition: CachedComposition,
): void {
  const compositionId = composition.compositionId;
  const key = `composition:${compositionId}`;
  const controller = new AbortController();
  core.beginOperation(key, { controller, compositionId });
  let reported = false;

  const finish = async (result: CompositionResult): Promise<void> => {
    if (reported) {
      core.logger('warn', `${operation} of a composition reported twice; later report ignored`, { compositionId });
      return;
    }
    reported = true;
    if (controller.signal.aborted && !isTimedOutByRuntime(controller.signal)) {
      core.logger('info', `${operation} report dropped: the operation was cancelled`, { compositionId });
      return;
    }
    core.endOperation(key, controller);
    await finishComposition(core, order, messageId, operation, compositionId, result);
  };
  const report: CompositionReporter = {
    done: (result) => finish({ ...result, ok: true }),
    failed: (text) => finish({ ok: false, message: text }),
    get reported() {
      return reported;
    },
  };
  const ctx: CompositionContext = { messageId, report, signal: controller.signal };
  const handler = core.handler;
  const view = core.cache.compositionView(composition);

  core.track(async () => {
    if (handler[operation] === undefined) {
      await finish(core.unsupported());
      return;
    }
    order.invocations.set(compositionId, (order.invocations.get(compositionId) ?? 0) + 1);
    let outcome: CompositionOutcome;
    try {
      outcome = await handler[operation]?.(view, ctx);
    } catch (error) {
      core.logger('warn', `${operation} handler threw`, { compositionId, error: describeError(error) });
      await finish({ ok: false, message: `${operation} failed: ${describeError(error)}` });
      return;
    }
    if (outcome === 'pending') {
      return;
    }
    await finish(asResult<CompositionResult>(outcome, { ok: true }));
  });
}

async function finishComposition(
  core: ParticipantCore,
  order: HandledOrder,
  messageId: Uuid,
  operation: CompositionOperation,
  compositionId: Uuid,
  result: CompositionResult,
): Promise<void> {
  const state: AcTypeState =
    operation === 'prime' ? (result.ok ? 'PRIMED' : 'COMMISSIONED') : result.ok ? 'COMMISSIONED' : 'PRIMED';
  const composition = core.cache.compositions.get(compositionId);
  const outPropertiesList: ElementDefinitionOutProperties[] = [];
  if (composition !== undefined) {
    for (const [key, element] of composition.elements) {
      const reported = result.outProperties?.[key] ?? result.outProperties?.[element.definition.name];
      if (reported !== undefined) {
        element.outProperties = copy(reported);
      }
      outPropertiesList.push({
        elementDefinitionId: copy(element.definition),
        outProperties: copy(element.outProperties),
      });
    }
    composition.state = state;
    if (operation === 'deprime' && result.ok) {
      core.cache.compositions.delete(compositionId);
    }
  }
  await sendPrimeAck(core, order, messageId, operation, compositionId, state, result, outPropertiesList);
}

async function sendPrimeAck(
  core: ParticipantCore,
  order: HandledOrder,
  messageId: Uuid,
  operation: CompositionOperation,
  compositionId: Uuid,
  state: AcTypeState,
  result: CompositionResult,
  outPropertiesList: ElementDefinitionOutProperties[],
): Promise<void> {
  const ack = primeAck(core, messageId, operation, compositionId, state, result, outPropertiesList);
  order.acks.set(compositionId, ack);
  await core.publish(ack);
}
