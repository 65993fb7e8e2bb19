import { InMemoryMessageBus } from '@acm/messaging';
import { Participant } from '@acm/participant-sdk';
import { ScriptedRuntime, primeOrder } from '@acm/participant-sdk/testing';
import type { Composition } from '@acm/participant-sdk';
import type { TestElement } from '@acm/participant-sdk/testing';

const P = '101c62b3-8918-41b9-a747-d21eb79c6c90';
const OLD_COMPOSITION = 'c0c0c0c0-1111-4222-8333-444455556601';
const RECENT_COMPOSITION = 'c0c0c0c0-1111-4222-8333-444455556602';
const NEW_COMPOSITION = 'c0c0c0c0-1111-4222-8333-444455556603';
const element: TestElement = {
  id: 'e1e1e1e1-3333-4444-8555-666677778880',
  definition: { name: 'onap.policy.clamp.ac.element.Sim_0', version: '1.2.3' },
};
const START = Date.parse('2026-06-01T12:00:00Z');

describe('Participant on a topic with history (its group starts at the oldest record)', () => {
  it('skips orders stamped long before it started and runs the recent ones', async () => {
    const bus = new InMemoryMessageBus({ logger: () => undefined });
    const runtime = new ScriptedRuntime({ bus });
    await runtime.start();
    const primed: string[] = [];
    const participant = new Participant({
      participantId: P,
      supportedElementTypes: [
        { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' },
      ],
      bus,
      handler: {
        deploy: () => ({ ok: true }),
        undeploy: () => ({ ok: true }),
        prime: (composition: Composition) => {
          primed.push(composition.compositionId);
          return { ok: true };
        },
      },
      logger: () => undefined,
      clock: () => new Date(START),
      replayWindowMs: 60_000,
    });
    try {
      // History published before the participant's group existed: an hour old, and 30 s old.
      const old = { ...primeOrder({ participantId: P, compositionId: OLD_COMPOSITION, elements: [element] }) };
      old['timestamp'] = new Date(START - 3_600_000).toISOString();
      const recent = { ...primeOrder({ participantId: P, compositionId: RECENT_COMPOSITION, elements: [element] }) };
      recent['timestamp'] = new Date(START - 30_000).toISOString();
      await runtime.send(old);
      await runtime.send(recent);

      await participant.start();
      await runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === recent.messageId);
      const fresh = primeOrder({ participantId: P, compositionId: NEW_COMPOSITION, elements: [element] });
      fresh['timestamp'] = new Date(START + 1_000).toISOString();
      await runtime.send(fresh);
      await runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === fresh.messageId);

      expect(primed).toEqual([RECENT_COMPOSITION, NEW_COMPOSITION]);
      expect(runtime.messages('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === old.messageId)).toEqual([]);
    } finally {
      await participant.stop();
      await runtime.close();
      await bus.close();
    }
  });
});
