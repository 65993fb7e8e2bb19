import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, REPO_ROOT, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

/** Definition and instance files of one scenario, read through the suite's `read`. */
export interface ScenarioFiles {
  readonly definition: string;
  readonly instance: string;
}

export interface LifecycleFixtures {
  readonly label: string;
  readonly read: (path: string) => string;
  /** One element of SimAutomationCompositionElement 1.0.0. */
  readonly simple: ScenarioFiles;
  /** Elements of SimAutomationCompositionElement3 and 4, both served by one participant. */
  readonly multiple: ScenarioFiles;
  /** metadata.primeTimeoutMs 200 on a SimAutomationCompositionElement composition. */
  readonly timeout: { readonly definition: string };
  /** The project's own scenarios beyond ONAP's files: phase order, SIGKILL. */
  readonly extended: boolean;
}

/** Reads a file of this repository. */
export function repoFile(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}
const SIM_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c90';
const MULTI_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c91';
const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';

interface Instance {
  deployState: string;
  lockState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<
    string,
    { deployState: string; outProperties: Record<string, unknown>; definition: { name: string } }
  >;
}

/**
 * The runtime and two simulators as separate processes over the real Kafka broker and PostgreSQL,
 * driven only through REST. `npm test` runs it on the project's own fixtures; the conformance suite
 * runs it on ONAP's csit files.
 */
