import { randomUUID } from 'node:crypto';
import parseDot from 'dotparser';
import { load } from 'js-yaml';
import { mermaidFlowchartProblems } from './support/mermaid-flowchart';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, commissionAndPrime, readRepoFile } from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const definitionYaml = readRepoFile('tosca/examples/sim-diamond.yaml');
const instanceJson = readRepoFile('tosca/examples/instances/sim-diamond.json');
const PREFIX = 'acm.example.diamond.';

interface PlanStep {
  kind: string;
  phase: number;
  afterPhase: number | null;
  elements: Array<{ elementId: string; name: string; participantId: string | null; waitsFor: string[] }>;
  participants: string[];
}

interface Plan {
  order: string;
  walk: string;
  runsOperation: boolean;
  target: { deployState: string; lockState: string } | null;
  steps: PlanStep[];
}

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
  operationId: string;
}

/**
 * The diamond of tosca/examples/sim-diamond.yaml (Database -> {Api, Worker} -> Frontend, one start phase, written
 * with TOSCA DependsOn requirements) through the real store: the plan endpoint answers the steps, and the order
 * then runs exactly those steps.
 */
describe('plan before apply, DependsOn requirements, instance graph (PostgreSQL, in-process bus)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  let instanceId: string;
  const short = (name: string): string => name.replace(PREFIX, '');
  let names: Map<string, string>;

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }));
    compositionId = await commissionAndPrime(runtime, definitionYaml);
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send(JSON.parse(instanceJson.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)))
      .expect(201);
    instanceId = (created.body as { instanceId: string }).instanceId;
    const elements = (
      await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200)
    ).body as { elements: Record<string, { definition: { name: string } }> };
    names = new Map(Object.entries(elements.elements).map(([id, element]) => [id, short(element.definition.name)]));
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  const planUrl = (query: string): string =>
    `${BASE}/compositions/${compositionId}/instances/${instanceId}/plan${query}`;

  async function plan(order: string): Promise<Plan> {
    return (await runtime.http.get(planUrl(`?order=${order}`)).expect(200)).body as Plan;
  }

  /** Each step (or history dispatch) as its element names, sorted. */
  const stepSets = (steps: PlanStep[]): string[][] =>
    steps.map((step) => step.elements.map((element) => short(element.name)).sort());

  async function dispatches(): Promise<{ kinds: string[]; sets: string[][] }> {
    const history = await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`)
      .expect(200);
    const events = (history.body as { events: HistoryEvent[] }).events;
    const operationId = events.filter((event) => event.event === 'ORDERED').at(-1)!.operationId;
    const mine = events.filter(
      (event) => event.operationId === operationId && ['PHASE_STARTED', 'ELEMENTS_DISPATCHED'].includes(event.event),
    );
    return {
      kinds: mine.map((event) => event.event),
      sets: mine.map((event) => (event.detail['elementIds'] as string[]).map((id) => names.get(id) ?? id).sort()),
    };
  }

  async function until(deployState: string): Promise<void> {
    await eventually(deployState, async () => {
      const got = await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200);
      const body = got.body as { deployState: string; phase?: number };
      return body.deployState === deployState && body.phase === undefined ? true : undefined;
    });
  }

  it('commissions requirements as dependency edges of the composition graph, valid DOT and Mermaid', async () => {
    const graph = (await runtime.http.get(`${BASE}/compositions/${compositionId}/graph`).expect(200)).body as {
      edges: Array<{ from: string; to: string }>;
    };
    expect(graph.edges.map((edge) => `${short(edge.from)}->${short(edge.to)}`).sort()).toEqual([
      'Api->Frontend',
      'Database->Api',
      'Database->Worker',
      'Worker->Frontend',
    ]);
    const dot = await runtime.http.get(`${BASE}/compositions/${compositionId}/graph?format=dot`).expect(200);
    const [parsed] = parseDot(dot.text);
    expect(parsed?.type).toBe('digraph');
    const mermaid = await runtime.http.get(`${BASE}/compositions/${compositionId}/graph?format=mermaid`).expect(200);
    expect(mermaidFlowchartProblems(mermaid.text)).toEqual([]);
  });

  it('refuses requirements naming an unknown element, a cycle and a later phase, each at its path', async () => {
    const template = load(definitionYaml) as {
      name: string;
      topology_template: {
        node_templates: Record<string, { properties: Record<string, unknown>; requirements?: unknown }>;
      };
    };
    const templates = template.topology_template.node_templates;
    template.name = 'acm.example.SimDiamondBroken';
    templates[`${PREFIX}Api`]!.requirements = [{ dependency: 'acm.example.Ghost' }];
    templates[`${PREFIX}Database`]!.requirements = [{ dependency: `${PREFIX}Frontend` }];
    templates[`${PREFIX}Frontend`]!.properties['startPhase'] = 0;
    templates[`${PREFIX}Worker`]!.requirements = [
      { database: { node: `${PREFIX}Database`, relationship: 'tosca.relationships.DependsOn' } },
      { later: { node: `${PREFIX}Later`, relationship: 'tosca.relationships.DependsOn' } },
    ];
    templates[`${PREFIX}Later`] = {
      ...templates[`${PREFIX}Database`]!,
      requirements: undefined,
      properties: { provider: 'acm-runtime', startPhase: 1 },
    };
    const refused = await runtime.http.post(`${BASE}/compositions`).send(template).expect(400);
    const details = (refused.body as { errorDetails: string }).errorDetails;

    expect(details).toContain(`node_templates["${PREFIX}Api"].requirements[0].dependency`);
    expect(details).toContain('depends on acm.example.Ghost, which is not an element node template');
    expect(details).toContain(`node_templates["${PREFIX}Worker"].requirements[1].later.node`);
    expect(details).toContain('which starts later (startPhase 1)');
    expect(details).toContain(`node_templates["${PREFIX}Database"].requirements[0].dependency`);
    expect(details).toContain(
      `elements depend on each other in a loop: ${PREFIX}Database -> ${PREFIX}Frontend -> ${PREFIX}Worker -> ${PREFIX}Database`,
    );
  });

  it('plans the deploy step by step, runs exactly those steps, then plans and runs the undeploy in reverse', async () => {
    const deployPlan = await plan('DEPLOY');
    expect(deployPlan).toMatchObject({ order: 'DEPLOY', walk: 'startPhase', runsOperation: true });
    expect(deployPlan.target).toEqual({ deployState: 'DEPLOYED', lockState: 'LOCKED' });
    expect(stepSets(deployPlan.steps)).toEqual([['Database'], ['Api', 'Worker'], ['Frontend']]);
    expect(deployPlan.steps.map((step) => step.kind)).toEqual([
      'PHASE_STARTED',
      'ELEMENTS_DISPATCHED',
      'ELEMENTS_DISPATCHED',
    ]);
    const frontend = deployPlan.steps[2]!.elements[0]!;
    expect(frontend.waitsFor.map((id) => names.get(id)).sort()).toEqual(['Api', 'Worker']);
    expect(deployPlan.steps.every((step) => step.participants.join() === participant.participantId)).toBe(true);

    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    await until('DEPLOYED');
    expect(await dispatches()).toEqual({
      kinds: deployPlan.steps.map((step) => step.kind),
      sets: stepSets(deployPlan.steps),
    });

    const graph = (
      await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/graph`).expect(200)
    ).body as { nodes: Array<{ state: string }> };
    expect(graph.nodes.map((node) => node.state)).toEqual(Array(4).fill('DEPLOYED/LOCKED'));
    const mermaid = await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/graph?format=mermaid`)
      .expect(200);
    expect(mermaidFlowchartProblems(mermaid.text)).toEqual([]);
    expect(mermaid.text).toContain('DEPLOYED/LOCKED');
    const dot = await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/graph?format=dot`)
      .expect(200);
    expect(parseDot(dot.text)[0]?.type).toBe('digraph');

    const undeployPlan = await plan('UNDEPLOY');
    expect(stepSets(undeployPlan.steps)).toEqual([['Frontend'], ['Api', 'Worker'], ['Database']]);
    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'UNDEPLOY' })
      .expect(202);
    await until('UNDEPLOYED');
    expect((await dispatches()).sets).toEqual(stepSets(undeployPlan.steps));
  });

  it('answers in YAML when asked, and plans an update of an undeployed instance as no operation', async () => {
    const yaml = await runtime.http.get(planUrl('?order=DELETE')).set('Accept', 'application/yaml').expect(200);
    expect(yaml.headers['content-type']).toMatch(/^application\/yaml/);
    const parsed = load(yaml.text) as Plan;
    expect(stepSets(parsed.steps)).toEqual([['Frontend'], ['Api', 'Worker'], ['Database']]);

    expect(await plan('UPDATE')).toMatchObject({ runsOperation: false, steps: [] });
  });

  it('refuses an order the state does not allow with the message the order itself gets', async () => {
    const put = await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ lockOrder: 'UNLOCK', deployOrder: 'NONE', subOrder: 'NONE' })
      .expect(400);
    const planned = await runtime.http.get(planUrl('?order=UNLOCK')).expect(400);

    expect(planned.body).toEqual(put.body);
    expect((planned.body as { errorDetails: string }).errorDetails).toMatch(/^Not valid order AcInstanceStateUpdate/);
  });

  it.each([
    [
      '',
      'order: required, one of DEPLOY, UNDEPLOY, LOCK, UNLOCK, DELETE, UPDATE, MIGRATE, MIGRATE_PRECHECK, PREPARE, REVIEW',
    ],
    [
      '?order=DANCE',
      'order: must be one of DEPLOY, UNDEPLOY, LOCK, UNLOCK, DELETE, UPDATE, MIGRATE, MIGRATE_PRECHECK, PREPARE, REVIEW',
    ],
    ['?order=MIGRATE', 'compositionTargetId: required for order MIGRATE, the composition to migrate to'],
    ['?order=MIGRATE&compositionTargetId=nope', 'compositionTargetId: must be a UUID, got "nope"'],
    [
      `?order=DEPLOY&compositionTargetId=${randomUUID()}`,
      'compositionTargetId: only for orders MIGRATE, MIGRATE_PRECHECK, not DEPLOY',
    ],
  ])('refuses the query %s naming the parameter', async (query, message) => {
    const refused = await runtime.http.get(planUrl(query)).expect(400);

    expect((refused.body as { errorDetails: string }).errorDetails).toBe(message);
  });

  it('answers 404 for an unknown instance and refuses a migration plan to an unknown target like the order', async () => {
    await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${randomUUID()}/plan?order=DEPLOY`)
      .expect(404);
    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    await until('DEPLOYED');
    const target = randomUUID();
    const planned = await runtime.http.get(planUrl(`?order=MIGRATE&compositionTargetId=${target}`)).expect(404);
    expect((planned.body as { errorDetails: string }).errorDetails).toBe(
      `Automation composition definition ${target} not found`,
    );
    const migrated = (await plan(`MIGRATE&compositionTargetId=${compositionId}`)) as Plan & {
      compositionTargetId: string;
    };
    expect(migrated).toMatchObject({ walk: 'stage', compositionTargetId: compositionId });
    expect(stepSets(migrated.steps)).toEqual([['Api', 'Database', 'Frontend', 'Worker']]);
  });

  describe('of a definition', () => {
    it('names the participants a PRIME would go to, without priming', async () => {
      const created = await runtime.http
        .post(`${BASE}/compositions`)
        .set('Content-Type', 'application/yaml')
        .send(readRepoFile('tosca/examples/sim-single-element.yaml'))
        .expect(201);
      const single = (created.body as { compositionId: string }).compositionId;
      const planned = (await runtime.http.get(`${BASE}/compositions/${single}/plan?order=PRIME`).expect(200)).body as {
        order: string;
        steps: Array<{
          kind: string;
          participants: string[];
          elements: Array<{ name: string; participantId: string }>;
        }>;
      };

      expect(planned.order).toBe('PRIME');
      expect(planned.steps).toEqual([
        {
          step: 1,
          kind: 'PRIME',
          elements: [
            { name: 'acm.example.single.SimElement', version: '1.0.0', participantId: participant.participantId },
          ],
          participants: [participant.participantId],
        },
      ]);
      const got = await runtime.http.get(`${BASE}/compositions/${single}`).expect(200);
      expect((got.body as { state: string }).state).toBe('COMMISSIONED');
    });

    it('refuses a prime of a definition instances use with the message of the order, and an unknown order', async () => {
      const put = await runtime.http
        .put(`${BASE}/compositions/${compositionId}`)
        .send({ primeOrder: 'PRIME' })
        .expect(400);
      const planned = await runtime.http.get(`${BASE}/compositions/${compositionId}/plan?order=PRIME`).expect(400);
      expect(planned.body).toEqual(put.body);
      expect((planned.body as { errorDetails: string }).errorDetails).toMatch(/^There are instances/);

      const unknown = await runtime.http.get(`${BASE}/compositions/${compositionId}/plan?order=DEPLOY`).expect(400);
      expect((unknown.body as { errorDetails: string }).errorDetails).toBe('order: must be one of PRIME, DEPRIME');
      await runtime.http.get(`${BASE}/compositions/${randomUUID()}/plan?order=PRIME`).expect(404);
    });
  });
});
