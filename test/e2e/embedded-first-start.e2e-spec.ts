import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/processes';
import { AcmClient, RuntimeUnderTest } from '../support/runtime-load';

const DEFINITION = 'tosca/examples/sim-single-element.yaml';
/** Generous bounds for a loaded machine: a start that falls back to initdb takes tens of seconds there. */
const START_DEADLINE_MS = 90_000;
const SETTLE_DEADLINE_MS = 90_000;
const EXIT_DEADLINE_MS = 20_000;

describe("the embedded default's first start on a new DATA_DIR (the built tree, as npm start runs it)", () => {
  let dataDir: string;
  let runtime: RuntimeUnderTest;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'acm-first-start-'));
  });

  afterEach(async () => {
    await runtime.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("starts from the build's snapshot, serves, and keeps what it was given across a restart", async () => {
    const port = await freePort();
    const client = new AcmClient(port);
    runtime = new RuntimeUnderTest({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'log' });
    runtime.start();
    await client.waitUntilServing(START_DEADLINE_MS);
    expect(runtime.log).toContain(`Embedded PostgreSQL (PGlite) in ${dataDir} (new, from the build's snapshot)`);
    expect(runtime.log).not.toContain('snapshot of a new database was not used');
    expect(existsSync(join(dataDir, 'pglite.creating'))).toBe(false);
    const compositionId = await client.commissionAndPrime(DEFINITION, SETTLE_DEADLINE_MS);
    await runtime.signal('SIGTERM', EXIT_DEADLINE_MS);

    const before = runtime.log.length;
    runtime.start();
    await client.waitUntilServing(START_DEADLINE_MS);
    const restart = runtime.log.slice(before);
    expect(restart).toContain(`Embedded PostgreSQL (PGlite) in ${dataDir}; set DATABASE_URL`);
    const definition = await client.call('GET', `/compositions/${compositionId}`);
    expect(definition.status).toBe(200);
    expect(definition.body).toMatchObject({ state: 'PRIMED' });
  }, 300_000);
});
