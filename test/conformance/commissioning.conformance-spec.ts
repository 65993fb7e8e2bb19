import { randomUUID } from 'node:crypto';
import { UnitOfWork } from '@acm/domain';
import type { RuntimeHarness } from '../support/runtime-harness';
import { BASE, registerParticipant, startRuntime } from '../support/runtime-harness';
import { onapFile, onapFiles } from './onap-files';

/**
 * Two files in ONAP's examples folder are not commissionable compositions, in ONAP either: ONAP's own
 * tests only deserialise them (docs/compatibility.md). They are refused with the rule that ONAP applies.
 */
const NOT_COMPOSITIONS: Record<string, RegExp> = {
  'compositions/tosca-template-additional-properties.yaml':
    /NodeTemplate with type org\.onap\.policy\.clamp\.acm\.AutomationComposition must exist!/,
  'compositions/participant-kserve.yaml': /KserveInferenceEntityId not found in data_types/,
};

/** Every ONAP definition: csit-data/*definition*, the docker and http use cases, and every example composition. */
const DEFINITIONS = [
  ...onapFiles('csit-data', /^(ac-definition-.*|acelement-usecaseDocker|http-usecase)\.yaml$/),
  ...onapFiles('compositions', /\.yaml$/),
].filter((file) => NOT_COMPOSITIONS[file] === undefined);

interface NodeTemplate {
  type: string;
  type_version: string;
}

describe('ONAP definitions and instances', () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime();
  });

  afterAll(async () => {
    await runtime.close();
  });

  it('finds the ONAP files', () => {
    expect(DEFINITIONS.length).toBe(14);
  });

  it.each(DEFINITIONS)('commissions %s with 201 and returns it unchanged', async (file) => {
    const text = onapFile(file);
    const created = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(text)
      .expect(201);
    const { compositionId } = created.body as { compositionId: string };
    const got = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
    const definition = got.body as { state: string; serviceTemplate: { metadata: Record<string, unknown> } };
    expect(definition.state).toBe('COMMISSIONED');
    expect(definition.serviceTemplate.metadata['compositionId']).toBe(compositionId);
  });

  it.each(Object.entries(NOT_COMPOSITIONS))('refuses %s with 400 and the reason', async (file, reason) => {
    const response = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(onapFile(file))
      .expect(400);
    expect((response.body as { errorDetails: string }).errorDetails).toMatch(reason);
  });

  describe('PMSH instances (runtime-test-data)', () => {
    let compositionId: string;

    beforeAll(async () => {
      const created = await runtime.http
        .post(`${BASE}/compositions`)
        .set('Content-Type', 'application/yaml')
        .send(onapFile('compositions/funtional-pmsh-usecase.yaml'))
        .expect(201);
      compositionId = (created.body as { compositionId: string }).compositionId;
      const definition = (await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200)).body as {
        serviceTemplate: { topology_template: { node_templates: Record<string, NodeTemplate> } };
        elementStateMap: Record<string, unknown>;
      };
      const types = new Set(
        Object.keys(definition.elementStateMap).map((name) => {
          const nodeTemplate = definition.serviceTemplate.topology_template.node_templates[name]!;
          return `${nodeTemplate.type}|${nodeTemplate.type_version}`;
        }),
      );
      for (const type of types) {
        const [typeName, typeVersion] = type.split('|') as [string, string];
        await registerParticipant(runtime.app, randomUUID(), [{ typeName, typeVersion }]);
      }
      await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
      // Stands in for the participants' PRIME_ACKs (the engine's own conformance runs cover them).
      await runtime.app.get(UnitOfWork).transaction(async (store) => {
        const found = await store.definitions.find(compositionId);
        await store.definitions.update({ ...found!.value, state: 'PRIMED' }, found!.version);
      });
    });

    function instance(file: string): string {
      return onapFile(file).replace(/709c62b3-8918-41b9-a747-d21eb79c6c40/g, compositionId);
    }

    it('creates AutomationComposition.json with 201', async () => {
      const created = await runtime.http
        .post(`${BASE}/compositions/${compositionId}/instances`)
        .set('Content-Type', 'application/json')
        .send(instance('runtime-test-data/AutomationComposition.json'))
        .expect(201);
      expect(created.body).toMatchObject({
        affectedAutomationComposition: { name: 'PMSHInstance0', version: '1.0.1' },
      });
    });

    it.each(['AutomationCompositionNotFound.json', 'AutomationCompositionElementsNotFound.json'])(
      'refuses %s with 400',
      async (file) => {
        const response = await runtime.http
          .post(`${BASE}/compositions/${compositionId}/instances`)
          .set('Content-Type', 'application/json')
          .send(instance(`runtime-test-data/${file}`))
          .expect(400);
        expect((response.body as { errorDetails: string }).errorDetails).toMatch(/Not found|not matching|already used/);
      },
    );
  });
});
