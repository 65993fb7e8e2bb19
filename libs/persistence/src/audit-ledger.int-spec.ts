import { randomUUID } from 'node:crypto';

import { TypeOrmAuditLedger, TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { describeAuditContract } from '@acm/persistence/testing';

import { testDatabaseUrl } from '../../../test/support/services';

describeAuditContract('TypeOrmAuditLedger (PostgreSQL)', async () => {
  const schema = `audit_contract_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 4 });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  await migrate(dataSource);
  return {
    unitOfWork: new TypeOrmUnitOfWork(dataSource),
    audit: new TypeOrmAuditLedger(dataSource),
    async close(): Promise<void> {
      await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await dataSource.destroy();
    },
  };
});
