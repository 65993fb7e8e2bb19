import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';

import { EngineFixture, STARTED_AT } from './testing/engine-fixture';
import type { SentOrder } from './testing/engine-fixture';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const DEPLOYED = { deployState: 'DEPLOYED', lockState: 'LOCKED' } as const;

/**
 * ONAP's participant intermediary answers the work it was still doing when a TIMEOUT SYNC came with that SYNC's
 * messageId as `responseTo`; the runtime takes that answer for the timed-out operation, as ONAP's runtime does.
 */
describe('a late ACK that answers the TIMEOUT SYNC (in-memory store, fake clock)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  async function timedOutDeploy(options: { replicaId?: string } = {}): Promise<{
    fixture: EngineFixture;
    instanceId: string;
    phase0: SentOrder;
    sync: SentOrder;
  }> {
    const fixture = new EngineFixture({ MAX_OPERATION_WAIT: '60000' });
    const definition = await fixture.definition('tosca/examples/sim-three-phase.yaml', () => P1);
    const instance = await fixture.instance(definition);
    if (options.replicaId !== undefined) {
      const replicaId = options.replicaId;
      await fixture.unitOfWork.transaction((store) =>
        store.participants.save({
          participantId: P1,
          participantSupportedElementTypes: {},
          replicas: { [replicaId]: { replicaId, participantState: 'ON_LINE', lastMsg: STARTED_AT } },
        }),
      );
    }
    await fixture.order(instance.instanceId, 'DEPLOY');
    const [phase0] = await fixture.take();
    fixture.clock.advance(60_001);
    expect(await fixture.supervisor.timeOutOverdue()).toBe(1);
    const [sync] = await fixture.take();
    expect(sync).toMatchObject({ messageType: 'PARTICIPANT_SYNC_MSG' });
    expect(await fixture.current(instance.instanceId)).toMatchObject({
      deployState: 'DEPLOYING',
      stateChangeResult: 'TIMEOUT',
    });
    return { fixture, instanceId: instance.instanceId, phase0: phase0!, sync: sync! };
  }

  it('applies it to the timed-out phase, and the remaining phases run to DEPLOYED', async () => {
    const { fixture, instanceId, phase0, sync } = await timedOutDeploy();

    fixture.clock.advance(1_000);
    await fixture.engine.applyInstanceAck({
      ...fixture.ackOf(phase0, P1, DEPLOYED),
      responseTo: sync.message.messageId,
    });
    const [phase1] = await fixture.take();
    expect(phase1).toMatchObject({ messageType: 'AUTOMATION_COMPOSITION_DEPLOY', phase: 1 });
    await fixture.engine.applyInstanceAck(fixture.ackOf(phase1!, P1, DEPLOYED));
    const [phase2] = await fixture.take();
    expect(phase2).toMatchObject({ messageType: 'AUTOMATION_COMPOSITION_DEPLOY', phase: 2 });
    await fixture.engine.applyInstanceAck(fixture.ackOf(phase2!, P1, DEPLOYED));

    expect(await fixture.current(instanceId)).toMatchObject({ deployState: 'DEPLOYED', stateChangeResult: 'NO_ERROR' });
    const events = (await fixture.events(instanceId)).map((event) => event.event);
    expect(events.slice(0, 5)).toEqual(['ORDERED', 'PHASE_STARTED', 'TIMEOUT', 'ELEMENT_RESULT', 'ELEMENT_RESULT']);
    expect(events.at(-1)).toBe('COMPLETED');
  });

  it('never sends the SYNC again as a phase message when the replica that answered it is lost', async () => {
    const { fixture, phase0, sync } = await timedOutDeploy({ replicaId: 'replica-dead' });
    const [first] = phase0.described[P1]!;
    await fixture.engine.applyInstanceAck({
      ...fixture.ackOf(phase0, P1, DEPLOYED, { elementIds: [first!], replicaId: 'replica-dead' }),
      responseTo: sync.message.messageId,
    });
    expect(await fixture.take()).toEqual([]);

    // Its only replica is lost: the phase goes out again under the phase message's id, never under the SYNC's.
    expect(await fixture.supervisor.handOverLostWork(P1, (replica) => replica.replicaId === 'replica-dead')).toBe(1);
    const resent = await fixture.take();
    expect(resent.map((message) => message.message.messageId)).toEqual([phase0.message.messageId]);
    expect(resent[0]!.described[P1]).not.toContain(first);
  });

  it('still ignores an ACK that answers a message the runtime never sent', async () => {
    const { fixture, instanceId, phase0 } = await timedOutDeploy();

    await fixture.engine.applyInstanceAck({ ...fixture.ackOf(phase0, P1, DEPLOYED), responseTo: randomUUID() });

    expect(await fixture.current(instanceId)).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'TIMEOUT' });
    expect(await fixture.take()).toEqual([]);
    expect((await fixture.events(instanceId)).map((event) => event.event)).toEqual([
      'ORDERED',
      'PHASE_STARTED',
      'TIMEOUT',
    ]);
  });
});
