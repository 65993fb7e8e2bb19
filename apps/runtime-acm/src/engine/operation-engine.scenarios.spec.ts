import type { AutomationComposition } from '@acm/domain';
import { Logger } from '@nestjs/common';

import { EngineFixture, STARTED_AT, inSession } from './testing/engine-fixture';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const P2 = 'ac8b7b2f-0a59-4b16-a3f4-0c1cd1b0e1a2';
const DEPLOYED = { deployState: 'DEPLOYED', lockState: 'LOCKED' } as const;
const UNDEPLOYED = { deployState: 'UNDEPLOYED', lockState: 'NONE' } as const;

describe('OperationEngine scenarios (in-memory store, fake clock)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('a failed phase fails the operation; the retry redoes only the failed element and a late ACK of the failed operation is stale', async () => {
    const fixture = new EngineFixture();
    const definition = await fixture.definition('tosca/examples/sim-three-phase.yaml', () => P1);
    const instance = await fixture.instance(definition);
    await fixture.order(instance.instanceId, 'DEPLOY');
    const [phase0] = await fixture.take();
    const [first, second] = phase0!.described[P1]!;
    await fixture.engine.applyInstanceAck(fixture.ackOf(phase0!, P1, DEPLOYED, { elementIds: [first!] }));
    fixture.clock.advance(1_000);
    await fixture.engine.applyInstanceAck(
      fixture.ackOf(phase0!, P1, UNDEPLOYED, { elementIds: [second!], failed: true }),
    );
    const failed = (await fixture.current(instance.instanceId))!;
    expect(failed).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'FAILED', phase: 0 });
    const afterFailure = await fixture.take();
    expect(afterFailure.map((sent) => sent.messageType)).toEqual(['PARTICIPANT_SYNC_MSG']);

    await fixture.order(instance.instanceId, 'DEPLOY');
    const [retry] = await fixture.take();
    // The retry describes the failed element and the later phases' elements, never the one already DEPLOYED.
    expect(retry).toMatchObject({ messageType: 'AUTOMATION_COMPOSITION_DEPLOY', phase: 0 });
    expect(retry!.described[P1]).toContain(second);
    expect(retry!.described[P1]).not.toContain(first);

    // The failed operation's message is answered late: a newer order runs, so nothing changes.
    const before = (await fixture.current(instance.instanceId))!;
    await fixture.engine.applyInstanceAck(fixture.ackOf(phase0!, P1, DEPLOYED, { elementIds: [second!] }));
    expect(await fixture.current(instance.instanceId)).toEqual(before);
    expect(await fixture.take()).toEqual([]);

    await fixture.engine.applyInstanceAck(fixture.ackOf(retry!, P1, DEPLOYED, { elementIds: [second!] }));
    for (const phase of [1, 2]) {
      const [next] = await fixture.take();
      expect(next!.phase).toBe(phase);
      // The message also lists later phases' elements: their reports are ignored as OTHER_PHASE.
      await fixture.engine.applyInstanceAck(fixture.ackOf(next!, P1, DEPLOYED));
    }
    expect(await fixture.current(instance.instanceId)).toMatchObject({
      deployState: 'DEPLOYED',
      stateChangeResult: 'NO_ERROR',
    });
  });

  it('a timeout is flagged once by the supervision tick, and a late success still completes', async () => {
    const fixture = new EngineFixture({ MAX_OPERATION_WAIT: '60000' });
    const definition = await fixture.definition('tosca/examples/sim-single-element.yaml', () => P1);
    const instance = await fixture.instance(definition);
    await fixture.order(instance.instanceId, 'DEPLOY');
    const [sent] = await fixture.take();
    fixture.clock.advance(60_000);
    expect(await fixture.supervisor.timeOutOverdue()).toBe(0);
    fixture.clock.advance(1);
    expect(await fixture.supervisor.timeOutOverdue()).toBe(1);
    expect(await fixture.supervisor.timeOutOverdue()).toBe(0);
    expect(await fixture.current(instance.instanceId)).toMatchObject({
      deployState: 'DEPLOYING',
      stateChangeResult: 'TIMEOUT',
    });
    expect((await fixture.take()).map((message) => message.messageType)).toEqual(['PARTICIPANT_SYNC_MSG']);

    fixture.clock.advance(5_000);
    await fixture.engine.applyInstanceAck(fixture.ackOf(sent!, P1, DEPLOYED));
    expect(await fixture.current(instance.instanceId)).toMatchObject({
      deployState: 'DEPLOYED',
      stateChangeResult: 'NO_ERROR',
    });
    const events = (await fixture.events(instance.instanceId)).map((event) => event.event);
    expect(events).toEqual(['ORDERED', 'PHASE_STARTED', 'TIMEOUT', 'ELEMENT_RESULT', 'PHASE_COMPLETED', 'COMPLETED']);
  });

  it('a prime past primeTimeoutMs is flagged TIMEOUT by the tick, and the late PRIME_ACK still primes it', async () => {
    const fixture = new EngineFixture();
    const definition = await fixture.definition('tosca/examples/sim-single-element.yaml', () => P1, {
      primeTimeoutMs: 3_000,
    });
    const priming = { ...definition, state: 'PRIMING' as const };
    await inSession(fixture.unitOfWork, async (session, store) => {
      const found = (await store.definitions.findForUpdate(definition.compositionId))!;
      await store.definitions.update(priming, found.version);
      await fixture.engine.startDefinitionOrder(session, priming, 'PRIME');
    });
    const [prime] = await fixture.take();
    expect(prime!.messageType).toBe('PARTICIPANT_PRIME');
    fixture.clock.advance(3_001);
    expect(await fixture.supervisor.timeOutOverdue()).toBe(1);
    const read = async (): Promise<unknown> =>
      (await fixture.unitOfWork.read((store) => store.definitions.find(definition.compositionId)))?.value;
    expect(await read()).toMatchObject({ state: 'PRIMING', stateChangeResult: 'TIMEOUT' });
    await fixture.engine.applyPrimeAck({
      messageType: 'PARTICIPANT_PRIME_ACK',
      responseTo: prime!.message.messageId,
      compositionId: definition.compositionId,
      participantId: P1,
      compositionState: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
    });
    expect(await read()).toMatchObject({ state: 'PRIMED', stateChangeResult: 'NO_ERROR' });
  });

  it('a lost replica’s open phase goes out again under its messageId, to its participant only', async () => {
    const fixture = new EngineFixture();
    const definition = await fixture.definition('tosca/examples/sim-two-participants.yaml', (name) =>
      name.includes('ElementB') ? P2 : P1,
    );
    const instance = await fixture.instance(definition);
    await fixture.unitOfWork.transaction(async (store) => {
      for (const [participantId, replicaId] of [
        [P1, 'replica-dead'],
        [P2, 'replica-alive'],
      ] as const) {
        await store.participants.save({
          participantId,
          participantSupportedElementTypes: {},
          replicas: { [replicaId]: { replicaId, participantState: 'ON_LINE', lastMsg: STARTED_AT } },
        });
      }
    });
    await fixture.order(instance.instanceId, 'DEPLOY');
    const [deploy] = await fixture.take();
    // P1's replica took the message (it answered one element), then died; P2 finished its share.
    const [a1] = deploy!.described[P1]!;
    await fixture.engine.applyInstanceAck(
      fixture.ackOf(deploy!, P1, DEPLOYED, { elementIds: [a1!], replicaId: 'replica-dead' }),
    );
    await fixture.engine.applyInstanceAck(fixture.ackOf(deploy!, P2, DEPLOYED, { replicaId: 'replica-alive' }));
    fixture.clock.advance(2_000);

    const resent = await fixture.supervisor.handOverLostWork(P1, (replica) => replica.replicaId === 'replica-dead');
    expect(resent).toBe(1);
    const [again] = await fixture.take();
    expect(again!.message.messageId).toBe(deploy!.message.messageId);
    expect(Object.keys(again!.described)).toEqual([P1]);
    expect(again!.described[P1]).toEqual(deploy!.described[P1]!.filter((id) => id !== a1));
    expect(await fixture.supervisor.handOverLostWork(P2, (replica) => replica.replicaId === 'replica-alive')).toBe(0);

    await fixture.engine.applyInstanceAck(fixture.ackOf(again!, P1, DEPLOYED, { replicaId: 'replica-new' }));
    expect(await fixture.current(instance.instanceId)).toMatchObject({ deployState: 'DEPLOYED' });
  });

  it('a staged migration walks the stages of the target composition and ends on it', async () => {
    const fixture = new EngineFixture();
    const from = await fixture.definition('tosca/examples/sim-migration-from.yaml', () => P1);
    const to = await fixture.definition('tosca/examples/sim-migration-to.yaml', () => P1);
    const instance = await fixture.instance(from);
    const kept = Object.values(instance.elements).filter((element) => !element.definition.name.endsWith('Sink'));
    const deployed: AutomationComposition = {
      ...instance,
      deployState: 'DEPLOYED',
      lockState: 'LOCKED',
      elements: Object.fromEntries(kept.map((element) => [element.id, { ...element, ...DEPLOYED }])),
    };
    await fixture.unitOfWork.transaction(async (store) => {
      const found = (await store.instances.findForUpdate(instance.instanceId))!;
      await store.instances.update(deployed, found.version);
    });
    const byName = (suffix: string): string => kept.find((element) => element.definition.name.endsWith(suffix))!.id;
    const [starter, bridge] = [byName('Starter'), byName('Bridge')];
    await fixture.order(
      instance.instanceId,
      'MIGRATE',
      (current) => ({
        ...current,
        compositionTargetId: to.compositionId,
        elements: Object.fromEntries(
          Object.entries(current.elements).map(([id, element]) => [
            id,
            { ...element, definition: { ...element.definition, version: '2.0.0' } },
          ]),
        ),
      }),
      { target: to },
    );
    const migrating = { deployState: 'MIGRATING', lockState: 'LOCKED' } as const;
    const stages: number[] = [];
    // Starter migrates in stages 0 and 1, Bridge in 1 and 2: each stage ACK names the element's next stage.
    const script: Record<number, Array<[string, number | undefined]>> = {
      0: [[starter, 1]],
      1: [
        [starter, undefined],
        [bridge, 2],
      ],
      2: [[bridge, undefined]],
    };
    for (let round = 0; round < 3; round += 1) {
      const [sent] = await fixture.take();
      expect(sent!.messageType).toBe('AUTOMATION_COMPOSITION_MIGRATION');
      stages.push(sent!.phase!);
      for (const [elementId, next] of script[sent!.phase!]!) {
        await fixture.engine.applyInstanceAck(
          fixture.ackOf(sent!, P1, next === undefined ? DEPLOYED : migrating, {
            elementIds: [elementId],
            ...(next === undefined ? {} : { stage: next }),
          }),
        );
      }
    }
    expect(stages).toEqual([0, 1, 2]);
    const done = (await fixture.current(instance.instanceId))!;
    expect(done).toMatchObject({ deployState: 'DEPLOYED', compositionId: to.compositionId, compositionTargetId: null });
    expect(Object.values(done.elements).map((element) => element.definition.version)).toEqual(['2.0.0', '2.0.0']);
  });

  it('maxParallelElements in the instance metadata keeps at most that many elements in flight, in id order', async () => {
    const fixture = new EngineFixture();
    const definition = await fixture.definition('tosca/examples/sim-single-element.yaml', () => P1);
    const instance = await fixture.instance(definition, { copies: 5, metadata: { maxParallelElements: 2 } });
    const ids = Object.keys(instance.elements).sort();
    await fixture.order(instance.instanceId, 'DEPLOY');
    const dispatched: string[][] = [];
    let inFlight = (await fixture.take())[0]!;
    dispatched.push(inFlight.described[P1]!);
    const pending = [...inFlight.described[P1]!];
    while (pending.length > 0) {
      const elementId = pending.shift()!;
      await fixture.engine.applyInstanceAck(fixture.ackOf(inFlight, P1, DEPLOYED, { elementIds: [elementId] }));
      const next = (await fixture.take()).filter((sent) => sent.messageType === 'AUTOMATION_COMPOSITION_DEPLOY');
      for (const sent of next) {
        dispatched.push(sent.described[P1]!);
        pending.push(...sent.described[P1]!);
        inFlight = sent;
      }
      expect(pending.length).toBeLessThanOrEqual(2);
    }
    expect(dispatched).toEqual([[ids[0], ids[1]], [ids[2]], [ids[3]], [ids[4]]]);
    expect(await fixture.current(instance.instanceId)).toMatchObject({ deployState: 'DEPLOYED' });
  });
});
