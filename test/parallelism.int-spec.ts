import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, startRuntime, commissionAndPrime, participantRegistered } from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
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
    runtime = await startRuntime({ HEART_BEAT: '3600000' });
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
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
