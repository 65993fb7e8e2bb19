import { commissionedAndPrimed, simulatorStack } from '../support/e2e-stack';
import { readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const DB = 'acm.example.refs.Database';
const WEB = 'acm.example.refs.Web';
const KNOWN_AFTER_DEPLOY = '(known after deploy)';

interface Element {
  definition: { name: string };
  properties: Record<string, unknown>;
  outProperties: Record<string, unknown>;
  message?: string;
}

interface Instance {
  deployState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, Element>;
}

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
}

/**
 * A web tier that reads its database's URL (tosca/examples/sim-references.yaml), the runtime and the simulator as
 * processes over Kafka and PostgreSQL: the simulator's database reports `url` (its control API sets the
 * outProperties a deploy reports), and the web tier's `baseUrl` is `{ get_attribute: [Database, url] }`.
 */
describe('references between elements over Kafka (runtime + simulator processes)', () => {
  const stack = simulatorStack('refs');
  const { api, sim } = stack;
  const dbUrl = `postgres://db-${stack.suffix}.example:5432/app`;

  const instanceOf = async (compositionId: string, instanceId: string): Promise<Instance> =>
    (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200)).body as Instance;

  const settled = (compositionId: string, instanceId: string, what: (instance: Instance) => boolean) =>
    eventually('the order to settle', async () => {
      const current = await instanceOf(compositionId, instanceId);
      return what(current) ? current : undefined;
    });

  const deployOrder = (compositionId: string, instanceId: string, order: string) =>
    api().put(`${API}/compositions/${compositionId}/instances/${instanceId}`).send({ deployOrder: order }).expect(202);

  it('gives the web tier the url its database reported, as a plain value, and records it', async () => {
    // Every deploy at the simulator reports these outProperties: the database's url.
    await sim()
      .put(`${SIM_API}/parameters`)
      .send({ deployProps: { url: dbUrl } })
      .expect(200);
    const compositionId = await commissionedAndPrimed(api, readRepoFile('tosca/examples/sim-references.yaml'));
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-references.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as { elements: Record<string, Element> };
    const idOf = (name: string): string =>
      Object.entries(body.elements).find(([, element]) => element.definition.name === name)![0];
    const [db, web] = [idOf(DB), idOf(WEB)];
    // The instance's own property reads the database too: the simulator keeps the instance properties it received.
    body.elements[web]!.properties = { baseUrl: { get_attribute: [DB, 'url'] } };
    const created = await api().post(`${API}/compositions/${compositionId}/instances`).send(body).expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;

    const plan = await api()
      .get(`${API}/compositions/${compositionId}/instances/${instanceId}/plan?order=DEPLOY`)
      .expect(200);
    const planned = (plan.body as { steps: Array<{ elements: Array<{ elementId: string; references?: unknown }> }> })
      .steps;
    expect(planned.map((step) => step.elements.map((element) => element.elementId))).toEqual([[db], [web]]);
    expect(planned[1]?.elements[0]?.references).toMatchObject({ baseUrl: KNOWN_AFTER_DEPLOY });

    await deployOrder(compositionId, instanceId, 'DEPLOY');
    const deployed = await settled(
      compositionId,
      instanceId,
      (current) => current.deployState === 'DEPLOYED' && current.phase === undefined,
    );
    expect(deployed.stateChangeResult).toBe('NO_ERROR');
    expect(deployed.elements[db]?.outProperties['url']).toBe(dbUrl);

    const atSimulator = (await sim().get(`${SIM_API}/instances/${instanceId}`).expect(200)).body as Instance;
    expect(atSimulator.elements[web]?.properties).toMatchObject({ baseUrl: dbUrl });
    expect(JSON.stringify(atSimulator)).not.toMatch(/get_attribute|get_property/);

    const history = await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200);
    const resolved = (history.body as { events: HistoryEvent[] }).events.filter(
      (event) => event.event === 'REFERENCES_RESOLVED',
    );
    expect(resolved.map((event) => event.detail)).toEqual([
      {
        elementId: web,
        values: {
          baseUrl: dbUrl,
          'configurationEntities.database.provider': 'acm-runtime',
          'configurationEntities.database.url': dbUrl,
        },
      },
    ]);

    // The database deployed again reports no url: the web tier fails with the reference named, and is never sent.
    await deployOrder(compositionId, instanceId, 'UNDEPLOY');
    await settled(
      compositionId,
      instanceId,
      (current) => current.deployState === 'UNDEPLOYED' && current.phase === undefined,
    );
    await sim()
      .put(`${SIM_API}/parameters`)
      .send({ deployProps: { ready: true } })
      .expect(200);
    await deployOrder(compositionId, instanceId, 'DEPLOY');
    const failed = await settled(compositionId, instanceId, (current) => current.stateChangeResult === 'FAILED');
    expect(failed.elements[db]?.outProperties).toEqual({ ready: true });
    expect(failed.elements[web]?.message).toBe(`get_attribute [${DB}, url]: ${DB} has not reported url`);
  });
});
