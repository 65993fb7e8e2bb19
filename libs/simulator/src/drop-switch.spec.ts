import { InMemoryMessageBus } from '@acm/messaging';
import { ManualTimers, ScriptedRuntime, deployOrder, primeOrder } from '@acm/participant-sdk/testing';
import type { TestElement } from '@acm/participant-sdk/testing';
import request from 'supertest';

import { DEFAULT_SIM_PASSWORD, DEFAULT_SIM_USER, SIM_API_PATH } from './control-api';
import { DropSwitch, DroppingMessageBus, MAX_DROP_COUNT, parseDropRequest } from './drop-switch';
import type { DropSwitchState } from './drop-switch';
import { DEFAULT_SIM_PARTICIPANT_ID, createSimulator } from './simulator';
import type { Simulator } from './simulator';

const P = DEFAULT_SIM_PARTICIPANT_ID;
const OTHER = '101c62b3-8918-41b9-a747-d21eb79c6c99';
const COMPOSITION = 'c0c0c0c0-1111-4222-8333-444455556666';
const INSTANCE = 'a1a1a1a1-2222-4333-8444-555566667777';
const element: TestElement = {
  id: '709c62b3-8918-41b9-a747-d21eb79c6c34',
  definition: { name: 'onap.policy.clamp.ac.element.Sim_StarterAutomationCompositionElement', version: '1.2.3' },
};
const order = { participantId: P, compositionId: COMPOSITION, elements: [element] };
const silent = (): void => undefined;

