import { randomUUID } from 'node:crypto';
import type { OperationEvent, StoredEvent } from '@acm/domain';
import { TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { testDatabaseUrl } from '../../../test/support/services';

/** The live event stream's source: history rows reach listeners after their commit, and only then. */
describe('TypeOrmUnitOfWork.onEventsCommitted (PostgreSQL)', () => {
  const schema = `events_committed_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 4 });
  let unitOfWork: TypeOrmUnitOfWork;
  const published: StoredEvent[][] = [];

  beforeAll(async () => {
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await migrate(dataSource);
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
    unitOfWork.onEventsCommitted((events) => published.push([...events]));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  beforeEach(() => {
    published.length = 0;
  });

  const subjectId = randomUUID();
  const event = (name: string): OperationEvent => ({
    subjectId,
    operationId: null,
    event: 'PROPERTY_PROBLEMS',
    detail: { order: name, mode: 'warn', problems: [] },
    actor: { kind: 'request', user: 'runtimeUser', requestId: name },
    at: Date.UTC(2026, 11, 1, 10, 0, 0, 123),
  });

  it('publishes the stored rows, with their sequences in order, once the transaction committed', async () => {
    let seenInside = -1;
    await unitOfWork.transaction(async (store) => {
      await store.events.append([event('ORDERED'), event('PHASE_STARTED')]);
      await store.events.append([event('PHASE_COMPLETED')]);
      seenInside = published.length;
    });

    expect(seenInside).toBe(0);
    expect(published).toHaveLength(1);
    const stored = await unitOfWork.read((store) => store.events.list(subjectId, 100));
    expect(published[0]).toEqual(stored.slice(-3));
    expect(published[0]!.map((item) => item.actor)).toEqual(
      ['ORDERED', 'PHASE_STARTED', 'PHASE_COMPLETED'].map((name) => ({
        kind: 'request',
        user: 'runtimeUser',
        requestId: name,
      })),
    );
    expect(published[0]![0]!.at).toBe(Date.UTC(2026, 11, 1, 10, 0, 0, 123));
  });

  it('publishes nothing for a transaction that rolled back', async () => {
    await expect(
      unitOfWork.transaction(async (store) => {
        await store.events.append([event('LOST')]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');

    expect(published).toEqual([]);
    const stored = await unitOfWork.read((store) => store.events.list(subjectId, 100));
    expect(stored.map((item) => item.actor.kind === 'request' && item.actor.requestId)).not.toContain('LOST');
  });

  it('publishes an append outside a transaction at once, as it commits on its own', async () => {
    await unitOfWork.read((store) => store.events.append([event('ALONE')]));

    expect(
      published.map((batch) => batch.map((item) => (item.actor.kind === 'request' ? item.actor.requestId : null))),
    ).toEqual([['ALONE']]);
  });
});
