import { randomUUID } from 'node:crypto';

import { Client, Pool } from 'pg';
import type { PoolClient } from 'pg';

import { testDatabaseUrl } from '../../../test/support/services';
import { createDataSource } from './data-source';
import { isTransientDatabaseError } from './transient-errors';
import { rejectionOf } from './testing/rejection-of';

describe('isTransientDatabaseError on errors of a real PostgreSQL', () => {
  const schema = `transient_${randomUUID().replaceAll('-', '')}`;
  let admin: Client;

  beforeAll(async () => {
    admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}.item (id int PRIMARY KEY, amount int NOT NULL)`);
  });

  afterAll(async () => {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });

  it('is transient when the server refuses connections', async () => {
    const client = new Client({ host: '127.0.0.1', port: 1, user: 'acm', database: 'acm' });
    const error = await rejectionOf(client.connect());
    expect(isTransientDatabaseError(error)).toBe(true);
  });

  it('is transient when the server terminates the connection of a TypeORM query', async () => {
    const dataSource = createDataSource({ url: testDatabaseUrl(), poolSize: 1, schema });
    await dataSource.initialize();
    try {
      const rows = await dataSource.query<Array<{ pid: number }>>('SELECT pg_backend_pid() AS pid');
      const pid = rows[0]?.pid;
      const running = rejectionOf(dataSource.query('SELECT pg_sleep(30)'));
      // Wait until the sleep is running on that backend, then end it as a server shutdown would.
      const deadline = Date.now() + 10_000;
      for (;;) {
        const state = await admin.query<{ query: string }>('SELECT query FROM pg_stat_activity WHERE pid = $1', [pid]);
        if (state.rows[0]?.query.includes('pg_sleep') === true || Date.now() > deadline) {
          break;
        }
      }
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      expect(isTransientDatabaseError(await running)).toBe(true);
    } finally {
      await dataSource.destroy();
    }
  });

  it('is transient when the pool has no connection to give in time', async () => {
    const pool = new Pool({ connectionString: testDatabaseUrl(), max: 1, connectionTimeoutMillis: 100 });
    // Its one connection, taken first: on a loaded machine a new connection may itself take more than 100 ms.
    let held: PoolClient | undefined;
    for (let attempt = 1; held === undefined; attempt += 1) {
      held = await pool.connect().catch((error: unknown) => {
        if (attempt >= 50) {
          throw error;
        }
        return undefined;
      });
    }
    try {
      expect(isTransientDatabaseError(await rejectionOf(pool.connect()))).toBe(true);
    } finally {
      held.release();
      await pool.end();
    }
  });

  it('is transient on a serialization failure (40001)', async () => {
    const first = new Client({ connectionString: testDatabaseUrl() });
    const second = new Client({ connectionString: testDatabaseUrl() });
    await Promise.all([first.connect(), second.connect()]);
    try {
      // Write skew: each reads the sum the other changes; SERIALIZABLE refuses the second commit.
      for (const [client, id] of [
        [first, 1],
        [second, 2],
      ] as const) {
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
        await client.query(`SELECT sum(amount) FROM ${schema}.item`);
        await client.query(`INSERT INTO ${schema}.item (id, amount) VALUES ($1, 1)`, [id]);
      }
      await first.query('COMMIT');
      const error = await rejectionOf(second.query('COMMIT'));
      expect((error as { code?: string }).code).toBe('40001');
      expect(isTransientDatabaseError(error)).toBe(true);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  it('is permanent for a constraint violation and for invalid SQL', async () => {
    const dataSource = createDataSource({ url: testDatabaseUrl(), poolSize: 1, schema });
    await dataSource.initialize();
    try {
      await dataSource.query(`INSERT INTO ${schema}.item (id, amount) VALUES (100, 1)`);
      const duplicate = await rejectionOf(dataSource.query(`INSERT INTO ${schema}.item (id, amount) VALUES (100, 1)`));
      expect(isTransientDatabaseError(duplicate)).toBe(false);
      expect(isTransientDatabaseError(await rejectionOf(dataSource.query('SELEC 1')))).toBe(false);
    } finally {
      await dataSource.destroy();
    }
  });
});
