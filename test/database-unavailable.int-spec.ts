import { isDatabaseUnavailable } from '@acm/persistence';
import { Client } from 'pg';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, startRuntime } from './support/runtime-harness';
import { testDatabaseUrl } from './support/services';
import { TcpProxy } from './support/tcp-proxy';

/** Polls until the check holds, with a bounded deadline (no fixed sleeps). */
async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result !== undefined) {
      return result;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('database unavailable', () => {
  const target = new URL(testDatabaseUrl());

  describe(isDatabaseUnavailable.name, () => {
    it('recognises a refused connection, a terminated session and nothing else', async () => {
      const proxy = new TcpProxy(target.hostname, Number(target.port));
      const port = await proxy.start();
      proxy.cutOff();
      const refused = new Client({ connectionString: testDatabaseUrl().replace(`:${target.port}/`, `:${port}/`) });
      const refusal = await refused.connect().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isDatabaseUnavailable(refusal)).toBe(true);
      await proxy.close();

      const victim = new Client({ connectionString: testDatabaseUrl() });
      victim.on('error', () => undefined);
      await victim.connect();
      const killer = new Client({ connectionString: testDatabaseUrl() });
      await killer.connect();
      const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const syntax = await victim.query('SELEKT 1').then(
        () => undefined,
        (error: unknown) => error,
      );
      await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      const terminated = await victim.query('SELECT 1').then(
        () => undefined,
        (error: unknown) => error,
      );
      await killer.end();
      await victim.end().catch(() => undefined);

      expect(isDatabaseUnavailable(terminated)).toBe(true);
      expect(isDatabaseUnavailable(syntax)).toBe(false);
      expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
    });
  });

  describe('REST while the database is unreachable', () => {
    let proxy: TcpProxy;
    let runtime: RuntimeHarness;

    beforeAll(async () => {
      proxy = new TcpProxy(target.hostname, Number(target.port));
      const port = await proxy.start();
      runtime = await startRuntime({
        DATABASE_URL: testDatabaseUrl().replace(`:${target.port}/`, `:${port}/`),
      });
    });

    afterAll(async () => {
      proxy.restore();
      await runtime.close();
      await proxy.close();
    });

    it('answers 503 with errorDetails and Retry-After, then 200 once the database is back', async () => {
      await runtime.http.get(`${BASE}/compositions`).expect(200);
      proxy.cutOff();

      for (const path of [`${BASE}/compositions`, `${BASE}/instances`, `${BASE}/participants`]) {
        const response = await runtime.http.get(path);
        expect(response.status).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(response.body).toEqual({ errorDetails: 'The database is not reachable; retry later' });
        expect(response.text.endsWith('\n')).toBe(true);
      }

      proxy.restore();
      await eventually(async () => {
        const response = await runtime.http.get(`${BASE}/compositions`);
        return response.status === 200 ? response : undefined;
      }, 'the runtime to reach the database again');
    });
  });
});
