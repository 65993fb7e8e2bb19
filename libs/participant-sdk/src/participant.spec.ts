import { InMemoryMessageBus } from '@acm/messaging';
import {
  ManualTimers,
  Participant,
  ScriptedRuntime,
  deployOrder,
  deprimeOrder,
  primeOrder,
  stateChangeOrder,
} from '@acm/participant-sdk';
import type {
  Composition,
  CompositionContext,
  CompositionOutcome,
  ElementContext,
  ElementHandler,
  ElementOutcome,
  MigrationContext,
  ParticipantOptions,
  PrepareContext,
  TestElement,
  UpdateContext,
} from '@acm/participant-sdk';

const P = '101c62b3-8918-41b9-a747-d21eb79c6c90';
const OTHER = '101c62b3-8918-41b9-a747-d21eb79c6c91';
const REPLICA = '2cf0f8b4-5c1a-4c8c-9d8e-2f4a3a6b7c01';
const COMPOSITION = 'c0c0c0c0-1111-4222-8333-444455556666';
const TARGET = 'c0c0c0c0-1111-4222-8333-444455556677';
const INSTANCE = 'a1a1a1a1-2222-4333-8444-555566667777';
const E0 = 'e1e1e1e1-3333-4444-8555-666677778880';
const E1 = 'e1e1e1e1-3333-4444-8555-666677778881';
const E_OTHER = 'e1e1e1e1-3333-4444-8555-666677778889';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const el0: TestElement = { id: E0, definition: { name: 'onap.policy.clamp.ac.element.Sim_0', version: '1.2.3' } };
const el1: TestElement = {
  id: E1,
  definition: { name: 'onap.policy.clamp.ac.element.Sim_1', version: '1.2.3' },
  startPhase: 1,
  properties: { baseUrl: 'http://x' },
};
const elOther: TestElement = {
  id: E_OTHER,
  definition: { name: 'onap.policy.clamp.ac.element.Other', version: '1.0.0' },
  participantId: OTHER,
};

const silent = (): void => undefined;

type Outcome = ElementOutcome | Promise<ElementOutcome>;
type CompositionResultLike = CompositionOutcome | Promise<CompositionOutcome>;
const ok = { ok: true } as const;

/** A handler whose methods are jest mocks answering success unless a test changes them. */
function mockHandler() {
  return {
    deploy: jest.fn((_ctx: ElementContext): Outcome => ok),
    undeploy: jest.fn((_ctx: ElementContext): Outcome => ok),
    lock: jest.fn((_ctx: ElementContext): Outcome => ok),
    unlock: jest.fn((_ctx: ElementContext): Outcome => ok),
    delete: jest.fn((_ctx: ElementContext): Outcome => ok),
    prime: jest.fn((_composition: Composition, _ctx: CompositionContext): CompositionResultLike => ok),
    deprime: jest.fn((_composition: Composition, _ctx: CompositionContext): CompositionResultLike => ok),
    update: jest.fn((_ctx: UpdateContext): Outcome => ok),
    migrate: jest.fn((_ctx: MigrationContext): Outcome => ok),
    migratePrecheck: jest.fn((_ctx: MigrationContext): Outcome => ok),
    rollbackMigration: jest.fn((_ctx: MigrationContext): Outcome => ok),
    prepare: jest.fn((_ctx: PrepareContext): Outcome => ok),
    review: jest.fn((_ctx: PrepareContext): Outcome => ok),
  } satisfies Required<ElementHandler>;
}

interface Harness {
  bus: InMemoryMessageBus;
  runtime: ScriptedRuntime;
  timers: ManualTimers;
  participant: Participant;
  close(): Promise<void>;
}

const open: Harness[] = [];

