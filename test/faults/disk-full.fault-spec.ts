/**
 * The database's disk fills up, on the embedded default (DATA_DIR on a small tmpfs) and on a PostgreSQL server whose
 * data directory is on one: writes answer 507 with Retry-After and errorDetails naming the cause, readiness is DOWN
 * with the reason in the health details, acm_storage_write_failures_total counts them and the runtime stays alive;
 * once space is freed, writes work again, readiness is UP, and every write answered 201 before is still there.
 * The tmpfs needs root: where it cannot be mounted the scenario fails, it is not skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { OwnPostgres } from '../support/own-postgres';
import { freePort } from '../support/processes';
import { PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { RuntimeUnderTest } from '../support/runtime-load';
import { eventually } from '../support/scripted-participant';
import { fillDisk, freeDisk, mountTmpfs, unmountTmpfs } from '../support/tmpfs';

const BASE = '/onap/policy/clamp/acm';
const API = `${BASE}/v2`;
/** Writes tried on a full disk before one must have been refused (free room in pages already there goes first). */
const WRITES_UNTIL_FULL = 200;
const DISK_FULL = 'The database cannot write: its disk is full (SQLSTATE 53100); retry once space is freed';

/** Commissions, reads health and metrics of one runtime; counts nothing, each step asserts. */
class Runtime {
  private written = 0;
  readonly kept: string[] = [];

  constructor(
    readonly url: string,
    private readonly name: string,
  ) {}

  api(): request.Agent {
    return request.agent(this.url).auth(USER, PASSWORD);
  }

  /** A new composition (a write of a few kilobytes); remembered when answered 201. */
  async commission(): Promise<request.Response> {
    const yaml = readRepoFile('tosca/examples/sim-single-element.yaml').replace(
      'name: acm.example.SimSingleElement',
      `name: acm.example.DiskFull${this.name}${this.written++}`,
    );
    const response = await this.api().post(`${API}/compositions`).set('Content-Type', 'application/yaml').send(yaml);
    if (response.status === 201) {
      this.kept.push((response.body as { compositionId: string }).compositionId);
    }
    return response;
  }

  async readiness(): Promise<number> {
    return (await request(this.url).get(`${BASE}/actuator/health/readiness`)).status;
  }

  async failuresCounted(): Promise<number> {
    const text = (await this.api().get(`${BASE}/actuator/prometheus`).expect(200)).text;
    const line = text
      .split('\n')
      .find((each) => each.startsWith('acm_storage_write_failures_total{cause="disk-full"}'));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  }
}

/** The scenario, the same on both databases. */
async function fillAndFree(runtime: Runtime, disk: string): Promise<void> {
  expect((await runtime.commission()).status).toBe(201);
  expect(await runtime.readiness()).toBe(200);

  const filled = fillDisk(disk);
  let refused: request.Response | undefined;
  for (let attempt = 0; attempt < WRITES_UNTIL_FULL && refused === undefined; attempt += 1) {
    const response = await runtime.commission();
    if (response.status !== 201) {
      refused = response;
    }
  }
  console.log(`disk filled with ${filled} bytes; ${runtime.kept.length} compositions written before the first refusal`);
  expect({ status: refused?.status, retryAfter: refused?.headers['retry-after'], body: refused?.body }).toEqual({
    status: 507,
    retryAfter: '5',
    body: { errorDetails: DISK_FULL },
  });
  const again = await runtime.commission();
  expect({ status: again.status, body: again.body as unknown }).toEqual({
    status: 507,
    body: { errorDetails: DISK_FULL },
  });
  expect(await runtime.readiness()).toBe(503);
  const health = (await runtime.api().get(`${BASE}/actuator/health`)).body as {
    components: { db: { status: string; details?: { error: string } } };
  };
  expect(health.components.db).toEqual({ status: 'DOWN', details: { error: DISK_FULL } });
  expect(await runtime.failuresCounted()).toBeGreaterThanOrEqual(2);
  expect((await request(runtime.url).get(`${BASE}/actuator/health/liveness`)).status).toBe(200);
  expect((await runtime.api().get(`${API}/compositions/${runtime.kept[0]}`)).status).toBe(200);

  freeDisk(disk);
  await eventually('a write to succeed once space is freed', async () =>
    (await runtime.commission()).status === 201 ? true : undefined,
  );
  expect(await runtime.readiness()).toBe(200);
  for (const compositionId of runtime.kept) {
    expect({ compositionId, status: (await runtime.api().get(`${API}/compositions/${compositionId}`)).status }).toEqual(
      {
        compositionId,
        status: 200,
      },
    );
  }
}

/** A runtime process on a free port with the given database settings, once it answers ready. */
async function startRuntime(
  database: Record<string, string>,
  label: string,
): Promise<{ server: RuntimeUnderTest; runtime: Runtime }> {
  const port = await freePort();
  const server = new RuntimeUnderTest({
    PORT: String(port),
    HOST: '127.0.0.1',
    ...database,
    SIMULATOR: 'false',
    LOG_LEVEL: 'warn',
  });
  const runtime = new Runtime(`http://127.0.0.1:${port}`, label);
  server.start();
  await eventually(
    'the runtime to answer',
    async () => ((await runtime.readiness().catch(() => 0)) === 200 ? true : undefined),
    3000,
  );
  return { server, runtime };
}

describe('fault: the database disk full', () => {
  describe('embedded default, DATA_DIR on a 64 MB tmpfs', () => {
    let dataDir: string;
    let mounted = false;
    let server: RuntimeUnderTest;
    let runtime: Runtime;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'acm-disk-full-'));
      mountTmpfs(dataDir, 64 * 1024 * 1024);
      mounted = true;
      ({ server, runtime } = await startRuntime({ DATA_DIR: dataDir }, 'Embedded'));
    }, 120_000);

    afterAll(async () => {
      await server?.kill();
      if (mounted) {
        unmountTmpfs(dataDir);
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers 507 naming the cause, turns readiness DOWN and counts it, then recovers with nothing lost', async () => {
      await fillAndFree(runtime, dataDir);
      expect(server.running).toBe(true);
    });
  });

  describe('PostgreSQL server, data directory on a 160 MB tmpfs', () => {
    let postgres: OwnPostgres;
    let server: RuntimeUnderTest;
    let runtime: Runtime;

    beforeAll(async () => {
      postgres = new OwnPostgres(await freePort(), { tmpfsBytes: 160 * 1024 * 1024 });
      postgres.init();
      postgres.start();
      ({ server, runtime } = await startRuntime({ DATABASE_URL: postgres.url }, 'Server'));
    }, 120_000);

    afterAll(async () => {
      await server?.kill();
      postgres?.destroy();
    });

    it('answers 507 naming the cause, turns readiness DOWN and counts it, then recovers with nothing lost', async () => {
      await fillAndFree(runtime, postgres.directory);
      expect(server.running).toBe(true);
    });
  });
});