describe('drop switch', () => {
  describe('PUT /drop body', () => {
    it.each([
      [[], 'body: must be a JSON object'],
      [{}, 'count: is required'],
      [{ count: -1 }, 'count: must be an integer from 0 to'],
      [{ count: 1.5 }, 'count: must be an integer from 0 to'],
      [{ count: '2' }, 'count: must be an integer from 0 to'],
      [{ count: MAX_DROP_COUNT + 1 }, 'count: must be an integer from 0 to'],
      [{ count: 1, messageTypes: [] }, 'messageTypes: must be a non-empty array'],
      [{ count: 1, messageTypes: 'AUTOMATION_COMPOSITION_DEPLOY' }, 'messageTypes: must be a non-empty array'],
      [{ count: 1, messageTypes: ['AUTOMATION_COMPOSITION_DEPLOY', 'DEPLOY'] }, 'messageTypes[1]: "DEPLOY" is not'],
      // The participant's own messages never reach its handlers: dropping them would test nothing.
      [{ count: 1, messageTypes: ['PARTICIPANT_STATUS'] }, 'messageTypes[0]: "PARTICIPANT_STATUS" is not'],
      [{ count: 1, types: ['PARTICIPANT_PRIME'] }, 'types: unknown field'],
    ])('refuses %j naming the field and the rule', (body, problem) => {
      const parsed = parseDropRequest(body);
      expect(parsed.ok).toBe(false);
      expect(parsed.ok ? [] : parsed.problems.join('; ')).toContain(problem);
    });

    it('accepts a count with or without message types, once each', () => {
      expect(parseDropRequest({ count: 0 })).toEqual({ ok: true, request: { count: 0 } });
      expect(
        parseDropRequest({
          count: 2,
          messageTypes: ['PARTICIPANT_PRIME', 'PARTICIPANT_PRIME', 'PARTICIPANT_SYNC_MSG'],
        }),
      ).toEqual({ ok: true, request: { count: 2, messageTypes: ['PARTICIPANT_PRIME', 'PARTICIPANT_SYNC_MSG'] } });
    });
  });

  it('drops only matching messages, counts down and remembers what it dropped', () => {
    const drops = new DropSwitch(() => new Date('2026-01-01T00:00:00.000Z'));
    drops.arm({ count: 1, messageTypes: ['AUTOMATION_COMPOSITION_DEPLOY'] });
    const prime = {
      messageType: 'PARTICIPANT_PRIME',
      messageId: 'm1',
      timestamp: '',
      compositionId: COMPOSITION,
    } as const;
    const deploy = {
      messageType: 'AUTOMATION_COMPOSITION_DEPLOY',
      messageId: 'm2',
      timestamp: '',
      compositionId: COMPOSITION,
      automationCompositionId: INSTANCE,
      startPhase: 0,
    } as const;
    expect(drops.take(prime)).toBe(false);
    expect(drops.take(deploy)).toBe(true);
    expect(drops.take(deploy)).toBe(false);
    expect(drops.state()).toEqual({
      remaining: 0,
      messageTypes: ['AUTOMATION_COMPOSITION_DEPLOY'],
      droppedCount: 1,
      dropped: [
        {
          messageId: 'm2',
          messageType: 'AUTOMATION_COMPOSITION_DEPLOY',
          automationCompositionId: INSTANCE,
          compositionId: COMPOSITION,
          droppedAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
  });

  it('passes record-loss listeners to the bus it wraps', () => {
    class LossyBus extends InMemoryMessageBus {
      lose(): void {
        this.reportRecordsLost();
      }
    }
    const inner = new LossyBus({ logger: silent });
    const wrapped = new DroppingMessageBus(inner, new DropSwitch(), () => ({ participantId: P, replicaId: P }), silent);
    let losses = 0;
    const stop = wrapped.onRecordsLost(() => {
      losses += 1;
    });
    inner.lose();
    stop();
    inner.lose();
    expect(losses).toBe(1);
  });

  describe('in the simulator', () => {
    let bus: InMemoryMessageBus;
    let runtime: ScriptedRuntime;
    let simulator: Simulator;

    beforeEach(async () => {
      bus = new InMemoryMessageBus({ logger: silent });
      runtime = new ScriptedRuntime({ bus });
      await runtime.start();
      simulator = await createSimulator({ bus, timersMs: 0, logger: silent, timers: new ManualTimers() });
    });

    afterEach(async () => {
      await simulator.close();
      await runtime.close();
      await bus.close();
    });

    const agent = () => request(simulator.controlHandler);
    const auth = [DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD] as const;

    async function dropped(count: number): Promise<DropSwitchState> {
      for (;;) {
        const state = (
          await agent()
            .get(`${SIM_API_PATH}/drop`)
            .auth(...auth)
        ).body as DropSwitchState;
        if (state.droppedCount >= count) {
          return state;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    }

    it('ignores the next deploy: no handler, no cache, no ack; the same order delivered again is handled', async () => {
      await runtime.send(primeOrder(order));
      await runtime.waitFor('PARTICIPANT_PRIME_ACK');
      const put = await agent()
        .put(`${SIM_API_PATH}/drop`)
        .auth(...auth)
        .send({ count: 1, messageTypes: ['AUTOMATION_COMPOSITION_DEPLOY'] });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        remaining: 1,
        messageTypes: ['AUTOMATION_COMPOSITION_DEPLOY'],
        droppedCount: 0,
        dropped: [],
      });

      // A deploy for another participant passes untouched and does not use up the count.
      const elsewhere = { ...element, id: '709c62b3-8918-41b9-a747-d21eb79c6c35', participantId: OTHER };
      await runtime.send(deployOrder({ ...order, instanceId: INSTANCE, elements: [elsewhere] }));
      const deploy = deployOrder({ ...order, instanceId: INSTANCE });
      await runtime.send(deploy);
      const state = await dropped(1);
      expect(state).toMatchObject({
        remaining: 0,
        droppedCount: 1,
        dropped: [
          {
            messageId: deploy.messageId,
            messageType: 'AUTOMATION_COMPOSITION_DEPLOY',
            automationCompositionId: INSTANCE,
          },
        ],
      });
      expect(simulator.participant.handlerInvocationLog()).not.toContainEqual(
        expect.objectContaining({ messageId: deploy.messageId }),
      );
      expect(simulator.participant.getInstance(INSTANCE)).toBeUndefined();
      expect(runtime.messages('AUTOMATION_COMPOSITION_STATECHANGE_ACK')).toHaveLength(0);

      await runtime.send(deploy);
      const ack = await runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === deploy.messageId,
      );
      expect(ack).toMatchObject({ stateChangeResult: 'NO_ERROR', message: 'Deployed' });
      expect(simulator.participant.handlerInvocations(deploy.messageId, element.id)).toBe(1);
      expect(
        (
          await agent()
            .get(`${SIM_API_PATH}/drop`)
            .auth(...auth)
        ).body,
      ).toMatchObject({ droppedCount: 1 });
    });

    it('drops every type when none is named, and a count of 0 disarms it', async () => {
      await agent()
        .put(`${SIM_API_PATH}/drop`)
        .auth(...auth)
        .send({ count: 5 });
      const prime = primeOrder(order);
      await runtime.send(prime);
      expect((await dropped(1)).dropped[0]).toMatchObject({
        messageId: prime.messageId,
        messageType: 'PARTICIPANT_PRIME',
      });
      const disarm = await agent()
        .put(`${SIM_API_PATH}/drop`)
        .auth(...auth)
        .send({ count: 0 });
      expect(disarm.body).toMatchObject({ remaining: 0, droppedCount: 1 });
      await runtime.send(prime);
      await expect(runtime.waitFor('PARTICIPANT_PRIME_ACK')).resolves.toMatchObject({ responseTo: prime.messageId });
    });

    it('answers a bad body with 400 naming the field, and leaves the switch as it was', async () => {
      const bad = await agent()
        .put(`${SIM_API_PATH}/drop`)
        .auth(...auth)
        .send({ count: 2, messageTypes: ['NOPE'] });
      expect(bad.status).toBe(400);
      expect((bad.body as { errorDetails: string }).errorDetails).toContain('messageTypes[0]: "NOPE" is not');
      const yaml = await agent()
        .put(`${SIM_API_PATH}/drop`)
        .auth(...auth)
        .set('Content-Type', 'application/yaml')
        .send('count: [');
      expect(yaml.status).toBe(400);
      expect(
        (
          await agent()
            .get(`${SIM_API_PATH}/drop`)
            .auth(...auth)
        ).body,
      ).toEqual({
        remaining: 0,
        droppedCount: 0,
        dropped: [],
      });
      expect(
        (
          await agent()
            .delete(`${SIM_API_PATH}/drop`)
            .auth(...auth)
        ).status,
      ).toBe(405);
      expect((await agent().put(`${SIM_API_PATH}/drop`).send({ count: 1 })).status).toBe(401);
    });
  });
});
