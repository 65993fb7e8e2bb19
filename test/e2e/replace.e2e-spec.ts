import { randomUUID } from 'node:crypto';
import { commissionedAndPrimed, simulatorStack } from '../support/e2e-stack';
import { readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';

interface Element {
  deployState: string;
  properties: Record<string, unknown>;
}

interface Instance {
  name: string;
  version: string;
  deployState: string;
  lockState: string;
  phase?: number;
  elements: Record<string, Element & { id: string; definition: { name: string; version: string } }>;
}

interface PlanAnswer {
  planId: string;
  steps: Array<{ phase: number; elements: Array<{ elementId: string }> }>;
  changes: Array<{ elementId: string; action: string; forcedBy?: string[] }>;
  summary: Record<string, number>;
}

function actionsOf(plan: PlanAnswer): Record<string, string> {
  return Object.fromEntries(plan.changes.map((change) => [change.elementId, change.action]));
}

interface HistoryEvent {
  event: string;
  operationId: string | null;
  detail: Record<string, unknown>;
}

/**
 * tosca/examples/sim-replace.yaml over Kafka and PostgreSQL with the simulator participant as a process: an UPDATE
 * that changes the non-updatable `zone` of Database replaces it (the history shows its undeploy, then its deploy,
 * in one UPDATE operation), while the changed `baseUrl` of Frontend is updated in place.
 */
describe('replace in an UPDATE over Kafka (runtime + simulator processes)', () => {
  const stack = simulatorStack('replace');
  const { api, sim } = stack;

  async function deployedInstance(compositionId: string, instanceId: string): Promise<Instance> {
    return eventually('the instance to be DEPLOYED with no phase open', async () => {
      const current = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
        .body as Instance;
      return current.deployState === 'DEPLOYED' && current.phase === undefined ? current : undefined;
    });
  }

  /** Commissions the replace example, edited by `edit`, under another name so each test has its own definition. */
  async function commissioned(name: string, edit: (yaml: string) => string = (yaml) => yaml): Promise<string> {
    const yaml = edit(readRepoFile('tosca/examples/sim-replace.yaml')).replace(
      'name: acm.example.SimReplace\n',
      `name: acm.example.${name}\n`,
    );
    return commissionedAndPrimed(api, yaml);
  }

  /** A deployed instance of the example body, with fresh element ids; its element ids by short node template name. */
  async function deployedFrom(compositionId: string): Promise<{ instanceId: string; ids: Record<string, string> }> {
    const parsed = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-replace.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as { name: string; elements: Record<string, { id: string; definition: { name: string } }> };
    const ids: Record<string, string> = {};
    const elements = Object.fromEntries(
      Object.values(parsed.elements).map((element) => {
        const id = randomUUID();
        ids[element.definition.name.split('.').at(-1)!] = id;
        return [id, { ...element, id }];
      }),
    );
    const created = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .send({ ...parsed, name: `${parsed.name}-${randomUUID().slice(0, 8)}`, elements })
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    await deployedInstance(compositionId, instanceId);
    return { instanceId, ids };
  }

  async function historyOfUpdate(compositionId: string, instanceId: string): Promise<HistoryEvent[]> {
    const history = (
      (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)).body as {
        events: HistoryEvent[];
      }
    ).events;
    const ordered = history.filter((entry) => entry.event === 'ORDERED' && entry.detail['order'] === 'UPDATE');
    expect(ordered).toHaveLength(1);
    return history.filter((entry) => entry.operationId === ordered[0]!.operationId);
  }

  it('with removeOrphans, undeploys and deletes the elements an UPDATE leaves out', async () => {
    const compositionId = await commissioned('SimReplaceOrphans', (yaml) =>
      yaml.replace(
        '      description: Composition whose elements are replaced when their zone changes.\n',
        '      description: Composition whose elements are replaced when their zone changes.\n      metadata:\n        removeOrphans: true\n',
      ),
    );
    const { instanceId, ids } = await deployedFrom(compositionId);
    const before = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
      .body as Instance;

    const update = {
      instanceId,
      compositionId,
      name: before.name,
      version: before.version,
      elements: {
        [ids['Database']!]: { ...before.elements[ids['Database']!], properties: { baseUrl: 'http://db-2' } },
      },
    };
    const plan = (
      await api()
        .post(`${API}/compositions/${compositionId}/instances/${instanceId}/plan`)
        .send({ order: 'UPDATE', instance: update })
        .expect(200)
    ).body as PlanAnswer;
    expect(actionsOf(plan)).toEqual({
      [ids['Database']!]: 'update',
      [ids['Backend']!]: 'delete',
      [ids['Frontend']!]: 'delete',
    });
    await api().post(`${API}/compositions/${compositionId}/instances`).send(update).expect(200);
    await eventually('the orphans gone and the instance DEPLOYED', async () => {
      const current = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
        .body as Instance;
      return current.deployState === 'DEPLOYED' && current.phase === undefined ? current : undefined;
    });
    const after = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
      .body as Instance;
    expect(Object.keys(after.elements)).toEqual([ids['Database']]);
    expect(after.elements[ids['Database']!]?.properties['baseUrl']).toBe('http://db-2');

    const ofUpdate = await historyOfUpdate(compositionId, instanceId);
    expect(
      ofUpdate
        .filter((entry) => entry.event === 'REPLACE_PLANNED')
        .map((entry) => [entry.detail['elementId'], entry.detail['change']])
        .sort(),
    ).toEqual(
      [
        [ids['Backend'], 'ORPHAN'],
        [ids['Frontend'], 'ORPHAN'],
      ].sort(),
    );
    for (const orphan of [ids['Backend'], ids['Frontend']]) {
      expect(
        ofUpdate
          .filter((entry) => entry.event === 'ELEMENT_RESULT' && entry.detail['elementId'] === orphan)
          .map((entry) => entry.detail['deployState']),
      ).toEqual(['UNDEPLOYED', 'DELETED']);
    }
  }, 120_000);

  it('refuses at commissioning a flag that is not a boolean, naming it', async () => {
    const yaml = readRepoFile('tosca/examples/sim-replace.yaml')
      .replace('name: acm.example.SimReplace\n', 'name: acm.example.SimReplaceBad\n')
      .replace('          updatable: false', '          updatable: "no"');
    const refused = await api()
      .post(`${API}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(yaml)
      .expect(400);
    expect((refused.body as { errorDetails: string }).errorDetails).toContain(
      'node_types["org.onap.policy.clamp.acm.SimAutomationCompositionElement"].properties.zone.metadata.updatable',
    );
    expect((refused.body as { errorDetails: string }).errorDetails).toContain('must be a boolean');
  });

  it('undeploys then deploys the element whose non-updatable property changed, and updates the other in place', async () => {
    const compositionId = await commissionedAndPrimed(api, readRepoFile('tosca/examples/sim-replace.yaml'));
    const body = readRepoFile('tosca/examples/instances/sim-replace.json').replace(
      /COMPOSITIONIDPLACEHOLDER/g,
      compositionId,
    );
    const created = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const before = await deployedInstance(compositionId, instanceId);
    const idOf = (name: string): string =>
      Object.values(before.elements).find((element) => element.definition.name === `acm.example.replace.${name}`)!.id;
    const [database, backend, frontend] = [idOf('Database'), idOf('Backend'), idOf('Frontend')];

    const update = {
      instanceId,
      compositionId,
      name: before.name,
      version: before.version,
      elements: {
        [database]: { ...before.elements[database], properties: { zone: 'zone-b' } },
        [frontend]: { ...before.elements[frontend], properties: { baseUrl: 'http://sim.example:30800/frontend-2' } },
      },
    };
    // The plan of that body shows the replace, and why, before anything runs.
    const plan = (
      await api()
        .post(`${API}/compositions/${compositionId}/instances/${instanceId}/plan`)
        .send({ order: 'UPDATE', instance: update })
        .expect(200)
    ).body as PlanAnswer;
    expect(actionsOf(plan)).toEqual({ [database]: 'replace', [frontend]: 'update', [backend]: 'unchanged' });
    expect(plan.changes.find((change) => change.elementId === database)?.forcedBy).toEqual(['zone']);
    expect(plan.summary).toMatchObject({ create: 0, update: 1, replace: 1, delete: 0, unchanged: 1 });

    await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .query({ planId: plan.planId })
      .send(update)
      .expect(200);
    const after = await deployedInstance(compositionId, instanceId);
    expect(after.elements[database]?.properties['zone']).toBe('zone-b');
    expect(after.elements[frontend]?.properties['baseUrl']).toBe('http://sim.example:30800/frontend-2');

    const history = (
      (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)).body as {
        events: HistoryEvent[];
      }
    ).events;
    const ordered = history.filter((entry) => entry.event === 'ORDERED' && entry.detail['order'] === 'UPDATE');
    expect(ordered).toHaveLength(1);
    const ofUpdate = history.filter((entry) => entry.operationId === ordered[0]!.operationId);
    expect(ofUpdate.filter((entry) => entry.event === 'REPLACE_PLANNED').map((entry) => entry.detail)).toEqual([
      { elementId: database, change: 'REPLACE', forcedBy: ['zone'], replacementId: null },
    ]);
    const resultsOf = (id: string): unknown[] =>
      ofUpdate
        .filter((entry) => entry.event === 'ELEMENT_RESULT' && entry.detail['elementId'] === id)
        .map((entry) => entry.detail['deployState']);
    expect(resultsOf(database)).toEqual(['UNDEPLOYED', 'DEPLOYED']);
    // The plan listed the steps the operation then ran: the undeploy, the deploy, the update in place.
    const dispatched = ofUpdate
      .filter((entry) => ['PHASE_STARTED', 'ELEMENTS_DISPATCHED'].includes(entry.event))
      .map((entry) => [entry.detail['phase'], [...(entry.detail['elementIds'] as string[])].sort()]);
    expect(plan.steps.map((step) => [step.phase, step.elements.map((element) => element.elementId).sort()])).toEqual(
      dispatched,
    );
    expect(dispatched.map(([, ids]) => ids)).toEqual([[database], [database], [frontend]]);
    expect(resultsOf(frontend)).toEqual(['DEPLOYED']);
    expect(resultsOf(backend)).toEqual([]);
    expect(ofUpdate.at(-1)?.event).toBe('COMPLETED');

    // The participant deployed the new Database: it holds the new zone.
    const atSimulator = (await sim().get(`${SIM_API}/instances/${instanceId}`).expect(200)).body as Instance;
    expect(atSimulator.elements[database]?.properties['zone']).toBe('zone-b');
    expect(atSimulator.elements[frontend]?.properties['baseUrl']).toBe('http://sim.example:30800/frontend-2');
  }, 120_000);
});
