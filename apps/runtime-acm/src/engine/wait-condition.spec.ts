import type { AutomationComposition, CompositionDefinition, OperationSession, Signal, Versioned } from '@acm/domain';
import { DomainError } from '@acm/domain';

import { EngineFixture, inSession } from './testing/engine-fixture';

const PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const APPROVAL = 'acm.example.approval.Approval';

/** sim-approval: Database → Approval (a wait condition) → Backend, all in start phase 0. */
async function approval(env: Record<string, string> = {}, metadata: Record<string, unknown> = {}) {
  const fixture = new EngineFixture({ MAX_WAIT_MS: '0', ...env });
  const definition = await fixture.definition(
    'tosca/examples/sim-approval.yaml',
    (name) => (name === APPROVAL ? null : PARTICIPANT),
    metadata,
  );
  const instance = await fixture.instance(definition);
  const idOf = (suffix: string): string =>
    Object.values(instance.elements).find((element) => element.definition.name.endsWith(suffix))!.id;
  const ids = { database: idOf('Database'), approval: idOf('Approval'), backend: idOf('Backend') };
  const locked = <T>(work: (session: OperationSession, found: Versioned<AutomationComposition>) => Promise<T>) =>
    inSession(fixture.unitOfWork, async (session) => work(session, (await session.lockInstance(instance.instanceId))!));
  const signal = (value: Signal, elementId = ids.approval) =>
    locked(async (session, found) => {
      const stored = (await session.definition(found.value.compositionId))!;
      return fixture.control.signalInstance(session, found, stored.value, elementId, value);
    });
  const pause = () => locked((session, found) => fixture.control.pauseInstance(session, found, definition));
  const resume = () => locked((session, found) => fixture.control.resumeInstance(session, found, definition));
  const current = async (): Promise<AutomationComposition> => (await fixture.current(instance.instanceId))!;
  const phases = async () => (await fixture.take()).filter((sent) => sent.messageType !== 'PARTICIPANT_SYNC_MSG');
  const names = async (): Promise<string[]> => (await fixture.events(instance.instanceId)).map((event) => event.event);
  return { fixture, definition, instance, ids, signal, pause, resume, current, names, phases };
}

async function deployUpToTheWait(h: Awaited<ReturnType<typeof approval>>) {
  await h.fixture.order(h.instance.instanceId, 'DEPLOY');
  const [first] = await h.phases();
  expect(first!.described[PARTICIPANT]).toEqual([h.ids.database]);
  await h.fixture.engine.applyInstanceAck(
    h.fixture.ackOf(first!, PARTICIPANT, { deployState: 'DEPLOYED', lockState: 'LOCKED' }),
  );
  // The wait starts: no participant message for it.
  expect(await h.phases()).toEqual([]);
}

const success = (id: string): Signal => ({ id, status: 'SUCCESS', reason: null });

