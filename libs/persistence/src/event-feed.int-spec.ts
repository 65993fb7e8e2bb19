import { randomUUID } from 'node:crypto';
import type { FeedEvent, OperationEvent } from '@acm/domain';
import { TypeOrmEventFeed, TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { Client } from 'pg';
import { testDatabaseUrl } from '../../../test/support/services';

/** The feed numbers events in commit order: a reader following positions misses none and sees none twice. */
describe('TypeOrmEventFeed (PostgreSQL)', () => {
  const schema = `event_feed_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 4 });
  let unitOfWork: TypeOrmUnitOfWork;
  let feed: TypeOrmEventFeed;

  beforeAll(async () => {
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await migrate(dataSource);
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
    feed = new TypeOrmEventFeed(dataSource);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  const event = (subjectId: string, detail: Record<string, unknown> = {}): OperationEvent =>
    ({
      subjectId,
      operationId: null,
      event: 'ORDERED',
      detail: { order: 'DEPLOY', ...detail },
      actor: { kind: 'runtime' },
      at: 1_765_000_000_000,
    }) as OperationEvent;

  /** Follows the feed from `cursor` as a reader does: stamp, then read what follows. */
  async function follow(cursor: number): Promise<FeedEvent[]> {
    await feed.stamp();
    return feed.after(cursor, 1000);
  }

  it('gives a transaction that commits late a position after what committed before it', async () => {
    const start = await feed.head();
    const subject = randomUUID();
    // `early` takes its sequence first and commits last: a reader following sequences would skip it.
    let releaseEarly = (): void => undefined;
    const lateCommitted = new Promise<void>((resolve) => (releaseEarly = resolve));
    let appendedEarly = (): void => undefined;
    const earlyAppended = new Promise<void>((resolve) => (appendedEarly = resolve));
    const early = unitOfWork.transaction(async (store) => {
      await store.events.append([event(subject, { n: 1 })]);
      appendedEarly();
      await lateCommitted;
    });
    await earlyAppended;
    await unitOfWork.transaction((store) => store.events.append([event(subject, { n: 2 })]));
    const first = await follow(start);
    expect(first.map((item) => item.detail)).toEqual([{ order: 'DEPLOY', n: 2 }]);
    releaseEarly();
    await early;
    const second = await follow(first[first.length - 1]!.position);
    expect(second.map((item) => item.detail)).toEqual([{ order: 'DEPLOY', n: 1 }]);
    expect(second[0]!.position).toBeGreaterThan(first[0]!.position);
  });

  it('numbers every event once when stampers and writers race, and the reader equals the history', async () => {
    const start = await feed.head();
    const subject = randomUUID();
    const writes = Array.from({ length: 40 }, (_, index) =>
      unitOfWork.transaction((store) =>
        store.events.append([event(subject, { n: index }), event(subject, { n: index })]),
      ),
    );
    const seen: FeedEvent[] = [];
    let cursor = start;
    const reader = async (): Promise<void> => {
      for (let round = 0; round < 20; round += 1) {
        const next = await follow(cursor);
        seen.push(...next);
        cursor = next[next.length - 1]?.position ?? cursor;
      }
    };
    await Promise.all([...writes, reader(), feed.stamp(), feed.stamp()]);
    for (;;) {
      const next = await follow(cursor);
      if (next.length === 0) {
        break;
      }
      seen.push(...next);
      cursor = next[next.length - 1]!.position;
    }
    const history = await unitOfWork.transaction((store) => store.events.list(subject, 1000));
    expect(seen.map((item) => item.sequence).sort((a, b) => a - b)).toEqual(history.map((item) => item.sequence));
    expect(new Set(seen.map((item) => item.position)).size).toBe(80);
    expect(await feed.head()).toBe(cursor);
  });

  it('wakes listeners on the schema-named channel when an event is written', async () => {
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    const payloads: string[] = [];
    client.on('notification', (message) => payloads.push(message.payload ?? ''));
    await client.query('LISTEN acm_event_feed');
    await unitOfWork.transaction((store) => store.events.append([event(randomUUID())]));
    for (let tries = 0; tries < 100 && !payloads.includes(schema); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.end();
    expect(payloads).toContain(schema);
  });

  it('answers no definition for an event whose subject is not known', async () => {
    const start = await feed.head();
    const subject = randomUUID();
    await unitOfWork.transaction((store) => store.events.append([event(subject)]));
    const read = (await follow(start)).find((item) => item.subjectId === subject);
    expect(read).toMatchObject({ subjectId: subject, compositionId: null, event: 'ORDERED' });
  });
});
