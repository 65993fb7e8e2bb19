import { Client } from 'pg';

import { testDatabaseUrl } from './support/services';

describe('PostgreSQL test service', () => {
  it('answers on TEST_DATABASE_URL and runs PostgreSQL 15 or newer', async () => {
    const client = new Client({ connectionString: testDatabaseUrl(), connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      const result = await client.query<{ server_version: string }>('SHOW server_version');
      const version = result.rows[0]?.server_version ?? '';
      expect(Number.parseInt(version, 10)).toBeGreaterThanOrEqual(15);

      const one = await client.query<{ one: number }>('SELECT 1 AS one');
      expect(one.rows[0]?.one).toBe(1);
    } finally {
      await client.end();
    }
  }, 30_000);
});
