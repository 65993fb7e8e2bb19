import { randomUUID } from 'node:crypto';

import { TypeOrmWindowStore, createDataSource, migrate } from '@acm/persistence';
import { describeWindowContract } from '@acm/persistence/testing';

import { testDatabaseUrl } from '../../../test/support/services';

describeWindowContract('TypeOrmWindowStore (PostgreSQL)', async () => {
  const schema = `window_contract_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 2 });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  await migrate(dataSource);
  return {
    windows: new TypeOrmWindowStore(dataSource),
    async close(): Promise<void> {
      await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await dataSource.destroy();
    },
  };
});
