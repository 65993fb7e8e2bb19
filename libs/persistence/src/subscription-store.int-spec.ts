import { randomUUID } from 'node:crypto';

import { TypeOrmSubscriptionStore, createDataSource, migrate } from '@acm/persistence';
import { describeSubscriptionContract } from '@acm/persistence/testing';

import { testDatabaseUrl } from '../../../test/support/services';

describeSubscriptionContract('TypeOrmSubscriptionStore (PostgreSQL)', async () => {
  const schema = `subscription_contract_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 2 });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  await migrate(dataSource);
  return {
    subscriptions: new TypeOrmSubscriptionStore(dataSource),
    async close(): Promise<void> {
      await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await dataSource.destroy();
    },
  };
});
