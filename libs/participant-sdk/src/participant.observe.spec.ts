import type { ParticipantStatus } from '@acm/contracts';
import type { ElementObservation, ObserveContext } from '@acm/participant-sdk';
import { deployOrder, primeOrder } from '@acm/participant-sdk/testing';

import {
  base,
  closeHarnesses,
  E0,
  el0,
  el1,
  harness,
  INSTANCE,
  mockHandler,
  P,
} from './testing/participant-spec-harness';
import type { Harness } from './testing/participant-spec-harness';

afterEach(closeHarnesses);

function observing(observe: (ctx: ObserveContext) => ElementObservation | null | Promise<ElementObservation | null>) {
  return { ...mockHandler(), observe: jest.fn(observe) };
}

function hasObservation(status: ParticipantStatus): boolean {
  return (status.automationCompositionInfoList ?? []).some((info) =>
    (info.elements ?? []).some((element) => element.observation !== undefined),
  );
}

/** The STATUS reports that carry observations, as the runtime received them. */
function observationReports(h: Harness): ParticipantStatus[] {
  return h.runtime.messages('PARTICIPANT_STATUS', hasObservation);
}

/** Primes el0 and el1 (el0 with `observe_interval` metadata) and deploys phase 0: el0 DEPLOYED, el1 not. */
async function deployedOne(h: Harness, intervalSeconds: number): Promise<void> {
  const prime = primeOrder({ ...base, elements: [el0, el1] });
  const updates = prime['participantDefinitionUpdates'] as Array<{
    automationCompositionElementDefinitionList: Array<{
      automationCompositionElementToscaNodeTemplate: Record<string, unknown>;
    }>;
  }>;
  updates[0]!.automationCompositionElementDefinitionList[0]!.automationCompositionElementToscaNodeTemplate['metadata'] =
    { observe_interval: intervalSeconds };
  await h.runtime.send(prime);
  await h.runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === prime.messageId);
  const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, el1], startPhase: 0 });
  await h.runtime.send(deploy);
  await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === deploy.messageId);
}

describe('Participant observe', () => {
  it('answers STATUS_REQ with an observation of each deployed element', async () => {
    const handler = observing(() => ({ present: false, healthy: false, reason: 'deleted by hand', useState: 'IDLE' }));
    const h = await harness(handler);
    await deployedOne(h, 60);
    await h.runtime.send({
      messageType: 'PARTICIPANT_STATUS_REQ',
      messageId: 'aaaaaaaa-0000-4000-8000-000000000009',
      timestamp: new Date().toISOString(),
      participantId: P,
      participantIdList: [P],
    });
    const [report] = await h.runtime.waitForCount('PARTICIPANT_STATUS', 1, hasObservation);
    expect(report?.automationCompositionInfoList).toEqual([
      expect.objectContaining({
        automationCompositionId: INSTANCE,
        elements: [
          expect.objectContaining({
            automationCompositionElementId: E0,
            useState: 'IDLE',
            observation: { present: false, healthy: false, reason: 'deleted by hand' },
          }),
        ],
      }),
    ]);
    expect(handler.observe).toHaveBeenCalledTimes(1);
    expect(handler.observe.mock.calls[0]?.[0]).toMatchObject({
      instanceId: INSTANCE,
      instanceElement: { id: E0 },
      compositionElement: { definition: el0.definition, metadata: { observe_interval: 60 } },
    });
  });

  it('observes each element on its own schedule: its interval less the jitter, never more', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const handler = observing((ctx) => ({ present: true, healthy: true, properties: ctx.instanceElement.properties }));
    const h = await harness(handler, { clock: () => new Date(now), random: () => 0.5 });
    await deployedOne(h, 10);
    h.timers.tick();
    await h.runtime.waitForCount('PARTICIPANT_STATUS', 1, hasObservation);
    expect(handler.observe).toHaveBeenCalledTimes(1);
    // 10 s less half of the 20 % jitter: due after 9 s.
    now += 8_999;
    h.timers.tick();
    // observe runs synchronously up to its first await: a due element would have been observed by now.
    expect(handler.observe).toHaveBeenCalledTimes(1);
    now += 1;
    h.timers.tick();
    await h.runtime.waitForCount('PARTICIPANT_STATUS', 2, hasObservation);
    expect(handler.observe).toHaveBeenCalledTimes(2);
    expect(observationReports(h)).toHaveLength(2);
  });

  it('reports an element whose observe throws as present and unhealthy, with the error', async () => {
    const h = await harness(
      observing(() => {
        throw new Error('api down');
      }),
    );
    await deployedOne(h, 60);
    await expect(h.participant.observeNow()).resolves.toBe(1);
    const [report] = await h.runtime.waitForCount('PARTICIPANT_STATUS', 1, hasObservation);
    expect(report?.automationCompositionInfoList?.[0]?.elements?.[0]?.observation).toMatchObject({
      present: true,
      healthy: false,
      reason: expect.stringContaining('api down'),
    });
  });

  it('reports nothing for an element observe answers null for, and nothing at all without observe', async () => {
    const h = await harness(observing(() => null));
    await deployedOne(h, 60);
    await expect(h.participant.observeNow()).resolves.toBe(0);
    const plain = await harness(mockHandler());
    await expect(plain.participant.observeNow()).resolves.toBe(0);
  });
});
