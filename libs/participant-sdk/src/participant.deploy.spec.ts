import type { ElementContext } from '@acm/participant-sdk';
import { deployOrder, stateChangeOrder } from '@acm/participant-sdk/testing';

import {
  acksFor,
  base,
  closeHarnesses,
  COMPOSITION,
  E0,
  E1,
  el0,
  el1,
  elOther,
  harness,
  INSTANCE,
  mockHandler,
  OTHER,
  P,
  primed,
  REPLICA,
} from './testing/participant-spec-harness';

afterEach(closeHarnesses);

describe('Participant', () => {
  describe('deploy and state changes', () => {
    it('deploys only my elements of the message start phase, one ack per element', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h);

      const phase0 = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, el1, elOther], startPhase: 0 });
      await h.runtime.send(phase0);
      const [ack0] = await h.runtime.waitForCount('AUTOMATION_COMPOSITION_STATECHANGE_ACK', 1);
      expect(ack0).toMatchObject({
        messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        responseTo: phase0.messageId,
        automationCompositionId: INSTANCE,
        participantId: P,
        replicaId: REPLICA,
        stateChangeResult: 'NO_ERROR',
        message: 'Deployed',
        automationCompositionResultMap: {
          [E0]: { deployState: 'DEPLOYED', lockState: 'LOCKED', result: true, message: 'Deployed' },
        },
      });
      expect(Object.keys(ack0?.automationCompositionResultMap ?? {})).toEqual([E0]);
      expect(handler.deploy).toHaveBeenCalledTimes(1);
      const ctx = handler.deploy.mock.calls[0]?.[0] as ElementContext;
      expect(ctx).toMatchObject({
        messageId: phase0.messageId,
        instanceId: INSTANCE,
        compositionId: COMPOSITION,
        phase: 0,
        compositionElement: { definition: el0.definition, inProperties: { startPhase: 0 } },
        instanceElement: { id: E0, instanceId: INSTANCE, definition: el0.definition },
      });

      const phase1 = deployOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0, el1],
        startPhase: 1,
        firstStartPhase: false,
      });
      await h.runtime.send(phase1);
      const ack1 = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === phase1.messageId,
      );
      expect(Object.keys(ack1.automationCompositionResultMap)).toEqual([E1]);
      expect((handler.deploy.mock.calls[1]?.[0] as ElementContext).instanceElement.properties).toEqual({
        baseUrl: 'http://x',
      });
      expect(h.participant.getInstance(INSTANCE)).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED' });

      // Undeploy runs in reverse phase order: the runtime sends phase 1 first.
      const undeploy1 = stateChangeOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0, el1],
        startPhase: 1,
        deployOrderedState: 'UNDEPLOY',
      });
      await h.runtime.send(undeploy1);
      const ackU = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === undeploy1.messageId,
      );
      expect(ackU.automationCompositionResultMap).toEqual({
        [E1]: expect.objectContaining({ deployState: 'UNDEPLOYED', lockState: 'NONE', message: 'Undeployed' }),
      });
      expect(handler.undeploy).toHaveBeenCalledTimes(1);
    });

    it('skips elements the order lists as already done (a retry after a failure)', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h);

      const retry = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, el1], startPhase: 0 });
      const done = (
        retry['participantUpdatesList'] as Array<{ acElementList: Array<{ id: string; orderedState: string }> }>
      )
        .flatMap((entry) => entry.acElementList)
        .find((element) => element.id === E0);
      done!.orderedState = 'NONE';
      retry['participantDtoList'] = [];
      await h.runtime.send(retry);
      const phase1 = deployOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0, el1],
        startPhase: 1,
        firstStartPhase: false,
      });
      await h.runtime.send(phase1);
      const ack1 = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === phase1.messageId,
      );
      expect(Object.keys(ack1.automationCompositionResultMap)).toEqual([E1]);
      expect(handler.deploy).toHaveBeenCalledTimes(1);
      expect(
        h.runtime.received.filter(
          (m) => m.messageType === 'AUTOMATION_COMPOSITION_STATECHANGE_ACK' && m.responseTo === retry.messageId,
        ),
      ).toEqual([]);
    });

    it('finds the start phase in the DTOs when the composition was never primed here', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, el1], startPhase: 1 });
      await h.runtime.send(deploy);
      const ack = await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      expect(Object.keys(ack.automationCompositionResultMap)).toEqual([E1]);
    });

    it('supports pending handlers that report later with outProperties', async () => {
      const contexts: ElementContext[] = [];
      const handler = mockHandler();
      handler.deploy.mockImplementation((ctx) => {
        contexts.push(ctx);
        return 'pending';
      });
      const h = await harness(handler);
      await primed(h);
      const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send(deploy);
      while (contexts.length === 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      await h.participant.whenIdle();
      expect(acksFor(h, deploy.messageId)).toHaveLength(0);
      const ctx = contexts[0] as ElementContext;
      expect(ctx.report.reported).toBe(false);

      await ctx.report.done({ outProperties: { url: 'http://done' }, operationalState: 'ENABLED', useState: 'IDLE' });
      const ack = await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      expect(ack).toMatchObject({
        responseTo: deploy.messageId,
        outPropertiesUpdated: true,
        automationCompositionResultMap: {
          [E0]: {
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            operationalState: 'ENABLED',
            useState: 'IDLE',
            outProperties: { url: 'http://done' },
          },
        },
      });
      // Only the first report counts.
      await ctx.report.failed('too late');
      expect(ctx.report.reported).toBe(true);
      expect(acksFor(h, deploy.messageId)).toHaveLength(1);
      expect(h.participant.getInstance(INSTANCE)?.elements[0]?.outProperties).toEqual({ url: 'http://done' });
    });

    it('pushes element info as a STATUS while an operation runs', async () => {
      const handler = mockHandler();
      handler.deploy.mockImplementation(async (ctx) => {
        await ctx.report.info({ outProperties: { InternalState: 'DEPLOYING' } });
        return { ok: true };
      });
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      const status = await h.runtime.waitFor(
        'PARTICIPANT_STATUS',
        (s) => s.automationCompositionInfoList !== undefined,
      );
      expect(status).toMatchObject({
        compositionId: COMPOSITION,
        automationCompositionInfoList: [
          {
            automationCompositionId: INSTANCE,
            elements: [{ automationCompositionElementId: E0, outProperties: { InternalState: 'DEPLOYING' } }],
          },
        ],
      });
    });

    it.each([
      ['deploy', { deployState: 'UNDEPLOYED', lockState: 'NONE' }],
      ['lock', { deployState: 'DEPLOYED', lockState: 'UNLOCKED' }],
      ['unlock', { deployState: 'DEPLOYED', lockState: 'LOCKED' }],
      ['undeploy', { deployState: 'DEPLOYED', lockState: 'LOCKED' }],
      ['delete', { deployState: 'UNDEPLOYED', lockState: 'NONE' }],
    ] as const)('turns an exception in %s into FAILED with ONAP fallback states', async (operation, states) => {
      const handler = mockHandler();
      handler[operation].mockImplementation(() => {
        throw new Error(`${operation} exploded`);
      });
      const h = await harness(handler);
      await primed(h, [el0]);
      const deploy = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] });
      await h.runtime.send(deploy);
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (a) => a.responseTo === deploy.messageId);
      let order = deploy;
      if (operation !== 'deploy') {
        order = stateChangeOrder({
          ...base,
          instanceId: INSTANCE,
          elements: [el0],
          ...(operation === 'lock' || operation === 'unlock'
            ? { lockOrderedState: operation === 'lock' ? 'LOCK' : 'UNLOCK' }
            : { deployOrderedState: operation === 'undeploy' ? 'UNDEPLOY' : 'DELETE' }),
        });
        await h.runtime.send(order);
      }
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === order.messageId && a.stateChangeResult === 'FAILED',
      );
      expect(ack.automationCompositionResultMap[E0]).toMatchObject({ ...states, result: false });
      expect(ack.message).toContain(`${operation} exploded`);
    });

    it('reports a returned failure with the same fallback states', async () => {
      const handler = mockHandler();
      handler.deploy.mockReturnValue({ ok: false, message: 'Deploy failed!' });
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      const ack = await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      expect(ack).toMatchObject({
        stateChangeResult: 'FAILED',
        message: 'Deploy failed!',
        automationCompositionResultMap: { [E0]: { deployState: 'UNDEPLOYED', lockState: 'NONE', result: false } },
      });
      expect(h.participant.getInstance(INSTANCE)?.stateChangeResult).toBe('FAILED');
    });

    it('locks, unlocks and deletes, dropping the instance once all its elements are deleted', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      const run = async (order: ReturnType<typeof stateChangeOrder>) => {
        await h.runtime.send(order);
        return h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (a) => a.responseTo === order.messageId);
      };
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      const common = { ...base, instanceId: INSTANCE, elements: [el0] };
      expect(
        (await run(stateChangeOrder({ ...common, lockOrderedState: 'UNLOCK' }))).automationCompositionResultMap[E0],
      ).toMatchObject({
        deployState: 'DEPLOYED',
        lockState: 'UNLOCKED',
        message: 'Unlocked',
      });
      expect(
        (await run(stateChangeOrder({ ...common, lockOrderedState: 'LOCK' }))).automationCompositionResultMap[E0],
      ).toMatchObject({
        deployState: 'DEPLOYED',
        lockState: 'LOCKED',
      });
      await run(stateChangeOrder({ ...common, deployOrderedState: 'UNDEPLOY' }));
      const deleted = await run(stateChangeOrder({ ...common, deployOrderedState: 'DELETE' }));
      expect(deleted.automationCompositionResultMap[E0]).toMatchObject({ deployState: 'DELETED', lockState: 'NONE' });
      expect(h.participant.getInstance(INSTANCE)).toBeUndefined();
    });

    it('answers a DELETE of an unknown instance with an empty result map', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const order = stateChangeOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [elOther],
        deployOrderedState: 'DELETE',
        participantId: P,
      });
      await h.runtime.send({ ...order, participantIdList: [P, OTHER] });
      const ack = await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      expect(ack).toMatchObject({
        responseTo: order.messageId,
        automationCompositionId: INSTANCE,
        participantId: P,
        stateChangeResult: 'NO_ERROR',
        message: 'Already deleted or never used',
        automationCompositionResultMap: {},
      });
      expect(handler.delete).not.toHaveBeenCalled();
    });

    it('answers unimplemented optional operations with "Not implemented" or, if configured, "Not supported"', async () => {
      const { lock: _lock, ...withoutLock } = mockHandler();
      for (const [failUnsupportedOperation, expected] of [
        [false, { stateChangeResult: 'NO_ERROR', message: 'Not implemented', lockState: 'LOCKED' }],
        [true, { stateChangeResult: 'FAILED', message: 'Not supported', lockState: 'UNLOCKED' }],
      ] as const) {
        const h = await harness(withoutLock, { failUnsupportedOperation });
        await primed(h, [el0]);
        await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
        await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
        const lock = stateChangeOrder({ ...base, instanceId: INSTANCE, elements: [el0], lockOrderedState: 'LOCK' });
        await h.runtime.send(lock);
        const ack = await h.runtime.waitFor(
          'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
          (a) => a.responseTo === lock.messageId,
        );
        expect(ack).toMatchObject({
          stateChangeResult: expected.stateChangeResult,
          message: expected.message,
          automationCompositionResultMap: { [E0]: { lockState: expected.lockState } },
        });
        expect(h.participant.handlerInvocations(lock.messageId, E0)).toBe(0);
        await h.close();
      }
    });
  });
});
