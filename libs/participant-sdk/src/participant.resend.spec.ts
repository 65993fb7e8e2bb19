import { randomUUID } from 'node:crypto';

import type { ElementContext, ParticipantLogger } from '@acm/participant-sdk';
import { deployOrder, primeOrder, stateChangeOrder } from '@acm/participant-sdk/testing';
import type { OrderJson, TestElement } from '@acm/participant-sdk/testing';

import {
  acksFor,
  base,
  closeHarnesses,
  COMPOSITION,
  E0,
  E1,
  el0,
  harness,
  INSTANCE,
  mockHandler,
  P,
  primed,
  TARGET,
} from './testing/participant-spec-harness';
import type { Harness } from './testing/participant-spec-harness';

afterEach(closeHarnesses);

/** A second element in phase 0, so an instance keeps an element after the other one is deleted. */
const el1Phase0: TestElement = { id: E1, definition: { name: 'onap.policy.clamp.ac.element.Sim_1', version: '1.2.3' } };

/** The same order as the runtime would send it again after maxWaitMs: same content, a new messageId. */
function resentUnderNewId(order: OrderJson): OrderJson {
  return { ...order, messageId: randomUUID(), timestamp: new Date().toISOString() };
}

/** A logger that remembers its messages, so a test can wait for a decision that sends nothing. */
function recordingLogger(): { logger: ParticipantLogger; messages: string[] } {
  const messages: string[] = [];
  return { logger: (_level, message) => void messages.push(message), messages };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function ackOf(h: Harness, order: OrderJson) {
  return h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === order.messageId);
}

