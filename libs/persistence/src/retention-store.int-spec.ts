import { randomUUID } from 'node:crypto';

import { TypeOrmRetentionStore, TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { describeRetentionContract } from '@acm/persistence/testing';

import { testDatabaseUrl } from '../../../test/support/services';

describeRetentionContract('TypeOrmRetentionStore (PostgreSQL)', async () => {
  const schema = `retention_contract_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 4 });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  await migrate(dataSource);
  return {
    unitOfWork: new TypeOrmUnitOfWork(dataSource),
    retention: new TypeOrmRetentionStore(dataSource),
    async close(): Promise<void> {
      await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await dataSource.destroy();
    },
  };
});
