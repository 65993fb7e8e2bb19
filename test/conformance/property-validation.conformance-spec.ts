import { randomUUID } from 'node:crypto';
import { UnitOfWork } from '@acm/domain';
import type { RuntimeHarness } from '../support/runtime-harness';
import { BASE, registerParticipant, startRuntime } from '../support/runtime-harness';
import { onapFile } from './onap-files';

/**
 * ONAP's CSIT definitions with the instance ONAP creates from each. (`ac-instance-timeout.yaml` lists an element its
 * definition lacks, so the element check refuses it before properties matter.)
 */
const PAIRS: Array<[string, string]> = [
  ['csit-data/ac-definition-simple.yaml', 'csit-data/ac-instance-simple.yaml'],
  ['csit-data/ac-definition-multiple.yaml', 'csit-data/ac-instance-multiple.yaml'],
  ['csit-data/ac-definition-migration-from.yaml', 'csit-data/ac-instance-migration-from.yaml'],
];

interface NodeTemplate {
  type: string;
  type_version: string;
}

/** Commissions an ONAP definition and stands in for its participants: registered, then PRIMED. */
async function primed(runtime: RuntimeHarness, definitionFile: string): Promise<string> {
  const created = await runtime.http
    .post(`${BASE}/compositions`)
    .set('Content-Type', 'application/yaml')
    .send(onapFile(definitionFile))
    .expect(201);
  const compositionId = (created.body as { compositionId: string }).compositionId;
  const definition = (await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200)).body as {
    serviceTemplate: { topology_template: { node_templates: Record<string, NodeTemplate> } };
    elementStateMap: Record<string, unknown>;
  };
  const nodeTemplates = definition.serviceTemplate.topology_template.node_templates;
  for (const name of Object.keys(definition.elementStateMap)) {
    const nodeTemplate = nodeTemplates[name];
    if (nodeTemplate) {
      await registerParticipant(runtime.app, randomUUID(), [
        { typeName: nodeTemplate.type, typeVersion: nodeTemplate.type_version },
      ]);
    }
  }
  await runtime.app.get(UnitOfWork).transaction(async (store) => {
    const found = await store.definitions.find(compositionId);
    if (!found) {
      throw new Error(`no definition ${compositionId}`);
    }
    await store.definitions.update({ ...found.value, state: 'PRIMED' }, found.version);
  });
  return compositionId;
}

function instanceOf(instanceFile: string, compositionId: string): string {
  return onapFile(instanceFile).replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId);
}

describe("ONAP's CSIT instances under the default PROPERTY_VALIDATION", () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime();
  });

  afterAll(async () => {
    await runtime.close();
  });

  it.each(PAIRS)('accepts %s with %s unchanged and reports its property problems', async (definition, instance) => {
    const compositionId = await primed(runtime, definition);
    const body = instanceOf(instance, compositionId);

    const preview = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances?dryRun=true`)
      .set('Content-Type', 'application/yaml')
      .send(body)
      .expect(200);
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/yaml')
      .send(body)
      .expect(201);

    const { propertyProblems } = preview.body as { propertyProblems: unknown[] };
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const history = await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`)
      .expect(200);
    const reported = (history.body as { events: Array<{ event: string; detail: { problems: unknown[] } }> }).events
      .filter((event) => event.event === 'PROPERTY_PROBLEMS')
      .flatMap((event) => event.detail.problems);
    expect(reported).toEqual(propertyProblems);
  });
});

describe("ONAP's CSIT instances under PROPERTY_VALIDATION=strict", () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime({ PROPERTY_VALIDATION: 'strict' });
  });

  afterAll(async () => {
    await runtime.close();
  });

  it.each(PAIRS)('refuses %s with %s, which is why strict is not the default', async (definition, instance) => {
    const compositionId = await primed(runtime, definition);

    const refused = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/yaml')
      .send(instanceOf(instance, compositionId))
      .expect(400);

    expect((refused.body as { errorDetails: string }).errorDetails).toMatch(
      /properties\.configurationEntities: expected map, got \[/,
    );
  });
});
