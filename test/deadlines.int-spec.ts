import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { Clock } from '@acm/domain';
import { MessageBus } from '@acm/messaging';
import { SupervisionScheduler } from '../apps/runtime-acm/src/supervision/supervision.scheduler';
import { SupervisionTimer } from '../apps/runtime-acm/src/supervision/supervision-timer';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, startRuntime, commissionAndPrime, participantRegistered } from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';
import { testDatabaseUrl } from './support/services';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const threePhaseYaml = readRepoFile('tosca/examples/sim-three-phase.yaml');
const threePhaseInstance = readRepoFile('tosca/examples/instances/sim-three-phase.json');

interface Instance {
  deployState: string;
  lockState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, { deployState: string; lockState: string }>;
}

/**
 * Operation deadlines as ONAP measures them, on a fake clock: the runtime's Clock port is driven by the
 * test and supervision ticks are run by hand (the scheduler's own period is an hour).
 */
describe('operation deadlines (PostgreSQL, in-process bus, fake clock)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  let now = Date.now();

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000', MAX_OPERATION_WAIT: '200000' });
    jest.spyOn(runtime.app.get(Clock), 'now').mockImplementation(() => now);
    // Time is the test's: the real-time supervision timer stays off, ticks are run by hand.
    await runtime.app.get(SupervisionTimer).stop();
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    participant.autoAnswer = false;
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
    compositionId = await commissionAndPrime(runtime, threePhaseYaml);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  async function createInstance(properties: Record<string, unknown>): Promise<string> {
    const body = JSON.parse(threePhaseInstance.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as {
      name: string;
      elements: Record<string, { id: string; properties: Record<string, unknown> }>;
    };
    const elements = Object.fromEntries(
      Object.values(body.elements).map((element) => {
        const id = randomUUID();
        return [id, { ...element, id, properties: { ...element.properties, ...properties } }];
      }),
    );
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({ ...body, name: `${body.name}-${randomUUID().slice(0, 8)}`, elements })
      .expect(201);
    return (created.body as { instanceId: string }).instanceId;
  }

  async function instance(instanceId: string): Promise<Instance> {
    return (await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
      .body as Instance;
  }

  async function order(instanceId: string, body: Record<string, string>): Promise<void> {
    await runtime.http.put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).send(body).expect(202);
  }

  /** Answers the `index`-th phase message of an instance for all its elements, once it arrived. */
  async function answer(instanceId: string, index: number): Promise<void> {
    const message = await eventually(`phase message ${index}`, () => participant.phaseMessages(instanceId)[index]);
    await participant.ack(message, participant.myElements(message));
  }

  async function phaseOpened(instanceId: string, phase: number): Promise<void> {
    await eventually(`phase ${phase}`, async () => ((await instance(instanceId)).phase === phase ? true : undefined));
  }

  async function tickAt(at: number): Promise<void> {
    now = at;
    await runtime.app.get(SupervisionScheduler).tick();
  }

  it('restarts the deadline at every phase: three phases of 3.1 s each within a 5 s deployTimeoutMs', async () => {
    const instanceId = await createInstance({ deployTimeoutMs: 5000 });
    const start = now;
    await order(instanceId, { deployOrder: 'DEPLOY' });
    for (const phase of [0, 1]) {
      await tickAt(start + 3100 * (phase + 1));
      expect((await instance(instanceId)).stateChangeResult).toBe('NO_ERROR');
      await answer(instanceId, phase);
      await phaseOpened(instanceId, phase + 1);
    }
    await tickAt(start + 9300);
    expect((await instance(instanceId)).stateChangeResult).toBe('NO_ERROR');
    await answer(instanceId, 2);
    const done = await eventually('DEPLOYED', async () => {
      const current = await instance(instanceId);
      return current.deployState === 'DEPLOYED' ? current : undefined;
    });
    expect(done.stateChangeResult).toBe('NO_ERROR');
  });

  it('times out a phase that overruns, and the retry of the same order then completes', async () => {
    const instanceId = await createInstance({ deployTimeoutMs: 5000 });
    const start = now;
    await order(instanceId, { deployOrder: 'DEPLOY' });
    await tickAt(start + 3100);
    await answer(instanceId, 0);
    await phaseOpened(instanceId, 1);
    await tickAt(start + 3100 + 4999);
    expect((await instance(instanceId)).stateChangeResult).toBe('NO_ERROR');
    await tickAt(start + 3100 + 5001);
    expect((await instance(instanceId)).stateChangeResult).toBe('TIMEOUT');

    // The participant dropped its work on the TIMEOUT; the user re-issues DEPLOY, which redoes phases 1 and 2.
    const sent = participant.phaseMessages(instanceId).length;
    await order(instanceId, { deployOrder: 'DEPLOY' });
    await answer(instanceId, sent);
    await phaseOpened(instanceId, 2);
    await tickAt(now + 4000);
    expect((await instance(instanceId)).stateChangeResult).toBe('NO_ERROR');
    await answer(instanceId, sent + 1);
    const done = await eventually('DEPLOYED', async () => {
      const current = await instance(instanceId);
      return current.deployState === 'DEPLOYED' ? current : undefined;
    });
    expect(done.stateChangeResult).toBe('NO_ERROR');
  });

  it('after a TIMEOUT the opposite order reaches every element and completes', async () => {
    const instanceId = await createInstance({ deployTimeoutMs: 5000 });
    const start = now;
    await order(instanceId, { deployOrder: 'DEPLOY' });
    await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
    await tickAt(start + 5001);
    expect((await instance(instanceId)).stateChangeResult).toBe('TIMEOUT');
    const sent = participant.phaseMessages(instanceId).length;
    await order(instanceId, { deployOrder: 'UNDEPLOY' });
    for (let index = sent; index < sent + 3; index += 1) {
      await answer(instanceId, index);
    }
    const done = await eventually('UNDEPLOYED', async () => {
      const current = await instance(instanceId);
      return current.deployState === 'UNDEPLOYED' ? current : undefined;
    });
    expect(done.stateChangeResult).toBe('NO_ERROR');
  });

  it('bounds an unlock by the element property maxOperationWaitMs (ONAP AcmTimeoutUtils)', async () => {
    const instanceId = await createInstance({ maxOperationWaitMs: 2000 });
    await order(instanceId, { deployOrder: 'DEPLOY' });
    for (const index of [0, 1, 2]) {
      await answer(instanceId, index);
    }
    await eventually('DEPLOYED', async () =>
      (await instance(instanceId)).deployState === 'DEPLOYED' ? true : undefined,
    );
    const start = now;
    await order(instanceId, { lockOrder: 'UNLOCK' });
    await eventually('the unlock message', () => participant.phaseMessages(instanceId)[3]);
    await tickAt(start + 1999);
    expect((await instance(instanceId)).stateChangeResult).toBe('NO_ERROR');
    await tickAt(start + 2001);
    const timedOut = await instance(instanceId);
    expect(timedOut).toMatchObject({ deployState: 'DEPLOYED', lockState: 'UNLOCKING', stateChangeResult: 'TIMEOUT' });
  });

  it('flags a TIMEOUT while an ACK holds the instance, without a deadlock that would lose the ACK', async () => {
    const instanceId = await createInstance({ deployTimeoutMs: 5000 });
    const start = now;
    await order(instanceId, { deployOrder: 'DEPLOY' });
    await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
    // A second connection plays the ACK's transaction: instance row first, then its operation row.
    const ackTransaction = new Client({ connectionString: testDatabaseUrl() });
    await ackTransaction.connect();
    try {
      await ackTransaction.query(`SET search_path TO "${runtime.schema}"`);
      await ackTransaction.query('BEGIN');
      await ackTransaction.query('SELECT 1 FROM automation_composition WHERE instance_id = $1 FOR UPDATE', [
        instanceId,
      ]);
      const pid = ((await ackTransaction.query('SELECT pg_backend_pid() AS pid')).rows as Array<{ pid: number }>)[0]
        ?.pid;
      now = start + 5001;
      const tick = runtime.app.get(SupervisionScheduler).tick();
      const observer = new Client({ connectionString: testDatabaseUrl() });
      await observer.connect();
      try {
        await eventually('supervision to wait for the instance row', async () => {
          const { rows } = await observer.query(
            'SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
            [pid],
          );
          return rows.length > 0 ? true : undefined;
        });
      } finally {
        await observer.end();
      }
      await ackTransaction.query(`UPDATE acm_operation SET phase = phase WHERE target_id = $1 AND state = 'RUNNING'`, [
        instanceId,
      ]);
      await ackTransaction.query('COMMIT');
      await tick;
    } finally {
      await ackTransaction.end();
    }
    expect((await instance(instanceId)).stateChangeResult).toBe('TIMEOUT');
  });
});
