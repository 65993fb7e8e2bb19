import { Participant } from '@acm/participant-sdk';
import { deployOrder, primeOrder } from '@acm/participant-sdk/testing';

import {
  base,
  closeHarnesses,
  COMPOSITION,
  E0,
  el0,
  harness,
  INSTANCE,
  mockHandler,
  OTHER,
  P,
  primed,
  REPLICA,
  SIM_TYPE,
} from './testing/participant-spec-harness';

afterEach(closeHarnesses);

describe('Participant', () => {
  describe('registration and heartbeat', () => {
    it('registers at start, repeats REGISTER each heartbeat until acknowledged, then sends STATUS', async () => {
      const h = await harness(mockHandler());
      const register = await h.runtime.waitFor('PARTICIPANT_REGISTER');
      expect(register).toMatchObject({
        participantId: P,
        replicaId: REPLICA,
        participantSupportedElementType: [expect.objectContaining(SIM_TYPE)],
      });
      expect(register.participantSupportedElementType?.[0]?.id).toEqual(expect.any(String));
      expect(h.timers.periods).toEqual([120_000]);
      expect(h.participant.isRegistered).toBe(false);

      h.timers.tick();
      await h.runtime.waitForCount('PARTICIPANT_REGISTER', 2);

      await h.runtime.acknowledgeRegistration(register);
      const status = await h.runtime.waitFor('PARTICIPANT_STATUS');
      expect(h.participant.isRegistered).toBe(true);
      expect(status).toMatchObject({
        participantId: P,
        replicaId: REPLICA,
        participantSupportedElementType: [expect.objectContaining(SIM_TYPE)],
      });

      h.timers.tick();
      await h.runtime.waitForCount('PARTICIPANT_STATUS', 2);
      expect(h.runtime.messages('PARTICIPANT_REGISTER')).toHaveLength(2);
    });

    it('uses the configured heartbeat period and shares the operation group between replicas', async () => {
      const h = await harness(mockHandler(), { heartbeatMs: 5_000 });
      expect(h.timers.periods).toEqual([5_000]);
      expect(h.participant.groupId).toBe(`participant-${P}`);
      const other = new Participant({
        participantId: P,
        supportedElementTypes: [SIM_TYPE],
        bus: h.bus,
        handler: mockHandler(),
      });
      expect(other.groupId).toBe(h.participant.groupId);
      expect(other.replicaId).not.toBe(h.participant.replicaId);
    });

    it('ignores a REGISTER_ACK for another replica', async () => {
      const h = await harness(mockHandler());
      const register = await h.runtime.waitFor('PARTICIPANT_REGISTER');
      await h.runtime.acknowledgeRegistration({ ...register, replicaId: '2cf0f8b4-5c1a-4c8c-9d8e-2f4a3a6b7c99' });
      // A STATUS_REQ for everybody, sent after the foreign ack on the same topic, proves the ack was processed.
      await h.runtime.send({
        messageType: 'PARTICIPANT_STATUS_REQ',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000001',
        timestamp: new Date().toISOString(),
        participantId: P,
        participantIdList: [],
      });
      await h.runtime.waitFor('PARTICIPANT_STATUS');
      expect(h.participant.isRegistered).toBe(false);
    });

    it('sends DEREGISTER and stops the heartbeat on stop', async () => {
      const h = await harness(mockHandler());
      await h.participant.stop();
      await h.runtime.waitFor('PARTICIPANT_DEREGISTER', (message) => message.replicaId === REPLICA);
      expect(h.timers.active).toBe(0);
    });

    it('answers PARTICIPANT_STATUS_REQ with a STATUS', async () => {
      const h = await harness(mockHandler());
      await h.runtime.send({
        messageType: 'PARTICIPANT_STATUS_REQ',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000002',
        timestamp: new Date().toISOString(),
        participantId: P,
        participantIdList: [P],
      });
      await expect(h.runtime.waitFor('PARTICIPANT_STATUS')).resolves.toMatchObject({ participantId: P });
    });
  });

  describe('filtering and robustness', () => {
    it('ignores orders for other participants and other replicas', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      const notMine = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send({ ...notMine, participantIdList: [OTHER] });
      const otherReplica = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send({ ...otherReplica, participantId: P, replicaId: '2cf0f8b4-5c1a-4c8c-9d8e-2f4a3a6b7c99' });
      const mine = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send(mine);
      const ack = await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      expect(ack.responseTo).toBe(mine.messageId);
      await h.participant.whenIdle();
      expect(handler.deploy).toHaveBeenCalledTimes(1);
      expect(h.runtime.messages('AUTOMATION_COMPOSITION_STATECHANGE_ACK')).toHaveLength(1);
    });

    it('skips undecodable records and keeps working', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await h.runtime.sendRaw('not json', 'operation', COMPOSITION);
      await h.runtime.sendRaw('{"messageType":"PARTICIPANT_PRIME"}', 'operation', COMPOSITION);
      await h.runtime.sendRaw('{"messageType":"NO_SUCH_TYPE"}', 'sync');
      await primed(h, [el0]);
      expect(handler.prime).toHaveBeenCalledTimes(1);
    });

    it('never runs a handler twice for a redelivered order and re-sends the recorded ack', async () => {
      const handler = mockHandler();
      handler.deploy.mockReturnValue({ ok: true, outProperties: { n: 1 } });
      const h = await harness(handler);
      await primed(h, [el0]);
      const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send(deploy);
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      await h.runtime.send(deploy);
      const [first, second] = await h.runtime.waitForCount('AUTOMATION_COMPOSITION_STATECHANGE_ACK', 2);
      expect(second).toEqual(first);
      expect(handler.deploy).toHaveBeenCalledTimes(1);
      expect(h.participant.handlerInvocations(deploy.messageId, E0)).toBe(1);
      expect(h.participant.handlerInvocationLog()).toContainEqual({
        messageId: deploy.messageId,
        targetId: E0,
        invocations: 1,
      });

      const prime = primeOrder({ ...base, elements: [el0] });
      await h.runtime.send(prime);
      await h.runtime.send(prime);
      await h.runtime.waitForCount('PARTICIPANT_PRIME_ACK', 2, (ack) => ack.responseTo === prime.messageId);
      expect(h.participant.handlerInvocations(prime.messageId, COMPOSITION)).toBe(1);
      expect(handler.prime).toHaveBeenCalledTimes(2); // once for `primed`, once for `prime`
    });

    it('forgets the oldest orders beyond its idempotence capacity', async () => {
      const handler = mockHandler();
      const h = await harness(handler, { idempotenceCapacity: 1 });
      const first = primeOrder({ ...base, elements: [el0] });
      const second = primeOrder({ ...base, elements: [el0] });
      for (const order of [first, second, first]) {
        await h.runtime.send(order);
      }
      await h.runtime.waitForCount('PARTICIPANT_PRIME_ACK', 3);
      await h.participant.whenIdle();
      expect(handler.prime).toHaveBeenCalledTimes(3);
    });
  });
});
