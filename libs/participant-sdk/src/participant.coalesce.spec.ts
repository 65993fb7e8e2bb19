import { randomUUID } from 'node:crypto';

import type { ElementContext } from '@acm/participant-sdk';
import { deployOrder } from '@acm/participant-sdk/testing';
import type { OrderJson, TestElement } from '@acm/participant-sdk/testing';

import {
  base,
  closeHarnesses,
  E0,
  E1,
  el0,
  harness,
  INSTANCE,
  mockHandler,
  ok,
  primed,
} from './testing/participant-spec-harness';
import type { Harness } from './testing/participant-spec-harness';

afterEach(closeHarnesses);

/** E1 in phase 0 too, so one phase runs both elements. */
const el1Phase0: TestElement = { id: E1, definition: { name: 'onap.policy.clamp.ac.element.Sim_1', version: '1.2.3' } };

function deployBoth(): OrderJson {
  return deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, el1Phase0], startPhase: 0 });
}

function acksTo(h: Harness, order: OrderJson) {
  return h.runtime.messages('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === order.messageId);
}

/** The element-info STATUS messages received (heartbeats and registration answers carry no instance). */
function infos(h: Harness) {
  return h.runtime.messages('PARTICIPANT_STATUS', (status) => (status.automationCompositionInfoList ?? []).length > 0);
}

describe('Participant: answers of one turn leave as one message', () => {
  it('sends one STATUS with both infos and one ACK with both elements when the elements finish in the same turn', async () => {
    const handler = mockHandler();
    handler.deploy.mockImplementation(async (ctx: ElementContext) => {
      await ctx.report.info({ outProperties: { InternalState: 'DEPLOYING' } });
      return { ok: true, outProperties: { InternalState: 'DEPLOYED' } };
    });
    const h = await harness(handler);
    await primed(h, [el0, el1Phase0]);
    const deploy = deployBoth();
    await h.runtime.send(deploy);
    await h.runtime.waitForAckedElements(2, (ack) => ack.responseTo === deploy.messageId);

    const acks = acksTo(h, deploy);
    expect(acks).toHaveLength(1);
    expect(acks[0]).toMatchObject({ automationCompositionId: INSTANCE, stateChangeResult: 'NO_ERROR' });
    expect(Object.keys(acks[0]!.automationCompositionResultMap)).toEqual([E0, E1]);
    expect(acks[0]!.automationCompositionResultMap[E1]).toMatchObject({
      deployState: 'DEPLOYED',
      result: true,
      outProperties: { InternalState: 'DEPLOYED' },
    });

    const statuses = infos(h);
    expect(statuses).toHaveLength(1);
    expect(statuses[0]!.automationCompositionInfoList).toEqual([
      expect.objectContaining({
        automationCompositionId: INSTANCE,
        elements: [
          expect.objectContaining({
            automationCompositionElementId: E0,
            outProperties: { InternalState: 'DEPLOYING' },
          }),
          expect.objectContaining({
            automationCompositionElementId: E1,
            outProperties: { InternalState: 'DEPLOYING' },
          }),
        ],
      }),
    ]);
    // The infos still arrive before the ACK that follows them.
    expect(h.runtime.received.indexOf(statuses[0]!)).toBeLessThan(h.runtime.received.indexOf(acks[0]!));
  });

  it('sends separate ACKs for elements that finish in different turns', async () => {
    const handler = mockHandler();
    const running = new Map<string, ElementContext>();
    handler.deploy.mockImplementation((ctx: ElementContext) => {
      running.set(ctx.instanceElement.id, ctx);
      return 'pending';
    });
    const h = await harness(handler);
    await primed(h, [el0, el1Phase0]);
    const deploy = deployBoth();
    await h.runtime.send(deploy);
    while (running.size < 2) {
      // Both handlers start from the one order record; let the participant reach the second.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // `done` resolves once its ACK was sent, so the second report comes in a later turn.
    await running.get(E0)!.report.done();
    await running.get(E1)!.report.done();
    await h.runtime.waitForAckedElements(2, (ack) => ack.responseTo === deploy.messageId);

    expect(acksTo(h, deploy).map((ack) => Object.keys(ack.automationCompositionResultMap))).toEqual([[E0], [E1]]);
  });

  it('does not merge different answers: a failed element gets an ACK of its own', async () => {
    const handler = mockHandler();
    handler.deploy.mockImplementation((ctx: ElementContext) =>
      ctx.instanceElement.id === E1 ? { ok: false, message: 'no capacity' } : ok,
    );
    const h = await harness(handler);
    await primed(h, [el0, el1Phase0]);
    const deploy = deployBoth();
    await h.runtime.send(deploy);
    await h.runtime.waitForAckedElements(2, (ack) => ack.responseTo === deploy.messageId);

    const acks = acksTo(h, deploy);
    expect(
      acks.map((ack) => [ack.stateChangeResult, ack.message, Object.keys(ack.automationCompositionResultMap)]),
    ).toEqual([
      ['NO_ERROR', 'Deployed', [E0]],
      ['FAILED', 'no capacity', [E1]],
    ]);
  });

  it('repeats the merged answer, covering every element, for a resent phase and for a redelivered order', async () => {
    const handler = mockHandler();
    const h = await harness(handler);
    await primed(h, [el0, el1Phase0]);
    const deploy = deployBoth();
    await h.runtime.send(deploy);
    await h.runtime.waitForAckedElements(2, (ack) => ack.responseTo === deploy.messageId);
    const [first] = acksTo(h, deploy);

    // What the runtime sends after maxWaitMs: the same phase under a new messageId.
    const resend: OrderJson = { ...deploy, messageId: randomUUID(), timestamp: new Date().toISOString() };
    await h.runtime.send(resend);
    await h.runtime.waitForAckedElements(2, (ack) => ack.responseTo === resend.messageId);
    const resent = acksTo(h, resend);
    expect(resent).toHaveLength(1);
    expect(resent[0]!.automationCompositionResultMap).toEqual(first!.automationCompositionResultMap);

    // The same record again (a redelivery): the recorded acks, again in one message.
    await h.runtime.send(deploy);
    await h.runtime.waitForAckedElements(4, (ack) => ack.responseTo === deploy.messageId);
    const both = acksTo(h, deploy);
    expect(both).toHaveLength(2);
    expect(both[1]!.automationCompositionResultMap).toEqual(first!.automationCompositionResultMap);
    expect(handler.deploy).toHaveBeenCalledTimes(2);
  });
});
