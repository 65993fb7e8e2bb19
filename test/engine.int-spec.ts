import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
import { SupervisionScheduler } from '../apps/runtime-acm/src/supervision/supervision.scheduler';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  commissionAndPrime,
  createInstanceFrom,
  historyOf,
  instanceOf,
  orderInstance,
  readRepoFile,
} from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const threePhaseYaml = readRepoFile('tosca/examples/sim-three-phase.yaml');
const threePhaseInstance = readRepoFile('tosca/examples/instances/sim-three-phase.json');

interface Instance {
  deployState: string;
  lockState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, { deployState: string; lockState: string; outProperties: Record<string, unknown> }>;
}

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
  operationId: string;
}

describe('phase engine (PostgreSQL, in-process bus, scripted participant)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;

  beforeAll(async () => {
    // An hour-long supervision period: every advance below is driven by ACKs alone.
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }));
    compositionId = await commissionAndPrime(runtime, threePhaseYaml);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  async function createInstance(): Promise<string> {
    return (await createInstanceFrom(runtime, compositionId, threePhaseInstance)).instanceId;
  }

  const instance = (instanceId: string): Promise<Instance> => instanceOf(runtime, compositionId, instanceId);

  const order = (instanceId: string, body: Record<string, string>): Promise<void> =>
    orderInstance(runtime, compositionId, instanceId, body);

  async function until(instanceId: string, deployState: string, lockState: string): Promise<Instance> {
    return eventually(`${deployState}/${lockState}`, async () => {
      const current = await instance(instanceId);
      return current.deployState === deployState && current.lockState === lockState && current.phase === undefined
        ? current
        : undefined;
    });
  }

  const events = (instanceId: string): Promise<HistoryEvent[]> =>
    historyOf<HistoryEvent>(runtime, compositionId, instanceId);

  function phasesStarted(list: HistoryEvent[], operationId: string): unknown[] {
    return list
      .filter((event) => event.operationId === operationId && event.event === 'PHASE_STARTED')
      .map((event) => event.detail['phase']);
  }

  it('deploys phase by phase in ascending order and undeploys in descending order, driven by ACKs', async () => {
    const instanceId = await createInstance();
    await order(instanceId, { deployOrder: 'DEPLOY' });
    const deployed = await until(instanceId, 'DEPLOYED', 'LOCKED');
    expect(deployed.stateChangeResult).toBe('NO_ERROR');
    expect(Object.values(deployed.elements).every((element) => element.deployState === 'DEPLOYED')).toBe(true);
    expect(Object.values(deployed.elements)[0]?.outProperties).toEqual({ answeredBy: participant.replicaId });

    const deployEvents = await events(instanceId);
    const deployOperation = deployEvents.find((event) => event.event === 'ORDERED')!.operationId;
    expect(phasesStarted(deployEvents, deployOperation)).toEqual([0, 1, 2]);
    const resultPhases = deployEvents
      .filter((event) => event.operationId === deployOperation && event.event === 'ELEMENT_RESULT')
      .map((event) => event.detail['phase']);
    expect(resultPhases).toEqual([0, 0, 1, 1, 2, 2]);
    expect(deployEvents.filter((event) => event.operationId === deployOperation).at(-1)?.event).toBe('COMPLETED');

    await order(instanceId, { deployOrder: 'UNDEPLOY' });
    await until(instanceId, 'UNDEPLOYED', 'NONE');
    const all = await events(instanceId);
    const undeployOperation = all.filter((event) => event.event === 'ORDERED').at(-1)!.operationId;
    expect(phasesStarted(all, undeployOperation)).toEqual([2, 1, 0]);
    const handledPhases = participant.handled
      .filter((work) => work.order === 'UNDEPLOY' && Object.keys(deployed.elements).includes(work.elementId))
      .map((work) => work.phase);
    expect(handledPhases).toEqual([2, 2, 1, 1, 0, 0]);
  });

  it('unlocks and locks, then deletes the instance row', async () => {
    const instanceId = await createInstance();
    await order(instanceId, { deployOrder: 'DEPLOY' });
    await until(instanceId, 'DEPLOYED', 'LOCKED');
    await order(instanceId, { lockOrder: 'UNLOCK' });
    await until(instanceId, 'DEPLOYED', 'UNLOCKED');
    await order(instanceId, { lockOrder: 'LOCK' });
    await until(instanceId, 'DEPLOYED', 'LOCKED');
    await order(instanceId, { deployOrder: 'UNDEPLOY' });
    await until(instanceId, 'UNDEPLOYED', 'NONE');
    await runtime.http.delete(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(202);
    await eventually('the instance to disappear', async () => {
      const response = await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`);
      return response.status === 404 ? true : undefined;
    });
    const history = await events(instanceId);
    expect(history.filter((event) => event.event === 'COMPLETED').map((event) => event.detail['deployState'])).toEqual([
      'DEPLOYED',
      'DEPLOYED',
      'DEPLOYED',
      'UNDEPLOYED',
      'DELETED',
    ]);
  });

  it('ignores duplicated, stale and out-of-phase ACKs', async () => {
    const instanceId = await createInstance();
    participant.autoAnswer = false;
    try {
      await order(instanceId, { deployOrder: 'DEPLOY' });
      const phase0 = await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
      const phase0Elements = participant.myElements(phase0);
      expect(phase0Elements).toHaveLength(2);

      // An ACK claiming a phase-2 element while phase 0 is open changes nothing.
      const phase2Element = Object.entries((await instance(instanceId)).elements).find(
        ([id]) => !phase0Elements.includes(id),
      )![0];
      await participant.ack(phase0, [phase2Element]);
      // Half of phase 0, then the same ACK twice.
      await participant.ack(phase0, [phase0Elements[0]!]);
      await participant.ack(phase0, [phase0Elements[0]!]);
      await eventually('the first element to be deployed', async () => {
        const current = await instance(instanceId);
        return current.elements[phase0Elements[0]!]?.deployState === 'DEPLOYED' ? current : undefined;
      });
      const midway = await instance(instanceId);
      expect(midway.phase).toBe(0);
      expect(midway.elements[phase2Element]?.deployState).toBe('DEPLOYING');
      expect(participant.phaseMessages(instanceId)).toHaveLength(1);

      // The rest of phase 0 opens phase 1; a late duplicate of the phase-0 ACK changes nothing.
      await participant.ack(phase0, [phase0Elements[1]!]);
      const phase1 = await eventually('the phase-1 message', () => participant.phaseMessages(instanceId)[1]);
      expect(phase1.startPhase).toBe(1);
      await participant.ack(phase0, phase0Elements);
      await participant.ack(phase1, participant.myElements(phase1));
      const phase2 = await eventually('the phase-2 message', () => participant.phaseMessages(instanceId)[2]);
      await participant.ack(phase2, participant.myElements(phase2));
      await until(instanceId, 'DEPLOYED', 'LOCKED');

      // Once undeploy runs, replaying the whole deploy operation's ACKs is stale.
      await order(instanceId, { deployOrder: 'UNDEPLOY' });
      const undeploy2 = await eventually('the undeploy message', () => participant.phaseMessages(instanceId)[3]);
      expect(undeploy2.startPhase).toBe(2);
      for (const message of [phase0, phase1, phase2]) {
        await participant.ack(message, participant.myElements(message));
      }
      const stillUndeploying = await instance(instanceId);
      expect(stillUndeploying.deployState).toBe('UNDEPLOYING');
      expect(Object.values(stillUndeploying.elements).filter((e) => e.deployState === 'DEPLOYED')).toHaveLength(0);
      expect(participant.phaseMessages(instanceId)).toHaveLength(4);
    } finally {
      participant.autoAnswer = true;
    }
  });

  it('marks FAILED on a failed element and retries only what did not finish', async () => {
    const instanceId = await createInstance();
    const elementIds = Object.keys((await instance(instanceId)).elements);
    const before = participant.handled.length;
    participant.failing.add(elementIds[2]!);
    await order(instanceId, { deployOrder: 'DEPLOY' });
    // FAILED, and the other phase-1 element answered too: three elements DEPLOYED, the failed one back to UNDEPLOYED.
    const failed = await eventually('FAILED with phase 1 answered', async () => {
      const current = await instance(instanceId);
      const deployedCount = Object.values(current.elements).filter((e) => e.deployState === 'DEPLOYED').length;
      return current.stateChangeResult === 'FAILED' && deployedCount === 3 ? current : undefined;
    });
    expect(failed.elements[elementIds[2]!]?.deployState).toBe('UNDEPLOYED');
    expect(failed.deployState).toBe('DEPLOYING');
    participant.failing.clear();
    const attemptsBefore = participant.handled.slice(before).map((work) => work.elementId);
    await order(instanceId, { deployOrder: 'DEPLOY' });
    await until(instanceId, 'DEPLOYED', 'LOCKED');
    const retried = participant.handled
      .slice(before + attemptsBefore.length)
      .filter((work) => elementIds.includes(work.elementId))
      .map((work) => work.elementId);
    // Elements that had already reached DEPLOYED are not deployed again.
    const alreadyDone = attemptsBefore.filter((id) => id !== elementIds[2]);
    expect(retried.filter((id) => alreadyDone.includes(id))).toEqual([]);
    expect(retried).toContain(elementIds[2]);
  });

  it('undeploys every element after a failed deploy, telling the participant, UNDEPLOYING while it works', async () => {
    const instanceId = await createInstance();
    const elementIds = Object.keys((await instance(instanceId)).elements);
    participant.autoAnswer = false;
    try {
      await order(instanceId, { deployOrder: 'DEPLOY' });
      const phase0 = await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
      const failedIds = participant.myElements(phase0);
      for (const elementId of failedIds) {
        participant.failing.add(elementId);
        await participant.ack(phase0, [elementId]);
      }
      await eventually('FAILED with both phase-0 elements answered', async () => {
        const current = await instance(instanceId);
        return current.stateChangeResult === 'FAILED' &&
          failedIds.every((id) => current.elements[id]?.deployState === 'UNDEPLOYED')
          ? current
          : undefined;
      });
      participant.failing.clear();
      const sentBefore = participant.phaseMessages(instanceId).length;
      await order(instanceId, { deployOrder: 'UNDEPLOY' });
      const undeployed: string[] = [];
      for (let index = sentBefore; undeployed.length < elementIds.length; index += 1) {
        const message = await eventually(
          `undeploy message ${index}`,
          () => participant.phaseMessages(instanceId)[index],
        );
        expect((await instance(instanceId)).deployState).toBe('UNDEPLOYING');
        const mine = participant.myElements(message);
        undeployed.push(...mine);
        await participant.ack(message, mine);
      }
      // The elements the failed deploy left UNDEPLOYED are told to undeploy too (ONAP cascades every element).
      expect([...undeployed].sort()).toEqual([...elementIds].sort());
      const done = await until(instanceId, 'UNDEPLOYED', 'NONE');
      expect(done.stateChangeResult).toBe('NO_ERROR');
    } finally {
      participant.autoAnswer = true;
      participant.failing.clear();
    }
  });

  it('flags TIMEOUT after deployTimeoutMs when nobody answers, and a late success still completes', async () => {
    const instanceId = await createInstance();
    const current = await instance(instanceId);
    const body = JSON.parse(threePhaseInstance.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as Record<
      string,
      unknown
    >;
    await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({
        ...body,
        instanceId,
        name: (await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)).body.name,
        elements: Object.fromEntries(
          Object.entries(current.elements).map(([id, element]) => [
            id,
            { ...element, id, properties: { deployTimeoutMs: 1 } },
          ]),
        ),
      })
      .expect(200);
    participant.autoAnswer = false;
    try {
      await order(instanceId, { deployOrder: 'DEPLOY' });
      const phase0 = await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
      // deployTimeoutMs is 1 ms: each tick flags the operation once its deadline passed; wait for that state.
      const timedOut = await eventually('the TIMEOUT flag', async () => {
        await runtime.app.get(SupervisionScheduler).tick();
        const current = await instance(instanceId);
        return current.stateChangeResult === 'TIMEOUT' ? current : undefined;
      });
      expect(timedOut.deployState).toBe('DEPLOYING');
      participant.autoAnswer = true;
      await participant.ack(phase0, participant.myElements(phase0));
      const phase1 = await eventually('phase 1', () => participant.phaseMessages(instanceId)[1]);
      await participant.ack(phase1, participant.myElements(phase1));
      const phase2 = await eventually('phase 2', () => participant.phaseMessages(instanceId)[2]);
      await participant.ack(phase2, participant.myElements(phase2));
      const done = await until(instanceId, 'DEPLOYED', 'LOCKED');
      expect(done.stateChangeResult).toBe('NO_ERROR');
    } finally {
      participant.autoAnswer = true;
    }
  });

  it('logs, counts and skips bad participant messages without changing any state', async () => {
    const instanceId = await createInstance();
    await order(instanceId, { deployOrder: 'DEPLOY' });
    await until(instanceId, 'DEPLOYED', 'LOCKED');
    const before = await instance(instanceId);
    const metric = async (name: string, label: string): Promise<number> => {
      const text = (await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200)).text;
      const line = text.split('\n').find((entry) => entry.startsWith(`${name}{${label}}`));
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    const bus = runtime.app.get(MessageBus);
    const topic = 'policy-acruntime-participant';
    const rejectedJson = await metric('acm_participant_messages_rejected_total', 'code="INVALID_JSON"');
    const rejectedLarge = await metric('acm_participant_messages_rejected_total', 'code="TOO_LARGE"');
    const rejectedField = await metric('acm_participant_messages_rejected_total', 'code="INVALID_FIELD"');
    const unknownInstance = await metric('acm_participant_messages_ignored_total', 'reason="UNKNOWN_INSTANCE"');
    const stale = await metric('acm_participant_messages_ignored_total', 'reason="STALE"');
    const [elementId] = Object.keys(before.elements);
    const ack = (extra: Record<string, unknown>): string =>
      JSON.stringify({
        messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        participantId: participant.participantId,
        replicaId: participant.replicaId,
        automationCompositionId: instanceId,
        stateChangeResult: 'NO_ERROR',
        automationCompositionResultMap: {
          [elementId!]: { deployState: 'UNDEPLOYED', lockState: 'NONE', result: true },
        },
        ...extra,
      });
    await bus.publish(topic, [
      { key: null, value: '{"messageType": "AUTOMATION_COMPOSITION_STATECHANGE_ACK", ' },
      { key: null, value: JSON.stringify({ messageType: 'PARTICIPANT_STATUS', padding: 'x'.repeat(1_100_000) }) },
      { key: null, value: ack({ automationCompositionId: 'not-a-uuid' }) },
      { key: null, value: ack({ automationCompositionId: randomUUID() }) },
      // A valid ACK for this (idle) instance from a participant that owns none of its elements.
      { key: null, value: ack({ participantId: randomUUID() }) },
    ]);
    await eventually('the bad messages to be counted', async () =>
      (await metric('acm_participant_messages_ignored_total', 'reason="UNKNOWN_INSTANCE"')) > unknownInstance
        ? true
        : undefined,
    );
    expect(await metric('acm_participant_messages_rejected_total', 'code="INVALID_JSON"')).toBe(rejectedJson + 1);
    expect(await metric('acm_participant_messages_rejected_total', 'code="TOO_LARGE"')).toBe(rejectedLarge + 1);
    expect(await metric('acm_participant_messages_rejected_total', 'code="INVALID_FIELD"')).toBe(rejectedField + 1);
    await eventually('the foreign ACK to be counted', async () =>
      (await metric('acm_participant_messages_ignored_total', 'reason="STALE"')) > stale ? true : undefined,
    );
    const after = await instance(instanceId);
    expect(after).toEqual(before);
  });

  it('stores element information a participant pushes with STATUS, for its own elements only', async () => {
    const instanceId = await createInstance();
    await order(instanceId, { deployOrder: 'DEPLOY' });
    const deployed = await until(instanceId, 'DEPLOYED', 'LOCKED');
    const elementIds = Object.keys(deployed.elements);
    expect(elementIds.length).toBeGreaterThan(1);
    // One STATUS listing several elements of the instance, as the SDK sends the infos queued in one turn.
    const status = (participantId: string, value: string) => ({
      messageType: 'PARTICIPANT_STATUS' as const,
      messageId: randomUUID(),
      timestamp: new Date().toISOString(),
      participantId,
      replicaId: participantId === participant.participantId ? participant.replicaId : randomUUID(),
      automationCompositionInfoList: [
        {
          automationCompositionId: instanceId,
          elements: elementIds.map((elementId) => ({
            automationCompositionElementId: elementId,
            outProperties: { pushed: `${value} to ${elementId}` },
            useState: 'BUSY',
          })),
        },
      ],
    });
    await participant.send(status(randomUUID(), 'by a stranger'));
    await participant.send(status(participant.participantId, 'by the owner'));
    const updated = await eventually('the pushed outProperties', async () => {
      const current = await instance(instanceId);
      return elementIds.every(
        (elementId) => current.elements[elementId]?.outProperties['pushed'] === `by the owner to ${elementId}`,
      )
        ? current
        : undefined;
    });
    for (const elementId of elementIds) {
      expect(updated.elements[elementId]).toMatchObject({ useState: 'BUSY', deployState: 'DEPLOYED' });
    }
    // Element information is not an order: the user's next order is not refused because of it.
    await order(instanceId, { deployOrder: 'UNDEPLOY' });
    await until(instanceId, 'UNDEPLOYED', 'NONE');
  });

  it('deprimes and deletes the definition once its instances are gone', async () => {
    const created = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(threePhaseYaml.replace('name: acm.example.SimThreePhase', 'name: acm.example.SimThreePhase.Deprime'))
      .expect(201);
    const id = (created.body as { compositionId: string }).compositionId;
    await runtime.http.put(`${BASE}/compositions/${id}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('PRIMED', async () => {
      const got = await runtime.http.get(`${BASE}/compositions/${id}`).expect(200);
      return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
    await runtime.http.put(`${BASE}/compositions/${id}`).send({ primeOrder: 'DEPRIME' }).expect(202);
    await eventually('COMMISSIONED', async () => {
      const got = await runtime.http.get(`${BASE}/compositions/${id}`).expect(200);
      return (got.body as { state: string }).state === 'COMMISSIONED' ? true : undefined;
    });
    await runtime.http.delete(`${BASE}/compositions/${id}`).expect(200);
    const history = (await runtime.http.get(`${BASE}/compositions/${id}`)).status;
    expect(history).toBe(404);
  });
});
