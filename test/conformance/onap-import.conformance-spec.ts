import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { INestApplication } from '@nestjs/common';
import { load } from 'js-yaml';
import { Client } from 'pg';
import request from 'supertest';
import { TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { createRuntimeApp } from '../../apps/runtime-acm/src/bootstrap';
import { loadRuntimeConfig } from '../../apps/runtime-acm/src/config/runtime.config';
import type { ImportReport } from '../../apps/runtime-acm/src/cli/onap-import/onap-importer';
import { countOutcomes, importOnap } from '../../apps/runtime-acm/src/cli/onap-import/onap-importer';
import { BASE, PASSWORD, REPO_ROOT, USER } from '../support/runtime-harness';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { eventually } from '../support/scripted-participant';
import { testDatabaseUrl } from '../support/services';
import { ONAP_DIR, onapFile } from './onap-files';

/**
 * ONAP's own database, imported: the dump of a real ONAP runtime-acm (`db/clampacm-after-lifecycle.sql`) restored
 * into a fresh PostgreSQL database, ONAP's db-restore inserts applied on top, imported into the runtime's schema;
 * then what ONAP's db-restore suite checks, replayed against the runtime with its built-in simulator participant:
 * the restored definitions and instances are served, the restored instance migrates, is reviewed, undeployed and
 * deleted, and the participant is sent the restored instances (SYNC).
 */

const SIM_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c90';
const SIM_API = '/onap/policy/simparticipant/v2';
/** ONAP's db-restore inserts (compositiondefinition-from.sql, -to.sql, instance.sql). */
const RESTORED_FROM = 'd30b8017-4d64-4693-84d7-de9c4226b9f8';
const RESTORED_TO = '6c1cf107-a2ca-4485-8129-02f9fae64d64';
const RESTORED_INSTANCE = 'dd36aaa4-580f-4193-a52b-37c3a955b11a';
/** Rows of the dump. */
const SIMPLE = '372a6b5a-6abf-48a6-b1c5-477da957a7aa';
const SIMPLE_DEPLOYED = '8fdac17e-c3b4-482d-8e06-2d484afe4bdf';
const SIMPLE_UNLOCKED = '535e13cb-33ec-4edd-9db4-16627984f2a3';
const SIMPLE_UNDEPLOYED = 'cac2abbf-00d6-4079-9db1-562d09bf6b72';
const SIMPLE_FAILED = '386349e7-602a-4ee0-abd6-8aca28ff5527';
/** The dump's second pass: another primed Simple and its failed deploy. */
const SIMPLE_2 = '08986cd2-a517-49b7-a830-db95fb96eeaa';
const SIMPLE_2_FAILED = 'a3121c97-3911-47ac-b63a-51ce195fc017';

/** ONAP's built-in passphrase of its sensitive-property encryption (docs/compatibility.md). */
const ONAP_PASSPHRASE = '53c82eba-31f6-3416-b331-de9162ebe997';

const run = promisify(execFile);

function databaseUrl(database: string): string {
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin(statement: string): Promise<void> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The files as ONAP's db-restore suite applies them: psql, stopping at the first error. */
async function psqlFile(url: string, file: string): Promise<void> {
  await run('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', join(ONAP_DIR, 'db', file)], {
    maxBuffer: 16 * 1024 * 1024,
  });
}

interface InstanceView {
  compositionId: string;
  name: string;
  deployState: string;
  lockState: string;
  subState: string;
  stateChangeResult: string;
  elements: Record<string, { properties: Record<string, unknown>; participantId: string }>;
}

describe("ONAP's database (dump and db-restore inserts), imported", () => {
  const onapDatabase = `onap_import_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const onapUrl = databaseUrl(onapDatabase);
  const schema = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const cliSchema = `${schema}_cli`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 4 });
  let unitOfWork: TypeOrmUnitOfWork;
  let first: ImportReport;
  let firstMs: number;
  let app: INestApplication | undefined;

  const importNow = (): Promise<ImportReport> =>
    importOnap({
      source: { url: onapUrl },
      unitOfWork,
      transitional: 'refuse',
      dryRun: false,
      toscaElementName: 'org.onap.policy.clamp.acm.AutomationCompositionElement',
      toscaCompositionName: 'org.onap.policy.clamp.acm.AutomationComposition',
    });

  beforeAll(async () => {
    await admin(`CREATE DATABASE "${onapDatabase}"`);
    await psqlFile(onapUrl, 'clampacm-after-lifecycle.sql');
    for (const file of ['compositiondefinition-from.sql', 'compositiondefinition-to.sql', 'instance.sql']) {
      await psqlFile(onapUrl, file);
    }
    await psqlFile(onapUrl, 'compositiondefinition-update.sql');
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await migrate(dataSource);
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
    const started = performance.now();
    first = await importNow();
    firstMs = performance.now() - started;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    if (dataSource.isInitialized) {
      await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await dataSource.query(`DROP SCHEMA IF EXISTS "${cliSchema}" CASCADE`);
      await dataSource.destroy();
    }
    await admin(`DROP DATABASE IF EXISTS "${onapDatabase}" WITH (FORCE)`);
  });

  it('imports every definition, instance and participant of ONAP schema 1801', () => {
    expect(first.schemaVersion).toBe('1801');
    expect(first.lines.filter((line) => line.outcome !== 'imported')).toEqual([]);
    const counts = countOutcomes(first);
    expect([counts.participant.imported, counts.definition.imported, counts.instance.imported]).toEqual([1, 9, 10]);
    process.stdout.write(
      `ONAP import: ${first.lines.length} rows (1 participant, 9 definitions, 10 instances) in ${Math.round(firstMs)} ms\n`,
    );
  });

  it('a second import changes nothing', async () => {
    const second = await importNow();
    expect(second.lines.map((line) => line.outcome)).toEqual(first.lines.map(() => 'unchanged'));
  });

  it('the built command makes the runtime tables of an empty schema, dry-runs (exit 0), and exits 1 when ONAP is unreachable', async () => {
    const command = (args: string[]) =>
      run('node', [join(REPO_ROOT, 'dist/apps/runtime-acm/src/cli/import-onap.js'), ...args], {
        env: { ...process.env, DATABASE_URL: testDatabaseUrl(), DATABASE_SCHEMA: cliSchema, LOG_LEVEL: 'error' },
      }).then(
        ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    // A schema of its own, empty: the command makes the runtime's tables first, as a start of the runtime does.
    const dryRun = await command(['--from', onapUrl, '--dry-run']);
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toContain('ONAP schema 1801 (dry run: nothing written)');
    expect(dryRun.stdout).toContain('instances: 10 would import');
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM "${cliSchema}".automation_composition`)).toEqual([
      { n: 0 },
    ]);
    const unreachable = await command(['--from', 'postgres://onap:hidden@127.0.0.1:1/clampacm']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('ONAP database postgres://onap@127.0.0.1:1/clampacm cannot be reached');
    expect(unreachable.stderr).not.toContain('hidden');
  });

  it('imports into the embedded database, which the runtime as npm start runs it then serves', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'acm-onap-import-'));
    const { DATABASE_URL: _url, DATABASE_SCHEMA: _schema, ...environment } = process.env;
    let embedded: EmbeddedRuntime | undefined;
    try {
      const { stdout } = await run(
        'node',
        [join(REPO_ROOT, 'dist/apps/runtime-acm/src/cli/import-onap.js'), '--from', onapUrl],
        { env: { ...environment, DATA_DIR: dataDir, LOG_LEVEL: 'error' } },
      );
      expect(stdout).toContain('instances: 10 imported');
      embedded = await startEmbeddedRuntime('onap-import-embedded', { DATA_DIR: dataDir });
      const served = await request(`http://127.0.0.1:${embedded.port}`)
        .get(`${BASE}/compositions/${RESTORED_FROM}/instances/${RESTORED_INSTANCE}`)
        .auth(USER, PASSWORD)
        .expect(200);
      expect((served.body as InstanceView).deployState).toBe('DEPLOYED');
    } finally {
      await embedded?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe('served by the runtime with its simulator participant', () => {
    beforeAll(async () => {
      // ONAP's db-restore rows carry values ONAP encrypted with its default passphrase (compatibility.md).
      const config = loadRuntimeConfig({
        DATABASE_URL: testDatabaseUrl(),
        LOG_LEVEL: 'error',
        SIMULATOR: 'true',
        MSG_ENABLE_ENCRYPTION: 'true',
        MSG_ENCRYPTION_KEY: ONAP_PASSPHRASE,
      });
      ({ app } = await createRuntimeApp(config, { schema }));
      await app.init();
    });

    const http = () => request.agent(app?.getHttpServer() as Parameters<typeof request.agent>[0]).auth(USER, PASSWORD);
    const sim = () => request.agent(app?.getHttpServer() as Parameters<typeof request.agent>[0]).auth(USER, PASSWORD);
    const instance = async (compositionId: string, instanceId: string): Promise<InstanceView> =>
      (await http().get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
        .body as InstanceView;
    const settled = (compositionId: string, instanceId: string, deployState: string, lockState?: string) =>
      eventually(`${instanceId} ${deployState}`, async () => {
        const view = await instance(compositionId, instanceId);
        return view.deployState === deployState &&
          (lockState === undefined || view.lockState === lockState) &&
          view.subState === 'NONE' &&
          view.stateChangeResult === 'NO_ERROR'
          ? view
          : undefined;
      });
    const completions = async (compositionId: string, instanceId: string): Promise<number> =>
      (
        (await http().get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200))
          .body as { events: Array<{ event: string }> }
      ).events.filter((event) => event.event === 'COMPLETED').length;

    it('serves the restored definitions and instances as ONAP stored them', async () => {
      const simple = (await http().get(`${BASE}/compositions/${SIMPLE}`).expect(200)).body as {
        state: string;
        serviceTemplate: { topology_template: { node_templates: Record<string, unknown> } };
      };
      expect(simple.state).toBe('PRIMED');
      expect(Object.keys(simple.serviceTemplate.topology_template.node_templates)).toContain(
        'onap.policy.clamp.ac.element.Sim_AutomationCompositionElement',
      );
      for (const id of [RESTORED_FROM, RESTORED_TO]) {
        const definition = (await http().get(`${BASE}/compositions/${id}`).expect(200)).body as { state: string };
        expect(definition.state).toBe('PRIMED');
      }
      const listed = (await http().get(`${BASE}/compositions`).expect(200)).body as {
        service_templates: Array<{ metadata: { compositionId: string } }>;
      };
      expect(listed.service_templates.map((template) => template.metadata.compositionId).sort()).toEqual(
        first.lines
          .filter((line) => line.kind === 'definition')
          .map((line) => line.id)
          .sort(),
      );
      const states = async (compositionId: string, instanceId: string) => {
        const view = await instance(compositionId, instanceId);
        return [view.name, view.deployState, view.lockState, view.stateChangeResult];
      };
      expect(await states(SIMPLE, SIMPLE_DEPLOYED)).toEqual([
        'Instance-Simple-deployed',
        'DEPLOYED',
        'LOCKED',
        'NO_ERROR',
      ]);
      expect(await states(SIMPLE, SIMPLE_UNLOCKED)).toEqual([
        'Instance-Simple-unlocked',
        'DEPLOYED',
        'UNLOCKED',
        'NO_ERROR',
      ]);
      expect(await states(SIMPLE, SIMPLE_UNDEPLOYED)).toEqual([
        'Instance-Simple-undeployed',
        'UNDEPLOYED',
        'NONE',
        'NO_ERROR',
      ]);
      expect(await states(SIMPLE, SIMPLE_FAILED)).toEqual(['Instance-Simple-failed', 'DEPLOYING', 'NONE', 'FAILED']);
      const restored = await instance(RESTORED_FROM, RESTORED_INSTANCE);
      expect([restored.name, restored.deployState, restored.lockState]).toEqual([
        'Test-Instance-Migration-From',
        'DEPLOYED',
        'LOCKED',
      ]);
      expect(Object.keys(restored.elements)).toHaveLength(3);
    });

    it('sends the participant the restored instances when it registers (SYNC); a sync order is accepted', async () => {
      const known = async (): Promise<string[]> =>
        (
          (await sim().get(`${SIM_API}/instances`).expect(200)).body as {
            automationCompositionList: Array<{ instanceId: string }>;
          }
        ).automationCompositionList.map((item) => item.instanceId);
      await eventually('the simulator to hold the restored instances', async () => {
        const ids = await known();
        return [RESTORED_INSTANCE, SIMPLE_DEPLOYED, SIMPLE_UNLOCKED].every((id) => ids.includes(id)) ? ids : undefined;
      });
      const held = (await sim().get(`${SIM_API}/instances/${RESTORED_INSTANCE}`).expect(200)).body as {
        elements: Record<string, { properties: { baseUrl?: unknown } }>;
      };
      // The ENCRYPTED: value ONAP stored reaches the participant decrypted, as from ONAP's own runtime.
      expect(Object.values(held.elements).map((element) => element.properties.baseUrl)).toEqual([
        expect.stringMatching(/^http:\/\//),
        expect.stringMatching(/^http:\/\//),
        expect.stringMatching(/^http:\/\//),
      ]);
      await http().put(`${BASE}/participants/sync/${SIM_PARTICIPANT}`).expect(202);
      const participant = await http().get(`${BASE}/participants/${SIM_PARTICIPANT}`).expect(200);
      expect(participant.text).toContain('org.onap.policy.clamp.acm.SimAutomationCompositionElement');
    });

    it('reviews the restored instance', async () => {
      const before = await completions(RESTORED_FROM, RESTORED_INSTANCE);
      await http()
        .put(`${BASE}/compositions/${RESTORED_FROM}/instances/${RESTORED_INSTANCE}`)
        .send({ subOrder: 'REVIEW' })
        .expect(202);
      await eventually('the review to complete', async () =>
        (await completions(RESTORED_FROM, RESTORED_INSTANCE)) > before ? true : undefined,
      );
      await settled(RESTORED_FROM, RESTORED_INSTANCE, 'DEPLOYED', 'LOCKED');
    });

    it("migrates the restored instance with ONAP's body", async () => {
      const body = load(
        onapFile('csit-data/ac-instance-migration-restored.yaml').replace(/TEXTPLACEHOLDER/g, 'restored'),
      ) as object;
      await http().post(`${BASE}/compositions/${RESTORED_FROM}/instances`).send(body).expect(200);
      const migrated = await settled(RESTORED_TO, RESTORED_INSTANCE, 'DEPLOYED', 'LOCKED');
      expect(migrated.compositionId).toBe(RESTORED_TO);
      expect(Object.keys(migrated.elements).sort()).toEqual([
        '989c62b3-8918-41b9-a747-d21eb79c6c34',
        '989c62b3-8918-41b9-a747-d21eb79c6c35',
        '989c62b3-8918-41b9-a747-d21eb79c6c37',
      ]);
    });

    it('deploys again an instance whose deploy failed under ONAP', async () => {
      await http()
        .put(`${BASE}/compositions/${SIMPLE_2}/instances/${SIMPLE_2_FAILED}`)
        .send({ deployOrder: 'DEPLOY' })
        .expect(202);
      await settled(SIMPLE_2, SIMPLE_2_FAILED, 'DEPLOYED', 'LOCKED');
    });

    it('undeploys and deletes imported instances, a failed deploy included; the participant forgets them', async () => {
      const gone = [
        [RESTORED_TO, RESTORED_INSTANCE],
        [SIMPLE, SIMPLE_DEPLOYED],
        [SIMPLE, SIMPLE_FAILED],
      ] as const;
      for (const [compositionId, instanceId] of gone) {
        await http()
          .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
          .send({ deployOrder: 'UNDEPLOY' })
          .expect(202);
      }
      for (const [compositionId, instanceId] of gone) {
        await settled(compositionId, instanceId, 'UNDEPLOYED', 'NONE');
        await http().delete(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(202);
      }
      for (const [compositionId, instanceId] of gone) {
        await eventually(`${instanceId} deleted`, async () => {
          const response = await http().get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`);
          return response.status === 404 ? true : undefined;
        });
        await eventually(`the simulator to forget ${instanceId}`, async () => {
          const response = await sim().get(`${SIM_API}/instances/${instanceId}`).expect(200);
          return response.text === '' ? true : undefined;
        });
      }
    });

    it('a later import brings back nothing the runtime deleted or changed since', async () => {
      const again = await importNow();
      const deleted = [RESTORED_INSTANCE, SIMPLE_DEPLOYED, SIMPLE_FAILED];
      expect(
        again.lines.filter((line) => deleted.includes(line.id)).map((line) => [line.outcome, line.detail]),
      ).toEqual(
        deleted.map(() => [
          'kept',
          'deleted through the runtime since it was imported (its history says so); not imported again',
        ]),
      );
      expect(again.lines.filter((line) => line.outcome === 'imported' || line.outcome === 'refused')).toEqual([]);
      for (const [compositionId, instanceId] of [
        [RESTORED_TO, RESTORED_INSTANCE],
        [SIMPLE, SIMPLE_DEPLOYED],
      ]) {
        await http().get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(404);
      }
    });
  });
});
