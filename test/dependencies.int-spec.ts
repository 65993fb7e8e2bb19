import { randomUUID } from 'node:crypto';
import parseDot from 'dotparser';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, commissionAndPrime, historyOf, instanceOf, readRepoFile } from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const definitionYaml = readRepoFile('tosca/examples/sim-dependencies.yaml');
const instanceJson = readRepoFile('tosca/examples/instances/sim-dependencies.json');

interface Instance {
  deployState: string;
  lockState: string;
  phase?: number;
  elements: Record<string, { deployState: string; definition: { name: string } }>;
}

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
  operationId: string;
}

/**
 * `dependsOn` inside one start phase (tosca/examples/sim-dependencies.yaml: Backend -> Database, Frontend ->
 * Backend and Database, Monitor alone), driven by ACKs through the real store: each element is dispatched
 * only once everything it waits for is done, and the reverse holds going down.
 */
describe('dependsOn ordering (PostgreSQL, in-process bus, scripted participant)', () => {
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

  const instance = (instanceId: string): Promise<Instance> => instanceOf(runtime, compositionId, instanceId);

  async function until(instanceId: string, deployState: string): Promise<Instance> {
    return eventually(deployState, async () => {
      const current = await instance(instanceId);
      return current.deployState === deployState && current.phase === undefined ? current : undefined;
    });
  }

  /** Per dispatch of one operation, the short names of the elements it set going, in history order. */
  async function dispatches(instanceId: string, names: Map<string, string>): Promise<string[][]> {
    const events = await historyOf<HistoryEvent>(runtime, compositionId, instanceId);
    const operationId = events.filter((event) => event.event === 'ORDERED').at(-1)!.operationId;
    return events
      .filter(
        (event) => event.operationId === operationId && ['PHASE_STARTED', 'ELEMENTS_DISPATCHED'].includes(event.event),
      )
      .map((event) => (event.detail['elementIds'] as string[]).map((id) => names.get(id) ?? id).sort());
  }

  it('deploys Database and Monitor, then Backend, then Frontend; undeploys in the reverse order', async () => {
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send(JSON.parse(instanceJson.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)))
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const names = new Map(
      Object.entries((await instance(instanceId)).elements).map(([id, element]) => [
        id,
        element.definition.name.replace('acm.example.deps.', ''),
      ]),
    );

    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    await until(instanceId, 'DEPLOYED');
    expect(await dispatches(instanceId, names)).toEqual([['Database', 'Monitor'], ['Backend'], ['Frontend']]);
    const deployed = participant.handled
      .filter((work) => work.order === 'DEPLOY' && names.has(work.elementId))
      .map((work) => names.get(work.elementId));
    // Each element acted on exactly once, and never before what it depends on.
    expect([...deployed].sort()).toEqual(['Backend', 'Database', 'Frontend', 'Monitor']);
    expect(deployed.indexOf('Backend')).toBeGreaterThan(deployed.indexOf('Database'));
    expect(deployed.indexOf('Frontend')).toBeGreaterThan(deployed.indexOf('Backend'));

    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'UNDEPLOY' })
      .expect(202);
    await until(instanceId, 'UNDEPLOYED');
    expect(await dispatches(instanceId, names)).toEqual([['Frontend', 'Monitor'], ['Backend'], ['Database']]);
    const undeployed = participant.handled
      .filter((work) => work.order === 'UNDEPLOY' && names.has(work.elementId))
      .map((work) => names.get(work.elementId));
    expect([...undeployed].sort()).toEqual(['Backend', 'Database', 'Frontend', 'Monitor']);
    expect(undeployed.indexOf('Backend')).toBeGreaterThan(undeployed.indexOf('Frontend'));
    expect(undeployed.indexOf('Database')).toBeGreaterThan(undeployed.indexOf('Backend'));
  });

  describe('graph export', () => {
    const short = (name: string): string => name.replace('acm.example.deps.', '');

    it('answers the composition graph as JSON, DOT and Mermaid', async () => {
      const json = await runtime.http.get(`${BASE}/compositions/${compositionId}/graph`).expect(200);
      const graph = json.body as {
        nodes: Array<{ id: string; startPhase: number }>;
        edges: Array<{ from: string; to: string }>;
      };
      // Stored as JSONB, the template's key order is PostgreSQL's, not the document's.
      expect(graph.nodes.map((node) => short(node.id)).sort()).toEqual(['Backend', 'Database', 'Frontend', 'Monitor']);
      expect(graph.edges.map((edge) => `${short(edge.from)}->${short(edge.to)}`).sort()).toEqual([
        'Backend->Frontend',
        'Database->Backend',
        'Database->Frontend',
      ]);

      const dot = await runtime.http.get(`${BASE}/compositions/${compositionId}/graph?format=dot`).expect(200);
      expect(dot.headers['content-type']).toMatch(/^text\/vnd\.graphviz/);
      const [parsed] = parseDot(dot.text);
      expect(parsed?.type).toBe('digraph');

      const mermaid = await runtime.http.get(`${BASE}/compositions/${compositionId}/graph?format=mermaid`).expect(200);
      expect(mermaid.headers['content-type']).toMatch(/^text\/vnd\.mermaid/);
      expect(mermaid.text.startsWith('flowchart LR\n')).toBe(true);
    });

    it('colours an instance graph with each element’s state', async () => {
      const created = await runtime.http
        .post(`${BASE}/compositions/${compositionId}/instances`)
        .send({
          ...(JSON.parse(instanceJson.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as Record<string, unknown>),
          name: `graph-${randomUUID().slice(0, 8)}`,
          elements: Object.fromEntries(
            Object.values((JSON.parse(instanceJson) as { elements: Record<string, { id: string }> }).elements).map(
              (element) => {
                const id = randomUUID();
                return [id, { ...element, id }];
              },
            ),
          ),
        })
        .expect(201);
      const instanceId = (created.body as { instanceId: string }).instanceId;
      const response = await runtime.http
        .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/graph`)
        .expect(200);
      const graph = response.body as { nodes: Array<{ state: string }>; edges: unknown[] };
      expect(graph.nodes.map((node) => node.state)).toEqual(Array(4).fill('UNDEPLOYED/NONE'));
      expect(graph.edges).toHaveLength(3);
    });

    it('refuses an unknown format naming the parameter, and an unknown composition with 404', async () => {
      const refused = await runtime.http.get(`${BASE}/compositions/${compositionId}/graph?format=svg`).expect(400);
      expect((refused.body as { errorDetails: string }).errorDetails).toBe('format: must be one of json, dot, mermaid');
      await runtime.http.get(`${BASE}/compositions/${randomUUID()}/graph`).expect(404);
      await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${randomUUID()}/graph`).expect(404);
    });
  });
});
