import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TypeOrmStore } from '@acm/persistence';
import { Client } from 'pg';
import type { Pool } from 'pg';
import { loadRuntimeConfig } from '../config/runtime.config';
import { EMBEDDED_CONNECT_TIMEOUT_MS, EMBEDDED_POOL_SIZE, openDatabase } from './database';
import { startEmbeddedPostgres } from './embedded-postgres';

// A new DATA_DIR means PGlite's initdb, tens of seconds on a loaded 2-core machine.
jest.setTimeout(240_000);

describe('embedded PostgreSQL (PGlite on a thread of its own)', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'acm-embedded-pg-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function withClient<T>(url: string, body: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await body(client);
    } finally {
      await client.end();
    }
  }

  it('serves SQL over its socket, stops, and keeps what was committed for the next start on DATA_DIR', async () => {
    const first = await startEmbeddedPostgres(dataDir);
    await withClient(first.url, async (client) => {
      await client.query('CREATE TABLE kept (id int PRIMARY KEY, note text)');
      await client.query("INSERT INTO kept VALUES (1, 'committed')");
    });
    await first.stop();
    // A second stop is the same stop, not an error; a stopped server takes no connection.
    await first.stop();
    await expect(withClient(first.url, (client) => client.query('SELECT 1'))).rejects.toThrow();

    const second = await startEmbeddedPostgres(dataDir);
    try {
      const rows = await withClient(second.url, async (client) => (await client.query('SELECT note FROM kept')).rows);
      expect(rows).toEqual([{ note: 'committed' }]);
    } finally {
      await second.stop();
    }
  });

  it('openDatabase migrates and uses an embedded PostgreSQL its caller started already, on one connection', async () => {
    const config = loadRuntimeConfig({ DATA_DIR: dataDir });
    const starting = startEmbeddedPostgres(config.dataDir);
    const database = await openDatabase(config, undefined, starting);
    try {
      expect(database.embedded).toBe(true);
      // Run from the sources there is no build's snapshot: initdb makes the database, and the start says why.
      expect(await starting).toMatchObject({
        origin: 'initdb',
        snapshotProblem: expect.stringMatching(/no readable manifest/),
      });
      // One connection, whose queue may be long under load: waiting for it is bounded by more than an outage's 5 s.
      expect(database.dataSource.options).toMatchObject({
        poolSize: EMBEDDED_POOL_SIZE,
        connectTimeoutMS: EMBEDDED_CONNECT_TIMEOUT_MS,
      });
      const tables = await database.dataSource.query<unknown[]>(
        `SELECT table_name FROM information_schema.tables WHERE table_name = 'automation_composition'`,
      );
      expect(tables).toHaveLength(1);
    } finally {
      await database.close();
    }
  });

  it("runs the engine's named prepared statements with generic plans, again on a new connection to PGlite's session", async () => {
    const database = await openDatabase(loadRuntimeConfig({ DATA_DIR: dataDir }));
    try {
      const { dataSource } = database;
      const store = new TypeOrmStore(dataSource.manager);
      const missing = randomUUID();
      // An instance read is a named statement: PGlite prepares it, and runs it again without parsing it.
      expect(await store.instances.find(missing)).toBeNull();
      expect(await store.instances.find(missing)).toBeNull();
      const prepared = await dataSource.query<Array<{ name: string }>>(
        `SELECT name FROM pg_prepared_statements WHERE name LIKE 'acm\\_%'`,
      );
      expect(prepared).toHaveLength(1);
      // The pool closes its connection (idle for 10 s, or broken); the session behind the socket keeps what it
      // prepared, which the new connection would prepare again under the same name.
      const pool = (dataSource.driver as unknown as { master: Pool }).master;
      const connection = await pool.connect();
      connection.release(true);
      expect(await store.instances.find(missing)).toBeNull();
      // The new connection's setup ran too: PGlite plans each statement once, not for every call's values.
      expect(await dataSource.query('SHOW plan_cache_mode')).toEqual([{ plan_cache_mode: 'force_generic_plan' }]);
      const [plans] = await dataSource.query<Array<{ generic: number; custom: number }>>(
        `SELECT sum(generic_plans)::integer AS generic, sum(custom_plans)::integer AS custom
         FROM pg_prepared_statements WHERE name LIKE 'acm\\_%'`,
      );
      expect(plans).toEqual({ generic: 1, custom: 0 });
    } finally {
      await database.close();
    }
  });
});
