import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { testDatabaseUrl } from '../../../test/support/services';
import { eventually } from '../../../test/support/scripted-participant';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { QUERY_DEADLINE_MARGIN_MS, createDataSource } from './data-source';
import { describeStoreFailure } from './database-unavailable';
import { rejectionOf } from './testing/rejection-of';

/** Short, so the scenarios stay quick; the runtime's default is 5 s. */
const STATEMENT_MS = 1000;

describe('statement deadlines on a PostgreSQL server', () => {
  const schema = `deadline_${randomUUID().replaceAll('-', '')}`;
  const target = new URL(testDatabaseUrl());
  let admin: Client;
  let proxy: TcpProxy;
  let dataSource: DataSource;

  const backendAlive = async (pid: number): Promise<boolean> =>
    (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 1;

  beforeAll(async () => {
    admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}.item (id text PRIMARY KEY)`);
    proxy = new TcpProxy(target.hostname, Number(target.port));
    const port = await proxy.start();
    dataSource = createDataSource({
      url: testDatabaseUrl().replace(`:${target.port}/`, `:${port}/`),
      schema,
      poolSize: 2,
      statementTimeoutMs: STATEMENT_MS,
    });
    await dataSource.initialize();
  });

  afterEach(() => {
    proxy.heal();
    proxy.delay(0);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await proxy.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });

  it('has the server cancel a statement that runs past the deadline, as a retryable failure', async () => {
    const error = await rejectionOf(dataSource.query('SELECT pg_sleep(30)'));
    expect(describeStoreFailure(error)).toMatchObject({ cause: 'deadline', sqlstate: '57014', storageFull: false });
    await expect(dataSource.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
  });

  it('gives up on a silent server a margin after the deadline and never reuses that connection', async () => {
    const [{ pid }] = await dataSource.query<[{ pid: number }]>('SELECT pg_backend_pid() AS pid');
    proxy.blackhole();
    const started = Date.now();
    const error = await rejectionOf(dataSource.query('SELECT 1'));
    const waited = Date.now() - started;
    expect(describeStoreFailure(error)).toMatchObject({ cause: 'deadline', storageFull: false });
    // Generous slack: the machine is shared; without a deadline this waits for as long as the blackhole lasts.
    expect(waited).toBeLessThan((STATEMENT_MS + QUERY_DEADLINE_MARGIN_MS) * 5);
    proxy.heal();
    const pids = new Set<number>();
    for (let round = 0; round < 4; round += 1) {
      const [row] = await dataSource.query<[{ pid: number }]>('SELECT pg_backend_pid() AS pid');
      pids.add(row.pid);
    }
    expect(pids.has(pid)).toBe(false);
  });

  it('never applies a transaction whose COMMIT the network held back past the deadline', async () => {
    const id = randomUUID();
    let pid = 0;
    const error = await rejectionOf(
      dataSource.transaction(async (manager) => {
        const [row] = await manager.query<[{ pid: number }]>('SELECT pg_backend_pid() AS pid');
        pid = row.pid;
        await manager.query(`INSERT INTO item (id) VALUES ($1)`, [id]);
        // The COMMIT goes into the blackhole: the server never hears it while the client waits.
        proxy.blackhole();
      }),
    );
    expect(describeStoreFailure(error)?.message).toContain('the order was applied only if its history says so');
    // The server ends the session idle in its transaction; only then does the held COMMIT reach it.
    // 1,500 polls of 20 ms: up to 30 s, far past the session's 1 s idle-in-transaction timeout.
    await eventually(
      'the server to end the idle session',
      async () => ((await backendAlive(pid)) ? undefined : true),
      1500,
    );
    proxy.heal();
    const stored = await admin.query(`SELECT id FROM ${schema}.item WHERE id = $1`, [id]);
    expect(stored.rows).toEqual([]);
    await expect(dataSource.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
  });

  it('answers through a slow network within the deadline', async () => {
    proxy.delay(100);
    await expect(dataSource.query('SELECT 2 AS two')).resolves.toEqual([{ two: 2 }]);
  });
});
