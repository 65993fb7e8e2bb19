import { randomUUID } from 'node:crypto';

import { TypeOrmObservationStore, TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { definitionOf, describeObservationContract, elementOf, instanceOf } from '@acm/persistence/testing';

import { testDatabaseUrl } from '../../../test/support/services';

describeObservationContract('TypeOrmObservationStore (PostgreSQL)', async () => {
  const schema = `observation_contract_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 2 });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  await migrate(dataSource);
  const unitOfWork = new TypeOrmUnitOfWork(dataSource);
  const definition = definitionOf();
  await unitOfWork.transaction((store) => store.definitions.insert(definition));
  return {
    observations: new TypeOrmObservationStore(dataSource),
    async instance(count: number) {
      const elements = Array.from({ length: count }, () => elementOf(randomUUID()));
      const instance = instanceOf(definition.compositionId, elements);
      await unitOfWork.transaction((store) => store.instances.insert(instance));
      return { instanceId: instance.instanceId, elementIds: elements.map((element) => element.id) };
    },
    events: (subjectId: string) => unitOfWork.read((store) => store.events.list(subjectId, 100)),
    async close(): Promise<void> {
      await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await dataSource.destroy();
    },
  };
});
