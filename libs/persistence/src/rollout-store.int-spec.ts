import { randomUUID } from 'node:crypto';

import { TypeOrmRolloutStore, TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { describeRolloutContract } from '@acm/persistence/testing';

import { testDatabaseUrl } from '../../../test/support/services';

describeRolloutContract('TypeOrmRolloutStore (PostgreSQL)', async () => {
  const schema = `rollout_contract_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 4 });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  await migrate(dataSource);
  return {
    unitOfWork: new TypeOrmUnitOfWork(dataSource),
    rollouts: new TypeOrmRolloutStore(dataSource),
    async close(): Promise<void> {
      await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await dataSource.destroy();
    },
  };
});