export function describeLifecycleOverKafka(fixtures: LifecycleFixtures): void {
  const fixture = fixtures.read;
  describe(`runtime + simulators as processes over Kafka and PostgreSQL (${fixtures.label})`, () => {
    const suffix = randomUUID().slice(0, 8);
    const schema = `e2e_${suffix}`;
    const topics = { op: `acm-e2e-op-${suffix}`, sync: `acm-e2e-sync-${suffix}` };
    let runtimeUrl = '';
    let simUrl = '';
    let runtime: ProductProcess;
    let simulator: ProductProcess;
    let multiSimulator: ProductProcess;

    const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
    const sim = (url: string): request.Agent => request.agent(url).auth('participantUser', 'zb!XztG34');

    /** The suite's runtime on `port`; `env` overrides (a short-period supervisor shares its database and group). */
    function suiteRuntime(name: string, port: number, env: Record<string, string> = {}): ProductProcess {
      return runtimeProcess(`${name}-${suffix}`, { port, schema, groupId: `acm-runtime-${suffix}`, topics, env });
    }

    function suiteSimulator(name: string, port: number, participantId: string, types: string): ProductProcess {
      return simulatorProcess(`${name}-${suffix}`, { port, participantId, types, topics });
    }

    beforeAll(async () => {
      const [runtimePort, simPort, multiPort] = await Promise.all([freePort(), freePort(), freePort()]);
      runtimeUrl = `http://127.0.0.1:${runtimePort}`;
      simUrl = `http://127.0.0.1:${simPort}`;
      runtime = suiteRuntime('runtime', runtimePort);
      runtime.start();
      await runtimeAnswering(api);
      simulator = suiteSimulator(
        'sim',
        simPort,
        SIM_PARTICIPANT,
        'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0',
      );
      multiSimulator = suiteSimulator(
        'sim-multi',
        multiPort,
        MULTI_PARTICIPANT,
        'org.onap.policy.clamp.acm.SimAutomationCompositionElement2:1.0.0,org.onap.policy.clamp.acm.SimAutomationCompositionElement3:1.0.0,org.onap.policy.clamp.acm.SimAutomationCompositionElement4:1.0.0',
      );
      simulator.start();
      multiSimulator.start();
      for (const id of [SIM_PARTICIPANT, MULTI_PARTICIPANT]) {
        await participantKnown(api, id);
      }
    }, 120_000);

    afterAll(async () => {
      await Promise.all([simulator?.stop(), multiSimulator?.stop()]);
      await runtime?.stop();
      await dropSchema(schema);
    });

    async function commission(path: string): Promise<string> {
      const response = await api()
        .post(`${API}/compositions`)
        .set('Content-Type', 'application/yaml')
        .send(fixture(path));
      expect(response.status).toBe(201);
      return (response.body as { compositionId: string }).compositionId;
    }

    async function definitionState(compositionId: string): Promise<{ state: string; stateChangeResult: string }> {
      return (await api().get(`${API}/compositions/${compositionId}`).expect(200)).body as {
        state: string;
        stateChangeResult: string;
      };
    }

    async function prime(compositionId: string, primeOrder: 'PRIME' | 'DEPRIME', expected: string): Promise<void> {
      await api().put(`${API}/compositions/${compositionId}`).send({ primeOrder }).expect(202);
      await eventually(`${primeOrder} → ${expected}`, async () =>
        (await definitionState(compositionId)).state === expected ? true : undefined,
      );
    }

    async function instantiate(compositionId: string, path: string): Promise<string> {
      const body = fixture(path).replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId);
      const response = await api()
        .post(`${API}/compositions/${compositionId}/instances`)
        .set('Content-Type', path.endsWith('.json') ? 'application/json' : 'application/yaml')
        .send(body);
      expect(response.status).toBe(201);
      return (response.body as { instanceId: string }).instanceId;
    }

    async function instance(compositionId: string, instanceId: string): Promise<Instance> {
      const current = await polledInstance(compositionId, instanceId);
      if (current === undefined) {
        throw new Error('GET instance answered 503');
      }
      return current;
    }

    /**
     * The instance as a poll sees it: a 503 (the database did not answer in time, as a loaded machine may make it) is
     * "not yet", as its Retry-After tells a client; any other refusal fails the poll.
     */
    async function polledInstance(compositionId: string, instanceId: string): Promise<Instance | undefined> {
      const response = await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`);
      if (response.status === 503) {
        return undefined;
      }
      if (response.status !== 200) {
        throw new Error(`GET instance answered ${response.status}: ${JSON.stringify(response.body)}`);
      }
      return response.body as Instance;
    }

    async function order(compositionId: string, instanceId: string, body: Record<string, string>): Promise<void> {
      await api().put(`${API}/compositions/${compositionId}/instances/${instanceId}`).send(body).expect(202);
    }

    async function until(
      compositionId: string,
      instanceId: string,
      deployState: string,
      lockState: string,
    ): Promise<Instance> {
      return eventually(`${deployState}/${lockState}`, async () => {
        const current = await polledInstance(compositionId, instanceId);
        return current?.deployState === deployState && current.lockState === lockState && current.phase === undefined
          ? current
          : undefined;
      });
    }

    async function gone(compositionId: string, instanceId: string): Promise<void> {
      await eventually('the instance to be deleted', async () => {
        const response = await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`);
        return response.status === 404 ? true : undefined;
      });
    }

    async function fullLifecycle(definitionPath: string, instancePath: string): Promise<void> {
      const compositionId = await commission(definitionPath);
      await prime(compositionId, 'PRIME', 'PRIMED');
      const instanceId = await instantiate(compositionId, instancePath);
      await order(compositionId, instanceId, { deployOrder: 'DEPLOY' });
      const deployed = await until(compositionId, instanceId, 'DEPLOYED', 'LOCKED');
      expect(Object.values(deployed.elements).every((element) => element.deployState === 'DEPLOYED')).toBe(true);
      await order(compositionId, instanceId, { lockOrder: 'UNLOCK' });
      await until(compositionId, instanceId, 'DEPLOYED', 'UNLOCKED');
      await order(compositionId, instanceId, { lockOrder: 'LOCK' });
      await until(compositionId, instanceId, 'DEPLOYED', 'LOCKED');
      await order(compositionId, instanceId, { deployOrder: 'UNDEPLOY' });
      await until(compositionId, instanceId, 'UNDEPLOYED', 'NONE');
      await api().delete(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(202);
      await gone(compositionId, instanceId);
      await prime(compositionId, 'DEPRIME', 'COMMISSIONED');
      await api().delete(`${API}/compositions/${compositionId}`).expect(200);
    }

    it('walks the "simple" composition through its whole lifecycle', async () => {
      await fullLifecycle(fixtures.simple.definition, fixtures.simple.instance);
    });

    it('walks the "multiple" composition (one participant, two element types) through its whole lifecycle', async () => {
      await fullLifecycle(fixtures.multiple.definition, fixtures.multiple.instance);
    });

    it('gives FAILED when the simulator fails a deploy, and a delayed undeploy is seen UNDEPLOYING', async () => {
      const compositionId = await commission(fixtures.simple.definition);
      await prime(compositionId, 'PRIME', 'PRIMED');
      const instanceId = await instantiate(compositionId, fixtures.simple.instance);
      try {
        await sim(simUrl).put(`${SIM_API}/parameters`).send({ deploySuccess: false }).expect(200);
        await order(compositionId, instanceId, { deployOrder: 'DEPLOY' });
        const failed = await eventually('FAILED', async () => {
          const current = await polledInstance(compositionId, instanceId);
          return current?.stateChangeResult === 'FAILED' ? current : undefined;
        });
        expect(failed.deployState).toBe('DEPLOYING');

        await sim(simUrl).put(`${SIM_API}/parameters`).send({ deploySuccess: true, undeployTimerMs: 3000 }).expect(200);
        await order(compositionId, instanceId, { deployOrder: 'DEPLOY' });
        await until(compositionId, instanceId, 'DEPLOYED', 'LOCKED');
        await order(compositionId, instanceId, { deployOrder: 'UNDEPLOY' });
        const undeploying = await instance(compositionId, instanceId);
        expect(undeploying.deployState).toBe('UNDEPLOYING');
        const done = await until(compositionId, instanceId, 'UNDEPLOYED', 'NONE');
        expect(Object.values(done.elements)[0]?.outProperties['InternalState']).toBe('UNDEPLOYED');
      } finally {
        await sim(simUrl).put(`${SIM_API}/parameters`).send({}).expect(200);
      }
      await api().delete(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(202);
      await gone(compositionId, instanceId);
    });

    it("gives TIMEOUT when priming takes longer than the definition's primeTimeoutMs", async () => {
      const compositionId = await commission(fixtures.timeout.definition);
      // The scan period is an hour, so the timeout check is asked for by a second, short-period runtime
      // sharing the database; supervision is replica-safe (SKIP LOCKED). It answers before the prime is ordered: a
      // supervisor still starting when the participant's late answer came (on a loaded machine) saw no TIMEOUT.
      try {
        const port = await freePort();
        const supervisor = suiteRuntime('supervisor', port, { HEART_BEAT: '100' });
        supervisor.start();
        try {
          await runtimeAnswering(() => request.agent(`http://127.0.0.1:${port}`).auth(USER, PASSWORD));
          await sim(simUrl).put(`${SIM_API}/parameters`).send({ primeTimerMs: 5000 }).expect(200);
          await api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
          // One read for both: TIMEOUT flagged while the prime is still running.
          await eventually('TIMEOUT while PRIMING', async () => {
            const definition = await definitionState(compositionId);
            return definition.stateChangeResult === 'TIMEOUT' && definition.state === 'PRIMING' ? true : undefined;
          });
        } finally {
          await supervisor.stop();
        }
        // ONAP keeps the flag only until the late answer: the prime still completes.
        await eventually('PRIMED after the late answer', async () =>
          (await definitionState(compositionId)).state === 'PRIMED' ? true : undefined,
        );
      } finally {
        await sim(simUrl).put(`${SIM_API}/parameters`).send({}).expect(200);
      }
    });

    if (!fixtures.extended) {
      return;
    }

    it('deploys a three-phase composition in phase order, with the scan interval set to an hour', async () => {
      const compositionId = await commission('tosca/examples/sim-three-phase.yaml');
      await prime(compositionId, 'PRIME', 'PRIMED');
      const instanceId = await instantiate(compositionId, 'tosca/examples/instances/sim-three-phase.json');
      await order(compositionId, instanceId, { deployOrder: 'DEPLOY' });
      await until(compositionId, instanceId, 'DEPLOYED', 'LOCKED');
      const history = (
        await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)
      ).body as { events: Array<{ event: string; detail: Record<string, unknown> }> };
      expect(history.events.filter((e) => e.event === 'PHASE_STARTED').map((e) => e.detail['phase'])).toEqual([
        0, 1, 2,
      ]);
      expect(history.events.filter((e) => e.event === 'ELEMENT_RESULT').map((e) => e.detail['phase'])).toEqual([
        0, 0, 1, 1, 2, 2,
      ]);
    });

    it('deploys in dependsOn order inside one phase over Kafka, and undeploys in the reverse order', async () => {
      const compositionId = await commission('tosca/examples/sim-dependencies.yaml');
      await prime(compositionId, 'PRIME', 'PRIMED');
      const instanceId = await instantiate(compositionId, 'tosca/examples/instances/sim-dependencies.json');
      const names = new Map(
        Object.entries((await instance(compositionId, instanceId)).elements).map(([id, element]) => [
          id,
          element.definition.name.replace('acm.example.deps.', ''),
        ]),
      );
      type Event = { event: string; operationId: string; at: number; detail: Record<string, unknown> };
      /** For the last operation: each dispatch's element names, and when each element's result was applied. */
      const dispatches = async (): Promise<{ sets: string[][]; order: string[] }> => {
        const history = (
          await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)
        ).body as { events: Event[] };
        const operationId = history.events.filter((e) => e.event === 'ORDERED').at(-1)!.operationId;
        const mine = history.events.filter((e) => e.operationId === operationId);
        return {
          sets: mine
            .filter((e) => e.event === 'PHASE_STARTED' || e.event === 'ELEMENTS_DISPATCHED')
            .map((e) => (e.detail['elementIds'] as string[]).map((id) => names.get(id) ?? id).sort()),
          // Dispatches and results interleaved, as the engine recorded them.
          order: mine.flatMap((e) =>
            e.event === 'ELEMENT_RESULT'
              ? [`done ${names.get(e.detail['elementId'] as string)}`]
              : e.event === 'PHASE_STARTED' || e.event === 'ELEMENTS_DISPATCHED'
                ? [
                    `go ${(e.detail['elementIds'] as string[])
                      .map((id) => names.get(id))
                      .sort()
                      .join('+')}`,
                  ]
                : [],
          ),
        };
      };
      try {
        // 300 ms per element, so a dispatch that did not wait for its dependency would be seen before its result.
        await sim(simUrl).put(`${SIM_API}/parameters`).send({ deployTimerMs: 300, undeployTimerMs: 300 }).expect(200);
        await order(compositionId, instanceId, { deployOrder: 'DEPLOY' });
        await until(compositionId, instanceId, 'DEPLOYED', 'LOCKED');
        const deploy = await dispatches();
        expect(deploy.sets).toEqual([['Database', 'Monitor'], ['Backend'], ['Frontend']]);
        expect(deploy.order.indexOf('go Backend')).toBeGreaterThan(deploy.order.indexOf('done Database'));
        expect(deploy.order.indexOf('go Frontend')).toBeGreaterThan(deploy.order.indexOf('done Backend'));

        await order(compositionId, instanceId, { deployOrder: 'UNDEPLOY' });
        await until(compositionId, instanceId, 'UNDEPLOYED', 'NONE');
        const undeploy = await dispatches();
        expect(undeploy.sets).toEqual([['Frontend', 'Monitor'], ['Backend'], ['Database']]);
        expect(undeploy.order.indexOf('go Backend')).toBeGreaterThan(undeploy.order.indexOf('done Frontend'));
        expect(undeploy.order.indexOf('go Database')).toBeGreaterThan(undeploy.order.indexOf('done Backend'));
      } finally {
        await sim(simUrl).put(`${SIM_API}/parameters`).send({}).expect(200);
      }
      // The simulator acted on each element once per order.
      const invocations = (await sim(simUrl).get(`${SIM_API}/invocations`).expect(200)).body as Array<{
        targetId: string;
        invocations: number;
      }>;
      const mine = invocations.filter((entry) => names.has(entry.targetId));
      // 4 elements × (deploy, undeploy), each in exactly one message, each run once.
      expect(mine).toHaveLength(8);
      expect(mine.every((entry) => entry.invocations === 1)).toBe(true);
    });

    it('runs a diamond written with TOSCA requirements in the order its plan announced, and back in reverse', async () => {
      const compositionId = await commission('tosca/examples/sim-diamond.yaml');
      await prime(compositionId, 'PRIME', 'PRIMED');
      const instanceId = await instantiate(compositionId, 'tosca/examples/instances/sim-diamond.json');
      const names = new Map(
        Object.entries((await instance(compositionId, instanceId)).elements).map(([id, element]) => [
          id,
          element.definition.name.replace('acm.example.diamond.', ''),
        ]),
      );
      const label = (ids: string[]): string =>
        ids
          .map((id) => names.get(id) ?? id)
          .sort()
          .join('+');
      type PlanStep = { kind: string; elements: Array<{ elementId: string }> };
      const plan = async (order: string): Promise<string[]> => {
        const answer = (
          await api()
            .get(`${API}/compositions/${compositionId}/instances/${instanceId}/plan?order=${order}`)
            .expect(200)
        ).body as { steps: PlanStep[] };
        return answer.steps.map((step) => label(step.elements.map((element) => element.elementId)));
      };
      type Event = { event: string; operationId: string; detail: Record<string, unknown> };
      /** For the last operation, dispatches (`go A+B`) and results (`done A`) in the order the engine recorded. */
      const timeline = async (): Promise<string[]> => {
        const history = (
          await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)
        ).body as { events: Event[] };
        const operationId = history.events.filter((e) => e.event === 'ORDERED').at(-1)!.operationId;
        return history.events
          .filter((e) => e.operationId === operationId)
          .flatMap((e) =>
            e.event === 'ELEMENT_RESULT'
              ? [`done ${names.get(e.detail['elementId'] as string)}`]
              : e.event === 'PHASE_STARTED' || e.event === 'ELEMENTS_DISPATCHED'
                ? [`go ${label(e.detail['elementIds'] as string[])}`]
                : [],
          );
      };
      const dispatchesOf = (events: string[]): string[] =>
        events.filter((e) => e.startsWith('go ')).map((e) => e.slice(3));
      try {
        await sim(simUrl).put(`${SIM_API}/parameters`).send({ deployTimerMs: 300, undeployTimerMs: 300 }).expect(200);
        const deployPlan = await plan('DEPLOY');
        expect(deployPlan).toEqual(['Database', 'Api+Worker', 'Frontend']);
        await order(compositionId, instanceId, { deployOrder: 'DEPLOY' });
        await until(compositionId, instanceId, 'DEPLOYED', 'LOCKED');
        const deploy = await timeline();
        // Api and Worker leave together in one message once Database is done; Frontend only after both.
        expect(dispatchesOf(deploy)).toEqual(deployPlan);
        expect(deploy.indexOf('go Api+Worker')).toBeGreaterThan(deploy.indexOf('done Database'));
        expect(deploy.indexOf('go Frontend')).toBeGreaterThan(deploy.indexOf('done Api'));
        expect(deploy.indexOf('go Frontend')).toBeGreaterThan(deploy.indexOf('done Worker'));

        const undeployPlan = await plan('UNDEPLOY');
        expect(undeployPlan).toEqual(['Frontend', 'Api+Worker', 'Database']);
        await order(compositionId, instanceId, { deployOrder: 'UNDEPLOY' });
        await until(compositionId, instanceId, 'UNDEPLOYED', 'NONE');
        const undeploy = await timeline();
        expect(dispatchesOf(undeploy)).toEqual(undeployPlan);
        expect(undeploy.indexOf('go Api+Worker')).toBeGreaterThan(undeploy.indexOf('done Frontend'));
        expect(undeploy.indexOf('go Database')).toBeGreaterThan(undeploy.indexOf('done Api'));
        expect(undeploy.indexOf('go Database')).toBeGreaterThan(undeploy.indexOf('done Worker'));
      } finally {
        await sim(simUrl).put(`${SIM_API}/parameters`).send({}).expect(200);
      }
    });

    it('finishes a deploy after the runtime is killed with SIGKILL mid-phase, running no handler twice', async () => {
      const compositionId = await commission('tosca/examples/sim-three-phase.yaml');
      await prime(compositionId, 'PRIME', 'PRIMED');
      const body = fixture('tosca/examples/instances/sim-three-phase.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
        .replace(/5e1f0000-0000-4000-8000-0000000020/g, '5e1f0000-0000-4000-8000-0000000029')
        .replace('"SimThreePhaseInstance"', '"SimThreePhaseKilled"');
      const created = await api()
        .post(`${API}/compositions/${compositionId}/instances`)
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(201);
      const instanceId = (created.body as { instanceId: string }).instanceId;
      try {
        await sim(simUrl).put(`${SIM_API}/parameters`).send({ deployTimerMs: 1500 }).expect(200);
        await order(compositionId, instanceId, { deployOrder: 'DEPLOY' });
        await eventually('phase 1 to open', async () =>
          (await polledInstance(compositionId, instanceId))?.phase === 1 ? true : undefined,
        );
        await runtime.stop('SIGKILL');
        runtime.start();
        await runtimeAnswering(api);
        await until(compositionId, instanceId, 'DEPLOYED', 'LOCKED');
      } finally {
        await sim(simUrl).put(`${SIM_API}/parameters`).send({}).expect(200);
      }
      const invocations = (await sim(simUrl).get(`${SIM_API}/invocations`).expect(200)).body as Array<{
        messageId: string;
        targetId: string;
        invocations: number;
      }>;
      const mine = invocations.filter((entry) => entry.targetId.startsWith('5e1f0000-0000-4000-8000-0000000029'));
      expect(mine.length).toBeGreaterThanOrEqual(6);
      expect(mine.every((entry) => entry.invocations === 1)).toBe(true);
      expect(new Set(mine.map((entry) => entry.targetId)).size).toBe(6);
      expect(mine).toHaveLength(6);
    });

    it('keeps a deploy going when the participant replica doing it is killed; the survivor matches the runtime', async () => {
      const replicaPort = await freePort();
      const replicaUrl = `http://127.0.0.1:${replicaPort}`;
      const replica = suiteSimulator(
        'sim-replica',
        replicaPort,
        SIM_PARTICIPANT,
        'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0',
      );
      replica.start();
      await eventually(
        'two replicas of the simulator participant',
        async () => {
          const info = (await api().get(`${API}/participants/${SIM_PARTICIPANT}`).expect(200)).body as {
            participant: { replicas: Record<string, { participantState: string }> };
          };
          const online = Object.values(info.participant.replicas).filter((r) => r.participantState === 'ON_LINE');
          return online.length >= 2 ? true : undefined;
        },
        1500,
      );
      const compositionId = await commission('tosca/examples/sim-three-phase.yaml');
      await prime(compositionId, 'PRIME', 'PRIMED');
      const body = fixture('tosca/examples/instances/sim-three-phase.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
        .replace(/5e1f0000-0000-4000-8000-0000000020/g, '5e1f0000-0000-4000-8000-0000000039')
        .replace('"SimThreePhaseInstance"', '"SimThreePhaseReplicas"');
      const created = await api()
        .post(`${API}/compositions/${compositionId}/instances`)
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(201);
      const instanceId = (created.body as { instanceId: string }).instanceId;
      const replicas = [
        { url: simUrl, process: simulator, main: true },
        { url: replicaUrl, process: replica, main: false },
      ];
      let supervisor: ProductProcess | null = null;
      let killed: (typeof replicas)[number] | undefined;
      try {
        for (const { url } of replicas) {
          await sim(url).put(`${SIM_API}/parameters`).send({ deployTimerMs: 2000 }).expect(200);
        }
        await order(compositionId, instanceId, { deployOrder: 'DEPLOY' });
        const working = async (url: string): Promise<boolean> => {
          const log = (await sim(url).get(`${SIM_API}/invocations`).expect(200)).body as Array<{ targetId: string }>;
          return log.some((entry) => entry.targetId.startsWith('5e1f0000-0000-4000-8000-0000000039'));
        };
        killed = await eventually('a replica to take the deploy', async () => {
          for (const candidate of replicas) {
            if (await working(candidate.url)) {
              return candidate;
            }
          }
          return undefined;
        });
        await killed.process.stop('SIGKILL');
        const survivor = replicas.find((candidate) => candidate !== killed)!;
        await sim(survivor.url).put(`${SIM_API}/parameters`).send({ deployTimerMs: 0 }).expect(200);
        // Supervision notices the silent replica and sends the open phase again; this runtime shares the database.
        const port = await freePort();
        supervisor = suiteRuntime('supervisor-replicas', port, { HEART_BEAT: '200', MAX_STATUS_WAIT: '3000' });
        supervisor.start();
        const done = await eventually(
          'DEPLOYED without the killed replica',
          async () => {
            const current = await polledInstance(compositionId, instanceId);
            return current?.deployState === 'DEPLOYED' && current.phase === undefined ? current : undefined;
          },
          3000,
        );
        const survivorView = (await sim(survivor.url).get(`${SIM_API}/instances/${instanceId}`).expect(200)).body as {
          elements: Record<string, { deployState: string }>;
        };
        for (const [elementId, element] of Object.entries(done.elements)) {
          expect(survivorView.elements[elementId]?.deployState).toBe(element.deployState);
        }
        const history = (
          await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)
        ).body as { events: Array<{ event: string }> };
        expect(history.events.some((event) => event.event === 'PHASE_RESENT')).toBe(true);
      } finally {
        await supervisor?.stop();
        // Whichever replica survived, the extra one goes; the suite's own simulator must run on for the others.
        await replica.stop();
        if (killed?.main) {
          simulator.start();
        }
        await sim(simUrl)
          .put(`${SIM_API}/parameters`)
          .send({})
          .catch(() => undefined);
      }
    }, 120_000);
  });
}
