import { randomUUID } from 'node:crypto';
import { UnitOfWork } from '@acm/domain';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, registerParticipant, startRuntime } from './support/runtime-harness';

const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const DB = 'acm.example.refs.Database';
const WEB = 'acm.example.refs.Web';
const definitionYaml = readRepoFile('tosca/examples/sim-references.yaml');
const instanceJson = readRepoFile('tosca/examples/instances/sim-references.json');

/**
 * References checked where they enter: at commission in the node templates, and on instance create and update in the
 * instance's element properties, every problem in one 400 naming its path, whatever PROPERTY_VALIDATION says.
 */
describe('references refused at commission and instantiation (PostgreSQL)', () => {
  let runtime: RuntimeHarness;
  let compositionId: string;

  beforeAll(async () => {
    runtime = await startRuntime({ PROPERTY_VALIDATION: 'off' });
    await registerParticipant(runtime.app, randomUUID(), [{ typeName: SIM_TYPE, typeVersion: '1.0.0' }]);
    const response = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(definitionYaml)
      .expect(201);
    compositionId = (response.body as { compositionId: string }).compositionId;
    // Stands in for the participants' PRIME_ACKs.
    await runtime.app.get(UnitOfWork).transaction(async (store) => {
      const found = (await store.definitions.find(compositionId))!;
      await store.definitions.update({ ...found.value, state: 'PRIMED' }, found.version);
    });
  });

  afterAll(async () => {
    await runtime.close();
  });

  /** The example's instance with fresh ids, the web tier's properties as given. */
  function instanceBody(dbProperties: Record<string, unknown>, webProperties: Record<string, unknown>) {
    const body = JSON.parse(instanceJson.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as {
      elements: Record<string, { id: string; definition: { name: string }; properties: Record<string, unknown> }>;
    };
    const elements = Object.fromEntries(
      Object.values(body.elements).map((element) => {
        const id = randomUUID();
        const properties = element.definition.name === WEB ? webProperties : dbProperties;
        return [id, { ...element, id, properties }];
      }),
    );
    const idOf = (name: string): string =>
      Object.values(elements).find((element) => element.definition.name === name)!.id;
    return { body: { ...body, name: `refs-${randomUUID().slice(0, 8)}`, elements }, db: idOf(DB), web: idOf(WEB) };
  }

  it('refuses a template with a bad reference, naming the field', async () => {
    const broken = definitionYaml
      .replace('name: acm.example.SimReferences', 'name: acm.example.SimReferencesBroken')
      .replace(
        /baseUrl:\n(\s+)get_attribute: \[acm\.example\.refs\.Database, url\]/,
        'baseUrl:\n$1get_attribute: [acm.example.refs.Ghost, url]',
      );
    const response = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(broken)
      .expect(400);

    expect(JSON.stringify(response.body)).toContain(
      `topology_template.node_templates[\\"${WEB}\\"].properties.baseUrl.get_attribute[0]: get_attribute [acm.example.refs.Ghost, url]: element ${WEB} refers to acm.example.refs.Ghost, which is not an element node template`,
    );
  });

  it('refuses an instance whose properties refer to an unknown element or loop, in one 400', async () => {
    const { body, db, web } = instanceBody(
      { x: { get_property: [WEB, 'baseUrl'] } },
      { y: { get_attribute: ['acm.example.refs.Ghost', 'url'] }, z: { get_property: [DB] } },
    );
    const response = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(400);
    const text = JSON.stringify(response.body);

    expect(text).toContain(`elements[\\"${web}\\"].properties.y.get_attribute[0]`);
    expect(text).toContain(`elements[\\"${web}\\"].properties.z.get_property`);
    expect(text).toContain(`elements[\\"${db}\\"].properties.x.get_property[0]`);
    expect(text).toMatch(
      /in a loop: (acm\.example\.refs\.Web -> acm\.example\.refs\.Database|acm\.example\.refs\.Database -> acm\.example\.refs\.Web) ->/,
    );
  });

  it('accepts a reference to another element, and refuses one an update adds that loops', async () => {
    const { body, db } = instanceBody({}, { baseUrl: { get_attribute: [DB, 'url'] } });
    const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const elements = Object.fromEntries(
      Object.entries(body.elements).map(([id, element]) => [
        id,
        id === db ? { ...element, properties: { x: { get_property: [WEB, 'baseUrl'] } } } : element,
      ]),
    );

    const response = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({ ...body, instanceId, elements })
      .expect(400);
    expect(JSON.stringify(response.body)).toMatch(
      /in a loop: (acm\.example\.refs\.Web -> acm\.example\.refs\.Database|acm\.example\.refs\.Database -> acm\.example\.refs\.Web) ->/,
    );
  });
});
