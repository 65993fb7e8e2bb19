import { randomUUID } from 'node:crypto';

import type { OutboxRecord } from '@acm/domain';
import { TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { describeStoreContract } from '@acm/persistence/testing';

import { testDatabaseUrl } from '../../../test/support/services';

describeStoreContract('TypeOrmUnitOfWork (PostgreSQL)', async () => {
  const schema = `store_contract_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 10 });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  await migrate(dataSource);
  return {
    unitOfWork: new TypeOrmUnitOfWork(dataSource),
    async queuedOutbox(): Promise<OutboxRecord[]> {
      const rows: Array<{
        topic: string;
        message_key: string | null;
        payload: string;
        trace_context: Record<string, string> | null;
      }> = await dataSource.query(`SELECT topic, message_key, payload, trace_context FROM acm_outbox ORDER BY id`);
      return rows.map((row) => ({
        topic: row.topic,
        key: row.message_key,
        value: row.payload,
        ...(row.trace_context === null ? {} : { headers: row.trace_context }),
      }));
    },
    async close(): Promise<void> {
      await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await dataSource.destroy();
    },
  };
});