describe('wait conditions', () => {
  it('holds its dependant until count SUCCESS signals, ignores a duplicated id, then the deploy completes', async () => {
    const h = await approval();
    const twoNeeded = (await h.current()).elements[h.ids.approval]!;
    expect(twoNeeded.participantId).toBeNull();
    await deployUpToTheWait(h);
    expect((await h.current()).elements[h.ids.approval]!.deployState).toBe('DEPLOYING');
    expect((await h.current()).elements[h.ids.backend]!.deployState).toBe('DEPLOYING');

    const done = await h.signal(success('s1'));
    expect(done.effect).toBe('COMPLETED');
    const [backend] = await h.phases();
    expect(backend!.described[PARTICIPANT]).toEqual([h.ids.backend]);
    expect((await h.current()).elements[h.ids.approval]!.deployState).toBe('DEPLOYED');

    const again = await h.signal(success('s1'));
    expect(again.effect).toBe('DUPLICATE');
    expect(await h.phases()).toEqual([]);

    await h.fixture.engine.applyInstanceAck(
      h.fixture.ackOf(backend!, PARTICIPANT, { deployState: 'DEPLOYED', lockState: 'LOCKED' }),
    );
    const deployed = await h.current();
    expect(deployed.deployState).toBe('DEPLOYED');
    expect(await h.names()).toEqual(
      expect.arrayContaining(['WAIT_STARTED', 'SIGNAL_RECEIVED', 'WAIT_COMPLETED', 'COMPLETED']),
    );
  });

  it('counts signals up to count (a template with count 2)', async () => {
    const h = await approval();
    await h.fixture.unitOfWork.transaction(async (store) => {
      const found = (await store.definitions.find(h.definition.compositionId))!;
      const template = structuredClone(found.value.serviceTemplate) as {
        topology_template: { node_templates: Record<string, { properties: Record<string, unknown> }> };
      };
      template.topology_template.node_templates[APPROVAL]!.properties['count'] = 2;
      const changed: CompositionDefinition = {
        ...found.value,
        serviceTemplate: template,
        revisionId: 'e0000000-0000-4000-8000-0000000c0002',
      };
      await store.definitions.update(changed, found.version);
    });
    await deployUpToTheWait(h);
    expect((await h.signal(success('a'))).effect).toBe('COUNTED');
    expect(await h.phases()).toEqual([]);
    expect((await h.signal(success('a'))).effect).toBe('DUPLICATE');
    expect((await h.signal(success('b'))).effect).toBe('COMPLETED');
    expect((await h.phases()).map((sent) => sent.described[PARTICIPANT])).toEqual([[h.ids.backend]]);
    const wait = (await h.current()).elements[h.ids.approval]!.outProperties['waitCondition'];
    expect(wait).toMatchObject({ signalIds: ['a', 'b'], successes: 2, outcome: 'COMPLETED', count: 2 });
  });

  it('fails the operation on a FAILURE signal (the failure rule), and the dependant is never sent', async () => {
    const h = await approval();
    await deployUpToTheWait(h);
    const failed = await h.signal({ id: 'no', status: 'FAILURE', reason: 'change board said no' });
    expect(failed.effect).toBe('FAILED');
    expect(await h.phases()).toEqual([]);
    const instance = await h.current();
    expect(instance.stateChangeResult).toBe('FAILED');
    expect(instance.elements[h.ids.approval]!.message).toBe('change board said no');
    expect(await h.names()).toEqual(expect.arrayContaining(['WAIT_FAILED', 'FAILED']));
  });

  it('times out at its own timeout (TIMEOUT, the wait TIMED_OUT), after which a signal finds no wait', async () => {
    const h = await approval({ MAX_OPERATION_WAIT: String(10 * 3_600_000) });
    await deployUpToTheWait(h);
    h.fixture.clock.advance(3_600_000 - 1);
    expect(await h.fixture.supervisor.timeOutOverdue()).toBe(0);
    h.fixture.clock.advance(2);
    expect(await h.fixture.supervisor.timeOutOverdue()).toBe(1);
    const instance = await h.current();
    expect(instance.stateChangeResult).toBe('TIMEOUT');
    expect(instance.elements[h.ids.approval]!.outProperties['waitCondition']).toMatchObject({ outcome: 'TIMED_OUT' });
    expect(await h.names()).toEqual(expect.arrayContaining(['TIMEOUT', 'WAIT_TIMED_OUT']));
    await expect(h.signal(success('late'))).rejects.toMatchObject({ code: 'NOTHING_RUNNING' });
  });

  it('does not count a pause against its own timeout', async () => {
    const h = await approval({ MAX_OPERATION_WAIT: String(10 * 3_600_000) });
    await deployUpToTheWait(h);
    h.fixture.clock.advance(1_800_000);
    await h.pause();
    // Paused for two hours, past the wait's one-hour timeout: it does not time out.
    h.fixture.clock.advance(7_200_000);
    expect(await h.fixture.supervisor.timeOutOverdue()).toBe(0);
    await h.resume();
    // Its hour is 30 minutes before the pause and 30 after the resume.
    h.fixture.clock.advance(1_800_000 - 1);
    expect(await h.fixture.supervisor.timeOutOverdue()).toBe(0);
    const signalled = await h.signal(success('in-time'));
    expect(signalled.effect).toBe('COMPLETED');
    expect((await h.current()).elements[h.ids.approval]!.deployState).toBe('DEPLOYED');
  });

  it('times out after a pause at what was left of its own timeout', async () => {
    const h = await approval({ MAX_OPERATION_WAIT: String(10 * 3_600_000) });
    await deployUpToTheWait(h);
    h.fixture.clock.advance(1_800_000);
    await h.pause();
    h.fixture.clock.advance(7_200_000);
    await h.resume();
    h.fixture.clock.advance(1_800_000 + 1);
    expect(await h.fixture.supervisor.timeOutOverdue()).toBe(1);
    expect((await h.current()).elements[h.ids.approval]!.outProperties['waitCondition']).toMatchObject({
      outcome: 'TIMED_OUT',
    });
  });

  it('times out at the operation deadline when that comes first', async () => {
    const h = await approval({ MAX_OPERATION_WAIT: '1000' });
    await deployUpToTheWait(h);
    h.fixture.clock.advance(1_001);
    expect(await h.fixture.supervisor.timeOutOverdue()).toBe(1);
    expect((await h.current()).elements[h.ids.approval]!.outProperties['waitCondition']).toMatchObject({
      outcome: 'TIMED_OUT',
    });
  });

  it('refuses signals with no wait running, and for an element that is not a wait condition or is unknown', async () => {
    const h = await approval();
    await expect(h.signal(success('early'))).rejects.toMatchObject({ code: 'NOTHING_RUNNING' });
    await expect(h.signal(success('x'), h.ids.database)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const unknown = h.signal(success('x'), '5e1f0000-0000-4000-8000-00000000ffff');
    await expect(unknown).rejects.toBeInstanceOf(DomainError);
    await expect(unknown).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // Nothing was half-applied: the instance is as it was.
    expect(await h.current()).toEqual(h.instance);
  });

  it('undeploys a wait condition at once, with no message for it, and the undeploy completes', async () => {
    const h = await approval();
    await deployUpToTheWait(h);
    await h.signal(success('ok'));
    const [backend] = await h.phases();
    await h.fixture.engine.applyInstanceAck(
      h.fixture.ackOf(backend!, PARTICIPANT, { deployState: 'DEPLOYED', lockState: 'LOCKED' }),
    );
    await h.fixture.order(h.instance.instanceId, 'UNDEPLOY');
    // Reverse order: Backend first, then the approval (at once), then Database.
    const [undeployBackend] = await h.phases();
    expect(undeployBackend!.described[PARTICIPANT]).toEqual([h.ids.backend]);
    await h.fixture.engine.applyInstanceAck(
      h.fixture.ackOf(undeployBackend!, PARTICIPANT, { deployState: 'UNDEPLOYED', lockState: 'NONE' }),
    );
    const [undeployDatabase, ...rest] = await h.phases();
    expect(rest).toEqual([]);
    expect(undeployDatabase!.described[PARTICIPANT]).toEqual([h.ids.database]);
    expect((await h.current()).elements[h.ids.approval]!.deployState).toBe('UNDEPLOYED');
    await h.fixture.engine.applyInstanceAck(
      h.fixture.ackOf(undeployDatabase!, PARTICIPANT, { deployState: 'UNDEPLOYED', lockState: 'NONE' }),
    );
    expect((await h.current()).deployState).toBe('UNDEPLOYED');

    // A delete completes the wait condition at once too, and the instance is gone once the others answer.
    await h.fixture.order(h.instance.instanceId, 'DELETE');
    const deletes = await h.phases();
    for (const sent of deletes) {
      expect(sent.described[PARTICIPANT]).not.toContain(h.ids.approval);
      await h.fixture.engine.applyInstanceAck(
        h.fixture.ackOf(sent, PARTICIPANT, { deployState: 'DELETED', lockState: 'NONE' }),
      );
    }
    for (let more = await h.phases(); more.length > 0; more = await h.phases()) {
      for (const sent of more) {
        await h.fixture.engine.applyInstanceAck(
          h.fixture.ackOf(sent, PARTICIPANT, { deployState: 'DELETED', lockState: 'NONE' }),
        );
      }
    }
    expect(await h.fixture.current(h.instance.instanceId)).toBeNull();
  });

  it('counts signals in acm_signals_total by status and effect', async () => {
    const h = await approval();
    await deployUpToTheWait(h);
    await h.signal(success('m1'));
    await h.signal(success('m1'));
    const metrics = await h.fixture.metrics.registry.metrics();
    expect(metrics).toContain('acm_signals_total{status="SUCCESS",effect="completed"} 1');
    expect(metrics).toContain('acm_signals_total{status="SUCCESS",effect="duplicate"} 1');
  });
});