async function harness(handler: ElementHandler, options: Partial<ParticipantOptions> = {}): Promise<Harness> {
  const bus = new InMemoryMessageBus({ logger: silent });
  const runtime = new ScriptedRuntime({ bus });
  await runtime.start();
  const timers = new ManualTimers();
  const participant = new Participant({
    participantId: P,
    replicaId: REPLICA,
    supportedElementTypes: [SIM_TYPE],
    bus,
    handler,
    timers,
    logger: silent,
    ...options,
  });
  await participant.start();
  const h: Harness = {
    bus,
    runtime,
    timers,
    participant,
    close: async () => {
      await participant.stop();
      await runtime.close();
      await bus.close();
    },
  };
  open.push(h);
  return h;
}

afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.close();
  }
});

const base = { participantId: P, compositionId: COMPOSITION };

/** Primes a two-element composition (phases 0 and 1) and waits for the PRIME_ACK. */
async function primed(h: Harness, elements: TestElement[] = [el0, el1]): Promise<void> {
  const prime = primeOrder({ ...base, elements });
  await h.runtime.send(prime);
  await h.runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === prime.messageId);
}

function acksFor(h: Harness, messageId: string) {
  return h.runtime.messages('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === messageId);
}

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

  describe('sync', () => {
    const sync = (extra: Record<string, unknown>) => ({
      messageType: 'PARTICIPANT_SYNC_MSG',
      messageId: 'aaaaaaaa-0000-4000-8000-0000000000ff',
      timestamp: new Date().toISOString(),
      compositionId: COMPOSITION,
      participantIdList: [P],
      ...extra,
    });
    const restartList = [
      {
        automationCompositionId: INSTANCE,
        deployState: 'DEPLOYED',
        lockState: 'LOCKED',
        stateChangeResult: 'NO_ERROR',
        acElementList: [
          {
            id: E0,
            definition: el0.definition,
            participantId: P,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            properties: { a: 1 },
            outProperties: { b: 2 },
          },
          {
            id: E_OTHER,
            definition: elOther.definition,
            participantId: OTHER,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
          },
        ],
      },
    ];
    const definitions = [
      {
        participantId: P,
        automationCompositionElementDefinitionList: [
          {
            acElementDefinitionId: el0.definition,
            automationCompositionElementToscaNodeTemplate: { type: SIM_TYPE.typeName, properties: { startPhase: 0 } },
          },
        ],
      },
    ];

    /** A STATUS_REQ keyed like the SYNCs: once its STATUS is back, the SYNCs before it were handled. */
    async function barrier(h: Harness, messageId: string): Promise<void> {
      const before = h.runtime.messages('PARTICIPANT_STATUS').length;
      await h.runtime.send({
        messageType: 'PARTICIPANT_STATUS_REQ',
        messageId,
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
      });
      await h.runtime.waitForCount('PARTICIPANT_STATUS', before + 1);
    }

    it('fills the caches from a restart SYNC (my elements only), so later orders find them', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await h.runtime.send(
        sync({
          restarting: true,
          state: 'PRIMED',
          participantDefinitionUpdates: definitions,
          automationcompositionList: restartList,
        }),
      );
      await barrier(h, 'aaaaaaaa-0000-4000-8000-000000000005');
      const undeploy = stateChangeOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [],
        deployOrderedState: 'UNDEPLOY',
      });
      await h.runtime.send({ ...undeploy, participantIdList: [P] });
      const ack = await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      expect(Object.keys(ack.automationCompositionResultMap)).toEqual([E0]);
      const ctx = handler.undeploy.mock.calls[0]?.[0] as ElementContext;
      expect(ctx.instanceElement).toMatchObject({ properties: { a: 1 }, outProperties: { b: 2 } });
      expect(h.participant.getComposition(COMPOSITION)?.state).toBe('PRIMED');
    });

    it('honours excludeReplicas and delete', async () => {
      const h = await harness(mockHandler());
      await h.runtime.send(sync({ excludeReplicas: [REPLICA], participantDefinitionUpdates: definitions }));
      await h.runtime.send(
        sync({ messageId: 'aaaaaaaa-0000-4000-8000-0000000000fe', participantDefinitionUpdates: definitions }),
      );
      await h.runtime.send({
        messageType: 'PARTICIPANT_STATUS_REQ',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000003',
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
      });
      await h.runtime.waitFor('PARTICIPANT_STATUS');
      expect(h.participant.getCompositions()).toHaveLength(1);

      await h.runtime.send(sync({ state: 'COMMISSIONED', delete: true }));
      await h.runtime.send({
        messageType: 'PARTICIPANT_STATUS_REQ',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000004',
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
      });
      await h.runtime.waitForCount('PARTICIPANT_STATUS', 2);
      expect(h.participant.getCompositions()).toHaveLength(0);
    });

    it('cancels a running operation on a TIMEOUT sync and drops its late report', async () => {
      const contexts: ElementContext[] = [];
      const handler = mockHandler();
      handler.deploy.mockImplementation((ctx) => {
        contexts.push(ctx);
        return 'pending';
      });
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      while (contexts.length === 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      await h.runtime.send(sync({ automationCompositionId: INSTANCE, stateChangeResult: 'TIMEOUT' }));
      const ctx = contexts[0] as ElementContext;
      while (!ctx.signal.aborted) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      await ctx.report.done();
      expect(h.runtime.messages('AUTOMATION_COMPOSITION_STATECHANGE_ACK')).toHaveLength(0);
    });
  });

  describe('revision guard', () => {
    const NEW_REVISION = 'bbbbbbbb-0000-4000-8000-000000000001';

    it('parks an order whose instance revision differs, asks for a sync and runs it once the sync arrives', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      const unlock = stateChangeOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0],
        lockOrderedState: 'UNLOCK',
        revisionIdInstance: NEW_REVISION,
      });
      await h.runtime.send(unlock);
      const request = await h.runtime.waitFor('PARTICIPANT_REQ_SYNC_MSG');
      expect(request).toMatchObject({ participantId: P, replicaId: REPLICA, automationCompositionId: INSTANCE });
      expect(request.compositionId).toBeUndefined();
      expect(acksFor(h, unlock.messageId)).toHaveLength(0);

      await h.runtime.send({
        messageType: 'PARTICIPANT_SYNC_MSG',
        messageId: 'aaaaaaaa-0000-4000-8000-0000000000fe',
        timestamp: new Date().toISOString(),
        participantId: P,
        replicaId: REPLICA,
        compositionId: COMPOSITION,
        revisionIdComposition: COMPOSITION,
        state: 'PRIMED',
        restarting: true,
        participantIdList: [P],
        automationcompositionList: [
          {
            automationCompositionId: INSTANCE,
            revisionId: NEW_REVISION,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            stateChangeResult: 'NO_ERROR',
            acElementList: [
              { id: E0, definition: el0.definition, participantId: P, deployState: 'DEPLOYED', lockState: 'LOCKED' },
            ],
          },
        ],
      });
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (candidate) => candidate.responseTo === unlock.messageId,
      );
      expect(ack.automationCompositionResultMap[E0]).toMatchObject({ lockState: 'UNLOCKED' });
    });

    it('runs a parked order after two heartbeats when no sync answers', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      const deploy = deployOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0],
        revisionIdComposition: NEW_REVISION,
      });
      await h.runtime.send(deploy);
      expect((await h.runtime.waitFor('PARTICIPANT_REQ_SYNC_MSG')).compositionId).toBe(COMPOSITION);
      h.timers.tick();
      await h.participant.whenIdle();
      expect(acksFor(h, deploy.messageId)).toHaveLength(0);
      h.timers.tick();
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === deploy.messageId);
    });

    it('acts at once on a migration in which all its elements are NEW, whatever instance revision it cached', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const OLD_REVISION = 'bbbbbbbb-0000-4000-8000-000000000002';
      const migration = (messageId: string, precheck: boolean, revisionIdInstance: string) => ({
        messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
        messageId,
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        compositionTargetId: TARGET,
        automationCompositionId: INSTANCE,
        revisionIdComposition: COMPOSITION,
        revisionIdInstance,
        participantIdList: [P, OTHER],
        precheck,
        rollback: false,
        firstStage: true,
        stage: 0,
        participantUpdatesList: [
          {
            participantId: P,
            acElementList: [
              { id: E1, definition: el1.definition, orderedState: 'MIGRATE', migrationState: 'NEW', properties: {} },
            ],
          },
          {
            participantId: OTHER,
            acElementList: [
              {
                id: E_OTHER,
                definition: elOther.definition,
                orderedState: 'MIGRATE',
                migrationState: 'DEFAULT',
                properties: {},
              },
            ],
          },
        ],
      });
      // The precheck leaves this replica with the instance cached at the revision before the precheck.
      const precheck = migration('aaaaaaaa-0000-4000-8000-000000000031', true, OLD_REVISION);
      await h.runtime.send(precheck);
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === precheck.messageId);
      const migrate = migration('aaaaaaaa-0000-4000-8000-000000000032', false, NEW_REVISION);
      await h.runtime.send(migrate);
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (candidate) => candidate.responseTo === migrate.messageId,
      );
      expect(ack.automationCompositionResultMap[E1]).toBeDefined();
      expect(handler.migrate).toHaveBeenCalledTimes(1);
      expect(h.runtime.messages('PARTICIPANT_REQ_SYNC_MSG')).toHaveLength(0);
    });

    it('lets a replica with an empty cache act on the DTOs of the order', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const deploy = deployOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0],
        revisionIdComposition: NEW_REVISION,
      });
      await h.runtime.send(deploy);
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === deploy.messageId);
      expect(h.runtime.messages('PARTICIPANT_REQ_SYNC_MSG')).toHaveLength(0);
    });
  });

  describe('update, prepare, review and migration', () => {
    it('updates with the old and the new properties', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(
        deployOrder({ ...base, instanceId: INSTANCE, elements: [{ ...el0, properties: { v: 1 } }] }),
      );
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      const update = {
        ...deployOrder({ ...base, instanceId: INSTANCE, elements: [{ ...el0, properties: { v: 2 } }] }),
        messageType: 'PROPERTIES_UPDATE',
      };
      await h.runtime.send(update);
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === update.messageId,
      );
      expect(ack).toMatchObject({
        message: 'Updated',
        automationCompositionResultMap: { [E0]: { deployState: 'DEPLOYED' } },
      });
      const ctx = handler.update.mock.calls[0]?.[0] as UpdateContext;
      expect(ctx.instanceElement.properties).toEqual({ v: 1 });
      expect(ctx.instanceElementUpdated.properties).toEqual({ v: 2 });
    });

    it('prepares stage by stage (stage ack, then final ack) and reviews', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const staged: TestElement = { ...el0, nodeProperties: { stage: { prepare: [0, 2] } } };
      await primed(h, [staged]);
      const prepare = (stage: number) => ({
        ...deployOrder({ ...base, instanceId: INSTANCE, elements: [staged] }),
        messageType: 'AUTOMATION_COMPOSITION_PREPARE',
        preDeploy: true,
        stage,
        participantList: [
          { participantId: P, acElementList: [{ id: E0, definition: el0.definition, properties: {} }] },
        ],
      });
      const first = prepare(0);
      await h.runtime.send(first);
      const stageAck = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === first.messageId,
      );
      expect(stageAck).toMatchObject({
        stage: 2,
        automationCompositionResultMap: { [E0]: { deployState: 'UNDEPLOYED' } },
      });
      expect((handler.prepare.mock.calls[0]?.[0] as PrepareContext).nextStage).toBe(2);
      const second = prepare(2);
      await h.runtime.send(second);
      const finalAck = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === second.messageId,
      );
      expect(finalAck.stage).toBeUndefined();
      expect(finalAck.message).toBe('Prepare completed');

      const review = {
        ...prepare(0),
        messageId: 'aaaaaaaa-0000-4000-8000-000000000010',
        preDeploy: false,
        participantList: [],
      };
      await h.runtime.send(review);
      const reviewAck = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === review.messageId,
      );
      expect(reviewAck.message).toBe('Review completed');
      expect(handler.review).toHaveBeenCalledTimes(1);
    });

    it('migrates across stages to the target composition and deletes REMOVED elements', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0, { ...el1, startPhase: 0 }]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, { ...el1, startPhase: 0 }] }));
      await h.runtime.waitForCount('AUTOMATION_COMPOSITION_STATECHANGE_ACK', 2);
      const target: TestElement = {
        ...el0,
        definition: { ...el0.definition, version: '2.0.0' },
        nodeProperties: { stage: [0, 1] },
      };
      const targetPrime = primeOrder({ ...base, compositionId: TARGET, elements: [target] });
      await h.runtime.send(targetPrime);
      await h.runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === targetPrime.messageId);

      const migration = (stage: number) => ({
        messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
        messageId: `aaaaaaaa-0000-4000-8000-00000000002${stage}`,
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        compositionTargetId: TARGET,
        automationCompositionId: INSTANCE,
        participantIdList: [P],
        precheck: false,
        rollback: false,
        firstStage: stage === 0,
        stage,
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
                definition: el1.definition,
                orderedState: 'MIGRATE',
                migrationState: 'REMOVED',
                properties: {},
              },
            ],
          },
        ],
      });
      const stage0 = migration(0);
      await h.runtime.send(stage0);
      const acks0 = await h.runtime.waitForCount(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        2,
        (a) => a.responseTo === stage0.messageId,
      );
      const byElement = Object.fromEntries(acks0.flatMap((ack) => Object.entries(ack.automationCompositionResultMap)));
      expect(byElement[E0]).toMatchObject({ deployState: 'MIGRATING' });
      expect(byElement[E1]).toMatchObject({ deployState: 'DELETED' });
      expect(acks0.find((ack) => E0 in ack.automationCompositionResultMap)?.stage).toBe(1);
      const ctx = handler.migrate.mock.calls[0]?.[0] as MigrationContext;
      expect(ctx).toMatchObject({ stage: 0, nextStage: 1, compositionElementTarget: { compositionId: TARGET } });

      const stage1 = migration(1);
      await h.runtime.send(stage1);
      const ack1 = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === stage1.messageId,
      );
      expect(ack1.stage).toBeUndefined();
      expect(ack1.automationCompositionResultMap[E0]).toMatchObject({ deployState: 'DEPLOYED', message: 'Migrated' });
      expect(h.participant.getInstance(INSTANCE)).toMatchObject({
        compositionId: TARGET,
        elements: [{ id: E0, definition: target.definition, properties: { m: 1 } }],
      });
    });

    it('runs a migration precheck without touching the cache', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      const precheck = {
        messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000030',
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        compositionTargetId: TARGET,
        automationCompositionId: INSTANCE,
        precheck: true,
        stage: 0,
        participantUpdatesList: [
          {
            participantId: P,
            acElementList: [{ id: E0, definition: el0.definition, migrationState: 'DEFAULT', properties: {} }],
          },
        ],
      };
      await h.runtime.send(precheck);
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === precheck.messageId,
      );
      expect(ack).toMatchObject({
        message: 'Migration precheck completed',
        automationCompositionResultMap: { [E0]: { deployState: 'DEPLOYED', lockState: 'LOCKED' } },
      });
      expect(h.participant.getInstance(INSTANCE)?.compositionId).toBe(COMPOSITION);
    });

    it('does not cache an instance it does not hold when it prechecks NEW elements for it', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const precheck = {
        messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000033',
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        compositionTargetId: TARGET,
        automationCompositionId: INSTANCE,
        revisionIdInstance: 'bbbbbbbb-0000-4000-8000-000000000003',
        precheck: true,
        stage: 0,
        participantUpdatesList: [
          {
            participantId: P,
            acElementList: [{ id: E1, definition: el1.definition, migrationState: 'NEW', properties: {} }],
          },
        ],
      };
      await h.runtime.send(precheck);
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === precheck.messageId,
      );
      expect(ack.message).toBe('Migration precheck completed');
      expect(handler.migratePrecheck).toHaveBeenCalledTimes(1);
      expect(h.participant.getInstance(INSTANCE)).toBeUndefined();
    });
  });
});
