import type { Composition, CompositionContext } from '@acm/participant-sdk';
import { deprimeOrder, primeOrder } from '@acm/participant-sdk/testing';

import {
  base,
  closeHarnesses,
  COMPOSITION,
  el0,
  el1,
  elOther,
  harness,
  mockHandler,
  P,
  primed,
  REPLICA,
} from './testing/participant-spec-harness';

afterEach(closeHarnesses);

describe('Participant', () => {
  describe('prime and deprime', () => {
    it('caches the composition, calls prime and answers PRIME_ACK PRIMED', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const prime = primeOrder({ ...base, elements: [el0, el1, elOther] });
      await h.runtime.send(prime);
      const ack = await h.runtime.waitFor('PARTICIPANT_PRIME_ACK');
      expect(ack).toMatchObject({
        responseTo: prime.messageId,
        compositionId: COMPOSITION,
        participantId: P,
        replicaId: REPLICA,
        compositionState: 'PRIMED',
        stateChangeResult: 'NO_ERROR',
        message: 'Primed',
      });
      expect(ack.outPropertiesList?.map((entry) => entry.elementDefinitionId.name).sort()).toEqual([
        el0.definition.name,
        el1.definition.name,
      ]);
      const composition = handler.prime.mock.calls[0]?.[0] as Composition;
      expect(composition.elements.map((element) => [element.definition.name, element.startPhase])).toEqual([
        [el0.definition.name, 0],
        [el1.definition.name, 1],
      ]);
      expect(h.participant.getComposition(COMPOSITION)?.state).toBe('PRIMED');
    });

    it('reports prime outProperties and a failed prime as COMMISSIONED / FAILED', async () => {
      const handler = mockHandler();
      handler.prime.mockReturnValueOnce({
        ok: true,
        outProperties: { [`${el0.definition.name} ${el0.definition.version}`]: { InternalState: 'PRIMED' } },
      });
      handler.prime.mockImplementationOnce(() => {
        throw new Error('boom');
      });
      const h = await harness(handler);
      await primed(h, [el0]);
      const [first] = h.runtime.messages('PARTICIPANT_PRIME_ACK');
      expect(first?.outPropertiesList).toEqual([
        { elementDefinitionId: el0.definition, outProperties: { InternalState: 'PRIMED' } },
      ]);

      const again = primeOrder({ ...base, elements: [el0] });
      await h.runtime.send(again);
      const failed = await h.runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === again.messageId);
      expect(failed).toMatchObject({ compositionState: 'COMMISSIONED', stateChangeResult: 'FAILED' });
      expect(failed.message).toContain('boom');
    });

    it('deprimes a known composition and forgets it', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h);
      const deprime = deprimeOrder({ ...base, elements: [] });
      await h.runtime.send(deprime);
      const ack = await h.runtime.waitFor(
        'PARTICIPANT_PRIME_ACK',
        (message) => message.responseTo === deprime.messageId,
      );
      expect(ack).toMatchObject({
        compositionState: 'COMMISSIONED',
        stateChangeResult: 'NO_ERROR',
        message: 'Deprimed',
      });
      expect(handler.deprime).toHaveBeenCalledTimes(1);
      expect(h.participant.getComposition(COMPOSITION)).toBeUndefined();
    });

    it('answers a DEPRIME of an unknown composition without calling the handler', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const deprime = deprimeOrder({ ...base, elements: [] });
      await h.runtime.send(deprime);
      const ack = await h.runtime.waitFor('PARTICIPANT_PRIME_ACK');
      expect(ack).toMatchObject({
        responseTo: deprime.messageId,
        compositionId: COMPOSITION,
        compositionState: 'COMMISSIONED',
        stateChangeResult: 'NO_ERROR',
        message: 'Already deprimed or never primed',
      });
      expect(handler.deprime).not.toHaveBeenCalled();
    });

    it('supports prime returning pending and reporting later', async () => {
      let later: CompositionContext | undefined;
      const handler = mockHandler();
      handler.prime.mockImplementation((_composition, ctx) => {
        later = ctx;
        return 'pending';
      });
      const h = await harness(handler);
      const prime = primeOrder({ ...base, elements: [el0] });
      await h.runtime.send(prime);
      await h.participant.whenIdle();
      while (later === undefined) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(h.runtime.messages('PARTICIPANT_PRIME_ACK')).toHaveLength(0);
      await later.report.failed('no luck');
      await expect(h.runtime.waitFor('PARTICIPANT_PRIME_ACK')).resolves.toMatchObject({
        stateChangeResult: 'FAILED',
        compositionState: 'COMMISSIONED',
        message: 'no luck',
      });
    });
  });
});
