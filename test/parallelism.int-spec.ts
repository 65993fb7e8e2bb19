import { randomUUID } from 'node:crypto';
import { OperationSessions } from '@acm/domain';
import { RUNTIME_CONFIG } from '../apps/runtime-acm/src/config/runtime.config';
import type { RuntimeConfig } from '../apps/runtime-acm/src/config/runtime.config';
import { OperationSteps } from '../apps/runtime-acm/src/engine/operation-steps';
import { CommitNudge, ParallelSlots } from '../apps/runtime-acm/src/engine/parallel-slots';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, commissionAndPrime } from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import type { PhaseMessage } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const definitionYaml = readRepoFile('tosca/examples/sim-dependencies.yaml');
const instanceJson = readRepoFile('tosca/examples/instances/sim-dependencies.json');

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
  operationId: string;
}

/**
 * maxParallelElements (OpenTofu's -parallelism) through the real store: at most that many elements of an operation
 * are in flight, the rest wait their turn in id order, dependencies still hold; a value that is not a positive
 * integer is refused before anything is written.
 */
describe('parallelism limits (PostgreSQL, in-process bus, scripted participant)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }));
    compositionId = await commissionAndPrime(runtime, definitionYaml);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  function body(metadata: Record<string, unknown>): Record<string, unknown> {
    const parsed = JSON.parse(instanceJson.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as {
      name: string;
      elements: Record<string, { id: string }>;
    };
    const elements = Object.fromEntries(
      Object.values(parsed.elements).map((element) => {
        const id = randomUUID();
        return [id, { ...element, id }];
      }),
    );
    return { ...parsed, name: `${parsed.name}-${randomUUID().slice(0, 8)}`, elements, metadata };
  }

  it('refuses a maxParallelElements that is not a positive integer, naming the field and the rule', async () => {
    for (const value of [0, -2, 1.5, 'three']) {
      const refused = await runtime.http
        .post(`${BASE}/compositions/${compositionId}/instances`)
        .send(body({ maxParallelElements: value }))
        .expect(400);
      expect(refused.body.errorDetails).toContain('metadata.maxParallelElements: must be a positive integer');
    }
    const template = definitionYaml.replace(
      /^name: .*$/m,
      (line) => `${line}-parallel\nmetadata:\n  maxParallelElements: "2"`,
    );
    const commissioned = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(template)
      .expect(400);
    expect(commissioned.body.errorDetails).toContain('maxParallelElements must be a positive integer');
    expect(commissioned.body.errorDetails).toContain('metadata.maxParallelElements');
  });

  it('with maxParallelElements 1 sends one element at a time, dependencies first, then undeploys in reverse', async () => {
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send(body({ maxParallelElements: 1 }))
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const read = async (): Promise<{
      deployState: string;
      phase?: number;
      elements: Record<string, { definition: { name: string } }>;
    }> => (await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200)).body;
    const names = new Map(
      Object.entries((await read()).elements).map(([id, element]) => [
        id,
        element.definition.name.replace('acm.example.deps.', ''),
      ]),
    );
    const dispatched = async (): Promise<string[][]> => {
      const history = await runtime.http
        .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`)
        .expect(200);
      const events = (history.body as { events: HistoryEvent[] }).events;
      const operationId = events.filter((event) => event.event === 'ORDERED').at(-1)!.operationId;
      return events
        .filter(
          (event) =>
            event.operationId === operationId && ['PHASE_STARTED', 'ELEMENTS_DISPATCHED'].includes(event.event),
        )
        .map((event) => (event.detail['elementIds'] as string[]).map((id) => names.get(id) ?? id));
    };
    const until = (deployState: string): Promise<unknown> =>
      eventually(deployState, async () => {
        const current = await read();
        return current.deployState === deployState && current.phase === undefined ? current : undefined;
      });

    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    await until('DEPLOYED');
    const up = await dispatched();
    expect(up.every((group) => group.length === 1)).toBe(true);
    const upOrder = up.flat();
    expect([...upOrder].sort()).toEqual(['Backend', 'Database', 'Frontend', 'Monitor']);
    expect(upOrder.indexOf('Backend')).toBeGreaterThan(upOrder.indexOf('Database'));
    expect(upOrder.indexOf('Frontend')).toBeGreaterThan(upOrder.indexOf('Backend'));

    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'UNDEPLOY' })
      .expect(202);
    await until('UNDEPLOYED');
    const down = await dispatched();
    expect(down.every((group) => group.length === 1)).toBe(true);
    const downOrder = down.flat();
    expect(downOrder).toHaveLength(4);
    expect(downOrder.indexOf('Backend')).toBeGreaterThan(downOrder.indexOf('Frontend'));
    expect(downOrder.indexOf('Database')).toBeGreaterThan(downOrder.indexOf('Backend'));
  });
});

/**
 * MAX_PARALLEL_ELEMENTS through the real store: at most that many elements in flight across every running operation,
 * with the runtime's own post-commit filler and two more fillers (as two more replicas on the database would run
 * them) racing for the slots lock while ACKs of both instances arrive together.
 */
describe('runtime-wide parallelism limit (PostgreSQL, in-process bus, scripted participant)', () => {
  const LIMIT = 2;
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant(
      { HEART_BEAT: '3600000', MAX_PARALLEL_ELEMENTS: String(LIMIT) },
      { autoAnswer: false },
    ));
    compositionId = await commissionAndPrime(runtime, definitionYaml);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  async function createInstance(): Promise<string> {
    const parsed = JSON.parse(instanceJson.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as {
      name: string;
      elements: Record<string, { id: string }>;
    };
    const elements = Object.fromEntries(
      Object.values(parsed.elements).map((element) => {
        const id = randomUUID();
        return [id, { ...element, id }];
      }),
    );
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({ ...parsed, name: `${parsed.name}-${randomUUID().slice(0, 8)}`, elements })
      .expect(201);
    return (created.body as { instanceId: string }).instanceId;
  }

  const deployStateOf = async (instanceId: string): Promise<string> =>
    (
      (await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200)).body as {
        deployState: string;
      }
    ).deployState;

  it('never has more than MAX_PARALLEL_ELEMENTS in flight across two instances, and deploys both', async () => {
    const config = runtime.app.get<RuntimeConfig>(RUNTIME_CONFIG);
    const fillers = [1, 2].map(
      () =>
        new ParallelSlots(
          config,
          runtime.app.get(OperationSessions),
          runtime.app.get(OperationSteps),
          new CommitNudge(),
        ),
    );
    const instances = [await createInstance(), await createInstance()];
    for (const instanceId of instances) {
      await runtime.http
        .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
        .send({ deployOrder: 'DEPLOY' })
        .expect(202);
    }
    const answered = new Set<string>();
    let mostHeld = 0;
    const held = (): Array<{ message: PhaseMessage; elementId: string }> =>
      instances.flatMap((instanceId) =>
        participant
          .phaseMessages(instanceId)
          .flatMap((message) => participant.myElements(message).map((elementId) => ({ message, elementId })))
          .filter(({ message, elementId }) => !answered.has(`${message.messageId}/${elementId}`)),
      );
    for (;;) {
      const states = await Promise.all(instances.map(deployStateOf));
      if (states.every((state) => state === 'DEPLOYED')) {
        break;
      }
      // Wait for what the runtime sent next (something is always in flight until both are deployed).
      const work = await eventually('elements in flight', () => {
        const now = held();
        return now.length > 0 ? now : undefined;
      });
      mostHeld = Math.max(mostHeld, work.length);
      expect(work.length).toBeLessThanOrEqual(LIMIT);
      for (const { message, elementId } of work) {
        answered.add(`${message.messageId}/${elementId}`);
      }
      // Every held element answered at once, while two more fillers race the runtime's own for the freed slots.
      await Promise.all([
        ...work.map(({ message, elementId }) => participant.ack(message, [elementId])),
        ...fillers.map((filler) => filler.fill()),
      ]);
      await Promise.all(fillers.map((filler) => filler.fill()));
      expect(held().length).toBeLessThanOrEqual(LIMIT);
      await eventually('the answers to be applied', async () => {
        const states = await Promise.all(instances.map(deployStateOf));
        return held().length > 0 || states.every((state) => state === 'DEPLOYED') ? true : undefined;
      });
    }
    expect(mostHeld).toBe(LIMIT);
    expect(answered.size).toBe(8);
  });
});
