import { randomUUID } from 'node:crypto';
import { load } from 'js-yaml';
import { Client } from 'pg';
import { TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import type { TransitionalPolicy } from '@acm/domain';
import type { ImportLine, ImportReport } from '../apps/runtime-acm/src/cli/onap-import/onap-importer';
import { OnapSchemaRefused, importOnap } from '../apps/runtime-acm/src/cli/onap-import/onap-importer';
import { OnapSourceError } from '../apps/runtime-acm/src/cli/onap-import/onap-source';
import { readRepoFile } from './support/runtime-harness';
import { testDatabaseUrl } from './support/services';

/**
 * The import against a real PostgreSQL: a schema of ONAP's shape (test/fixtures/onap-import, written from the shape
 * of ONAP's changelog), hand-made rows in it, and the runtime's own schema beside it.
 */

const DEFINITION = 'a1000000-0000-4000-8000-000000000001';
const COMMISSIONED = 'a1000000-0000-4000-8000-000000000002';
const DEPLOYED = 'b1000000-0000-4000-8000-000000000001';
const UNDEPLOYING = 'b1000000-0000-4000-8000-000000000002';
const BROKEN = 'b1000000-0000-4000-8000-000000000003';
const PARTICIPANT = 'c1000000-0000-4000-8000-000000000001';
const ELEMENT = 'd1000000-0000-4000-8000-000000000001';
const REVISION = 'e1000000-0000-4000-8000-000000000001';

/** A service template in ONAP's Doc form: every keyed section keyed `name:version`, entries naming themselves. */
function docForm(template: Record<string, unknown>): Record<string, unknown> {
  const keyed = (section: unknown): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries((section ?? {}) as Record<string, Record<string, unknown>>).map(([name, entry]) => {
        const version = typeof entry['version'] === 'string' ? entry['version'] : '0.0.0';
        return [`${name}:${version}`, { ...entry, name, version }];
      }),
    );
  const topology = template['topology_template'] as Record<string, unknown>;
  return {
    ...template,
    data_types: keyed(template['data_types']),
    node_types: keyed(template['node_types']),
    topology_template: { ...topology, node_templates: keyed(topology['node_templates']) },
  };
}

const EXAMPLE = load(readRepoFile('tosca/examples/sim-single-element.yaml')) as Record<string, unknown>;
const NODE_TEMPLATES = (EXAMPLE['topology_template'] as { node_templates: Record<string, { type: string }> })
  .node_templates;
const ELEMENT_TEMPLATE = Object.entries(NODE_TEMPLATES).find(([, template]) =>
  template.type.includes('SimAutomationCompositionElement'),
)?.[0] as string;

