/** Orders remembered by `messageId`: a redelivered order never runs a handler again. */
import type { Uuid } from '@acm/contracts';

import type { HandledOrder, ParticipantCore } from './core';

/**
 * Registers a new order, or — for a redelivered one — re-sends the acks already sent and returns
 * undefined so nothing runs twice.
 */
export async function beginOrder(core: ParticipantCore, messageId: Uuid): Promise<HandledOrder | undefined> {
  const seen = core.rememberedOrder(messageId);
  if (seen !== undefined) {
    core.logger('info', 'Redelivered order: re-sending its acks, handlers not run again', {
      messageId,
      acks: seen.acks.size,
    });
    for (const ack of seen.acks.values()) {
      await core.publish(ack);
    }
    return undefined;
  }
  return core.rememberOrder(messageId);
}