describe('Participant', () => {
  describe('a phase sent again (resend after maxWaitMs)', () => {
    it('answers a finished element with its recorded result under the new messageId, without running the handler', async () => {
      const handler = mockHandler();
      handler.deploy.mockImplementation(() => ({ ok: true, outProperties: { url: 'http://deployed' } }));
      const h = await harness(handler);
      await primed(h, [el0]);
      const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send(deploy);
      const first = await ackOf(h, deploy);

      const resend = resentUnderNewId({ ...deploy, firstStartPhase: false });
      await h.runtime.send(resend);
      const again = await ackOf(h, resend);

      expect(handler.deploy).toHaveBeenCalledTimes(1);
      expect(again.automationCompositionResultMap).toEqual(first.automationCompositionResultMap);
      expect(again).toMatchObject({ stateChangeResult: 'NO_ERROR', message: 'Deployed', outPropertiesUpdated: true });
      expect(h.participant.handlerInvocations(resend.messageId, E0)).toBe(0);
      expect(h.participant.getInstance(INSTANCE)?.elements[0]).toMatchObject({ deployState: 'DEPLOYED' });

      // A redelivery of the resend itself is answered from the messageId memory, still without the handler.
      await h.runtime.send(resend);
      await h.runtime.waitForCount(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        2,
        (a) => a.responseTo === resend.messageId,
      );
      expect(handler.deploy).toHaveBeenCalledTimes(1);
    });

    it('does not start an element twice while it is still running: the running handler answers', async () => {
      const contexts: ElementContext[] = [];
      const handler = mockHandler();
      handler.deploy.mockImplementation((ctx) => {
        contexts.push(ctx);
        return 'pending';
      });
      const { logger, messages } = recordingLogger();
      const h = await harness(handler, { logger });
      await primed(h, [el0]);
      const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send(deploy);
      await until(() => contexts.length === 1);

      const resend = resentUnderNewId(deploy);
      await h.runtime.send(resend);
      await until(() => messages.some((m) => m.startsWith('Resent order for an element still running it')));

      expect(handler.deploy).toHaveBeenCalledTimes(1);
      expect(contexts[0]?.signal.aborted).toBe(false);
      expect(acksFor(h, resend.messageId)).toHaveLength(0);
      await contexts[0]?.report.done();
      const ack = await ackOf(h, deploy);
      expect(ack.automationCompositionResultMap[E0]).toMatchObject({ deployState: 'DEPLOYED' });
      expect(acksFor(h, resend.messageId)).toHaveLength(0);
    });

    it('runs a failed element again: the runtime sends a failed element only to retry it', async () => {
      const handler = mockHandler();
      handler.deploy.mockImplementationOnce(() => ({ ok: false, message: 'quota exceeded' }));
      const h = await harness(handler);
      await primed(h, [el0]);
      const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send(deploy);
      expect(await ackOf(h, deploy)).toMatchObject({ stateChangeResult: 'FAILED', message: 'quota exceeded' });

      const retry = resentUnderNewId(deploy);
      await h.runtime.send(retry);
      expect(await ackOf(h, retry)).toMatchObject({ stateChangeResult: 'NO_ERROR', message: 'Deployed' });
      expect(handler.deploy).toHaveBeenCalledTimes(2);
    });

    it('runs the handler again for a new operation: another order in between, or a new instance revision', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send(deploy);
      await ackOf(h, deploy);

      const undeploy = stateChangeOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0],
        deployOrderedState: 'UNDEPLOY',
      });
      await h.runtime.send(undeploy);
      await ackOf(h, undeploy);
      const redeploy = resentUnderNewId(deploy);
      await h.runtime.send(redeploy);
      expect((await ackOf(h, redeploy)).automationCompositionResultMap[E0]).toMatchObject({ deployState: 'DEPLOYED' });
      expect(handler.deploy).toHaveBeenCalledTimes(2);

      // Same order, same element state, but a later revision of the instance (the SYNC that ends an operation
      // brings it): a new operation, not a resend.
      const revision = '0e0e0e0e-0000-4000-8000-000000000002';
      await h.runtime.send({
        messageType: 'PARTICIPANT_SYNC_MSG',
        messageId: randomUUID(),
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        participantIdList: [P],
        automationcompositionList: [
          {
            automationCompositionId: INSTANCE,
            revisionId: revision,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            acElementList: [
              { id: E0, definition: el0.definition, participantId: P, deployState: 'DEPLOYED', lockState: 'LOCKED' },
            ],
          },
        ],
      });
      const revised = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0], revisionIdInstance: revision });
      await h.runtime.send(revised);
      await ackOf(h, revised);
      expect(handler.deploy).toHaveBeenCalledTimes(3);
    });

    it('runs an update again when the resent order asks for other properties', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      const update = (v: number): OrderJson => ({
        ...deployOrder({ ...base, instanceId: INSTANCE, elements: [{ ...el0, properties: { v } }] }),
        messageType: 'PROPERTIES_UPDATE',
      });
      const first = update(2);
      await h.runtime.send(first);
      await ackOf(h, first);
      const same = resentUnderNewId(first);
      await h.runtime.send(same);
      await ackOf(h, same);
      expect(handler.update).toHaveBeenCalledTimes(1);

      const other = update(3);
      await h.runtime.send(other);
      await ackOf(h, other);
      expect(handler.update).toHaveBeenCalledTimes(2);
    });

    it('answers a resent DELETE for an element it already deleted while the instance keeps another one', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0, el1Phase0]);
      const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, el1Phase0] });
      await h.runtime.send(deploy);
      await h.runtime.waitForCount(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        2,
        (a) => a.responseTo === deploy.messageId,
      );
      const undeploy = stateChangeOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0, el1Phase0],
        deployOrderedState: 'UNDEPLOY',
      });
      await h.runtime.send(undeploy);
      await h.runtime.waitForCount(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        2,
        (a) => a.responseTo === undeploy.messageId,
      );
      const deleteE0 = stateChangeOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0],
        deployOrderedState: 'DELETE',
      });
      await h.runtime.send(deleteE0);
      await ackOf(h, deleteE0);
      expect(h.participant.getInstance(INSTANCE)?.elements.map((e) => e.id)).toEqual([E1]);

      const resend = resentUnderNewId(deleteE0);
      await h.runtime.send(resend);
      const again = await ackOf(h, resend);
      expect(again.automationCompositionResultMap[E0]).toMatchObject({ deployState: 'DELETED', message: 'Deleted' });
      expect(handler.delete).toHaveBeenCalledTimes(1);
    });

    it('answers a resent migration stage, REMOVED element included, without migrating or re-caching', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0, el1Phase0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, el1Phase0] }));
      await h.runtime.waitForCount('AUTOMATION_COMPOSITION_STATECHANGE_ACK', 2);
      const target: TestElement = {
        ...el0,
        definition: { ...el0.definition, version: '2.0.0' },
        nodeProperties: { stage: [0, 1] },
      };
      const targetPrime = primeOrder({ ...base, compositionId: TARGET, elements: [target] });
      await h.runtime.send(targetPrime);
      await h.runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === targetPrime.messageId);
      const stage0: OrderJson = {
        messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
        messageId: randomUUID(),
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        compositionTargetId: TARGET,
        automationCompositionId: INSTANCE,
        revisionIdInstance: INSTANCE,
        participantIdList: [P],
        firstStage: true,
        stage: 0,
        participantUpdatesList: [
          {
            participantId: P,
            acElementList: [
              {
                id: E0,
                definition: target.definition,
                orderedState: 'MIGRATE',
                migrationState: 'DEFAULT',
                properties: { m: 1 },
              },
              {
                id: E1,
                definition: el1Phase0.definition,
                orderedState: 'MIGRATE',
                migrationState: 'REMOVED',
                properties: {},
              },
            ],
          },
        ],
      };
      await h.runtime.send(stage0);
      await h.runtime.waitForCount(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        2,
        (a) => a.responseTo === stage0.messageId,
      );
      expect(handler.migrate).toHaveBeenCalledTimes(2);

      const resend = resentUnderNewId(stage0);
      await h.runtime.send(resend);
      const acks = await h.runtime.waitForCount(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        2,
        (a) => a.responseTo === resend.messageId,
      );
      const byElement = Object.fromEntries(acks.flatMap((ack) => Object.entries(ack.automationCompositionResultMap)));
      expect(byElement[E0]).toMatchObject({ deployState: 'MIGRATING' });
      expect(byElement[E1]).toMatchObject({ deployState: 'DELETED' });
      expect(acks.find((ack) => E0 in ack.automationCompositionResultMap)?.stage).toBe(1);
      expect(handler.migrate).toHaveBeenCalledTimes(2);
      expect(h.participant.getInstance(INSTANCE)?.elements.map((e) => e.id)).toEqual([E0]);
    });

    it('answers a resent stage with its stage ack and runs the next stage', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const staged: TestElement = { ...el0, nodeProperties: { stage: { prepare: [0, 2] } } };
      await primed(h, [staged]);
      const prepare = (stage: number): OrderJson => ({
        ...deployOrder({ ...base, instanceId: INSTANCE, elements: [staged] }),
        messageType: 'AUTOMATION_COMPOSITION_PREPARE',
        preDeploy: true,
        stage,
        participantList: [],
      });
      const stage0 = prepare(0);
      await h.runtime.send(stage0);
      expect(await ackOf(h, stage0)).toMatchObject({ stage: 2 });
      const resend = resentUnderNewId(stage0);
      await h.runtime.send(resend);
      expect(await ackOf(h, resend)).toMatchObject({ stage: 2 });
      expect(handler.prepare).toHaveBeenCalledTimes(1);

      const stage2 = prepare(2);
      await h.runtime.send(stage2);
      const final = await ackOf(h, stage2);
      expect(final.stage).toBeUndefined();
      expect(handler.prepare).toHaveBeenCalledTimes(2);
    });
  });
});