async function onapSchema(lastTag: string): Promise<string> {
  const schema = `onap_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    await client.query(
      readRepoFile('test/fixtures/onap-import/clampacm-1801-schema.sql').replace('{{LAST_TAG}}', lastTag),
    );
  } finally {
    await client.end();
  }
  return schema;
}

/** Hand-made rows: two definitions, three instances (one deployed, one undeploying, one whose element is broken). */
async function insertRows(schema: string): Promise<void> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  const template = JSON.stringify(docForm(EXAMPLE));
  try {
    await client.query(`SET search_path TO "${schema}"`);
    await client.query(`INSERT INTO participant (participantid) VALUES ($1)`, [PARTICIPANT]);
    await client.query(
      `INSERT INTO participantsupportedacelements (id, participantid, typename, typeversion) VALUES ($1, $2, $3, $4)`,
      [randomUUID(), PARTICIPANT, 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', '1.0.0'],
    );
    await client.query(
      `INSERT INTO participantreplica (replicaid, participantid, participantstate) VALUES ($1, $2, 0)`,
      [randomUUID(), PARTICIPANT],
    );
    await client.query(
      `INSERT INTO automationcompositiondefinition (compositionid, name, version, servicetemplate, state, statechangeresult, lastmsg, revisionid)
       VALUES ($1, 'Single', '1.0.0', $2, 2, 0, '2026-01-02 03:04:05.678912', $3),
              ($4, 'Single-draft', '1.0.0', $2, 0, 0, '2026-01-02 03:04:06', $3)`,
      [DEFINITION, template, REVISION, COMMISSIONED],
    );
    await client.query(
      `INSERT INTO nodetemplatestate (nodetemplatestateid, compositionid, message, nodetemplate_name, nodetemplate_version, outproperties, participantid, state)
       VALUES ($1, $2, 'Primed', $3, '1.0.0', '{"primed":true}', $4, 2), ($5, $6, NULL, $3, '1.0.0', '{}', NULL, 0)`,
      [randomUUID(), DEFINITION, ELEMENT_TEMPLATE, PARTICIPANT, randomUUID(), COMMISSIONED],
    );
    const instance = `INSERT INTO automationcomposition (instanceid, compositionid, name, version, description, deploystate, lockstate, substate, statechangeresult, phase, lastmsg, revisionid)
       VALUES ($1, $2, $3, '1.0.0', 'hand-made', $4, $5, 0, 0, $6, '2026-01-03 00:00:00.5', $7)`;
    await client.query(instance, [DEPLOYED, DEFINITION, 'Deployed', 0, 0, null, REVISION]);
    await client.query(instance, [UNDEPLOYING, DEFINITION, 'Undeploying', 3, 4, 0, REVISION]);
    await client.query(instance, [BROKEN, DEFINITION, 'Broken', 2, 4, null, REVISION]);
    const element = `INSERT INTO automationcompositionelement (elementid, instanceid, definition_name, definition_version, participantid, deploystate, lockstate, substate, migrationstate, outproperties, properties, message)
       VALUES ($1, $2, $3, '1.0.0', $4, $5, $6, 0, 0, $7, $8, $9)`;
    await client.query(element, [
      ELEMENT,
      DEPLOYED,
      ELEMENT_TEMPLATE,
      PARTICIPANT,
      0,
      0,
      '{"InternalState":"DEPLOYED"}',
      '{"baseUrl":"http://example","timeouts":[1,2]}',
      'Deployed',
    ]);
    await client.query(element, [randomUUID(), UNDEPLOYING, ELEMENT_TEMPLATE, PARTICIPANT, 3, 4, '{}', '{}', null]);
    await client.query(element, [randomUUID(), BROKEN, ELEMENT_TEMPLATE, PARTICIPANT, 2, 4, '{}', '{"cut', null]);
  } finally {
    await client.end();
  }
}

async function dropSchema(schema: string): Promise<void> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

function outcomes(report: ImportReport): Array<[string, string, string]> {
  return report.lines.map((line: ImportLine) => [line.kind, line.id, line.outcome]);
}

describe('import of an ONAP database (PostgreSQL)', () => {
  let onap: string;
  const target = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema: target, poolSize: 4 });
  let unitOfWork: TypeOrmUnitOfWork;

  const run = (options: { dryRun?: boolean; transitional?: TransitionalPolicy; schema?: string; url?: string } = {}) =>
    importOnap({
      source: { url: options.url ?? testDatabaseUrl(), schema: options.schema ?? onap },
      unitOfWork,
      dryRun: options.dryRun ?? false,
      transitional: options.transitional ?? 'refuse',
      toscaElementName: 'org.onap.policy.clamp.acm.AutomationCompositionElement',
      toscaCompositionName: 'org.onap.policy.clamp.acm.AutomationComposition',
    });

  const count = async (table: string): Promise<number> =>
    Number((await dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM "${target}".${table}`))[0]?.n);

  beforeAll(async () => {
    onap = await onapSchema('1801');
    await insertRows(onap);
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${target}"`);
    await migrate(dataSource);
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await dropSchema(target);
    await dropSchema(onap);
  });

  it('a dry run lists what would be imported and what cannot be, and writes nothing', async () => {
    const report = await run({ dryRun: true });
    expect(outcomes(report)).toEqual([
      ['participant', PARTICIPANT, 'would import'],
      ['definition', DEFINITION, 'would import'],
      ['definition', COMMISSIONED, 'would import'],
      ['instance', DEPLOYED, 'would import'],
      ['instance', UNDEPLOYING, 'refused'],
      ['instance', BROKEN, 'refused'],
    ]);
    expect(report.lines.find((line) => line.id === UNDEPLOYING)?.detail).toContain(
      'UNDEPLOYING is a transition ONAP was still running; use --transitional=as-failed or --transitional=as-target',
    );
    expect(report.lines.find((line) => line.id === BROKEN)?.detail).toMatch(/^element .* properties is not JSON$/);
    expect(await count('composition_definition')).toBe(0);
    expect(await count('participant')).toBe(0);
  });

  it('imports definitions, instances and participants; a broken row is reported and the rest imported', async () => {
    const report = await run();
    expect(outcomes(report).map(([, id, outcome]) => [id, outcome])).toEqual([
      [PARTICIPANT, 'imported'],
      [DEFINITION, 'imported'],
      [COMMISSIONED, 'imported'],
      [DEPLOYED, 'imported'],
      [UNDEPLOYING, 'refused'],
      [BROKEN, 'refused'],
    ]);
    const stored = await unitOfWork.read(async (store) => ({
      definition: await store.definitions.find(DEFINITION),
      instance: await store.instances.find(DEPLOYED),
      participant: await store.participants.find(PARTICIPANT),
      broken: await store.instances.find(BROKEN),
    }));
    expect(stored.definition?.value).toMatchObject({
      name: 'Single',
      version: '1.0.0',
      state: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
      revisionId: REVISION,
      lastMsg: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    });
    expect(stored.definition?.value.serviceTemplate['metadata']).toEqual({ compositionId: DEFINITION });
    expect(Object.keys(stored.definition?.value.serviceTemplate['node_types'] as object).sort()).toEqual(
      Object.keys(EXAMPLE['node_types'] as object).sort(),
    );
    expect(stored.definition?.value.elementStateMap[ELEMENT_TEMPLATE]).toMatchObject({
      participantId: PARTICIPANT,
      state: 'PRIMED',
      message: 'Primed',
      outProperties: { primed: true },
    });
    expect(stored.instance?.value).toMatchObject({
      name: 'Deployed',
      version: '1.0.0',
      description: 'hand-made',
      deployState: 'DEPLOYED',
      lockState: 'LOCKED',
      revisionId: REVISION,
      lastMsg: Date.UTC(2026, 0, 3, 0, 0, 0, 500),
    });
    expect(stored.instance?.value.elements[ELEMENT]).toMatchObject({
      participantId: PARTICIPANT,
      deployState: 'DEPLOYED',
      message: 'Deployed',
      properties: { baseUrl: 'http://example', timeouts: [1, 2] },
      outProperties: { InternalState: 'DEPLOYED' },
    });
    expect(Object.values(stored.participant?.participantSupportedElementTypes ?? {})).toEqual([
      expect.objectContaining({ typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement' }),
    ]);
    expect(stored.participant?.replicas).toEqual({});
    expect(stored.broken).toBeNull();
    expect(await count('automation_composition_element')).toBe(1);
  });

  it('a second import changes nothing and says so', async () => {
    const before = await dataSource.query<unknown[]>(
      `SELECT instance_id, row_version, xmin::text FROM "${target}".automation_composition ORDER BY instance_id`,
    );
    const report = await run();
    expect(outcomes(report).map(([, id, outcome]) => [id, outcome])).toEqual([
      [PARTICIPANT, 'unchanged'],
      [DEFINITION, 'unchanged'],
      [COMMISSIONED, 'unchanged'],
      [DEPLOYED, 'unchanged'],
      [UNDEPLOYING, 'refused'],
      [BROKEN, 'refused'],
    ]);
    expect(
      await dataSource.query(
        `SELECT instance_id, row_version, xmin::text FROM "${target}".automation_composition ORDER BY instance_id`,
      ),
    ).toEqual(before);
  });

  it('imports a transition in flight only when told how, then as FAILED', async () => {
    const report = await run({ transitional: 'as-failed' });
    const line = report.lines.find((item) => item.id === UNDEPLOYING);
    expect(line).toMatchObject({ outcome: 'imported', detail: 'UNDEPLOYING in flight imported as UNDEPLOYING FAILED' });
    const stored = await unitOfWork.read((store) => store.instances.find(UNDEPLOYING));
    expect(stored?.value).toMatchObject({ deployState: 'UNDEPLOYING', stateChangeResult: 'FAILED' });
  });

  it('keeps what the runtime changed since, never overwriting it', async () => {
    await unitOfWork.transaction(async (store) => {
      const found = await store.instances.find(DEPLOYED);
      if (found === null) {
        throw new Error('imported instance missing');
      }
      await store.instances.update({ ...found.value, description: 'changed here' }, found.version);
    });
    const report = await run();
    expect(report.lines.find((item) => item.id === DEPLOYED)?.outcome).toBe('kept');
    const stored = await unitOfWork.read((store) => store.instances.find(DEPLOYED));
    expect(stored?.value.description).toBe('changed here');
  });

  it('refuses an instance whose name and version the runtime already uses, writing none of its elements', async () => {
    const twin = 'b1000000-0000-4000-8000-000000000009';
    const twinElement = 'd1000000-0000-4000-8000-000000000009';
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${onap}"`);
      await client.query(
        `INSERT INTO automationcomposition (instanceid, compositionid, name, version, deploystate, lockstate, revisionid)
         VALUES ($1, $2, 'Deployed', '1.0.0', 2, 4, $3)`,
        [twin, DEFINITION, REVISION],
      );
      await client.query(
        `INSERT INTO automationcompositionelement (elementid, instanceid, definition_name, definition_version)
         VALUES ($1, $2, $3, '1.0.0')`,
        [twinElement, twin, ELEMENT_TEMPLATE],
      );
    } finally {
      await client.end();
    }
    const report = await run();
    expect(report.lines.find((line) => line.id === twin)).toMatchObject({
      outcome: 'refused',
      detail: 'another instance of the runtime is named Deployed 1.0.0',
    });
    expect(
      await dataSource.query(
        `SELECT count(*)::int AS n FROM "${target}".automation_composition_element WHERE element_id = $1`,
        [twinElement],
      ),
    ).toEqual([{ n: 0 }]);
  });

  it('refuses a definition whose service template the runtime cannot read, and the instances on it', async () => {
    const unreadable = 'a1000000-0000-4000-8000-000000000009';
    const onIt = 'b1000000-0000-4000-8000-000000000008';
    const template = {
      tosca_definitions_version: 'tosca_simple_yaml_1_3',
      topology_template: { node_templates: { 'x.element:1.0.0': { name: 'x.element', type: 'no.such.Type' } } },
    };
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${onap}"`);
      await client.query(
        `INSERT INTO automationcompositiondefinition (compositionid, name, version, servicetemplate, state)
         VALUES ($1, 'Unreadable', '1.0.0', $2, 0)`,
        [unreadable, JSON.stringify(template)],
      );
      await client.query(
        `INSERT INTO automationcomposition (instanceid, compositionid, name, version) VALUES ($1, $2, 'On-it', '1.0.0')`,
        [onIt, unreadable],
      );
      await client.query(
        `INSERT INTO automationcompositionelement (elementid, instanceid, definition_name) VALUES ($1, $2, 'x.element')`,
        [randomUUID(), onIt],
      );
    } finally {
      await client.end();
    }
    const report = await run();
    expect(report.lines.find((line) => line.id === unreadable)).toMatchObject({
      outcome: 'refused',
      detail: expect.stringContaining('its service template is not one the runtime reads:') as unknown,
    });
    expect(report.lines.find((line) => line.id === onIt)).toMatchObject({
      outcome: 'refused',
      detail: `its composition definition ${unreadable} is not imported`,
    });
    expect(await unitOfWork.read((store) => store.definitions.find(unreadable))).toBeNull();
  });

  it('refuses a schema of another ONAP version, naming it', async () => {
    const older = await onapSchema('1702');
    try {
      await expect(run({ schema: older })).rejects.toThrow(OnapSchemaRefused);
      await expect(run({ schema: older })).rejects.toThrow(
        'ONAP schema version 1702 (the last tag of databasechangelog) is not supported: this import reads version 1801',
      );
    } finally {
      await dropSchema(older);
    }
  });

  it('says clearly that an unreachable database cannot be reached, without its password', async () => {
    const unreachable = 'postgres://onap:secret-word@127.0.0.1:1/clampacm';
    const failure = run({ url: unreachable }).then(
      () => null,
      (error: unknown) => error,
    );
    const error = await failure;
    expect(error).toBeInstanceOf(OnapSourceError);
    expect((error as Error).message).toContain('ONAP database postgres://onap@127.0.0.1:1/clampacm cannot be reached');
    expect((error as Error).message).not.toContain('secret-word');
  });
});
