import { randomUUID } from 'node:crypto';
import { UnitOfWork } from '@acm/domain';
import { MessageBus } from '@acm/messaging';
import { Client } from 'pg';
import { statementKind } from '../bench/sql-counter';
import { OutboxRelay } from '../apps/runtime-acm/src/messaging/outbox-relay';
import type { RuntimeHarness } from './support/runtime-harness';
import { startRuntime } from './support/runtime-harness';
import { eventually } from './support/scripted-participant';
import { testDatabaseUrl } from './support/services';

type Query = (...args: unknown[]) => unknown;

/**
 * The relay deletes what it sent once the broker took it. While one DELETE runs, the rows of the commits that were
 * published meanwhile wait and go in the next DELETE: concurrent commits share a statement, and none is left behind.
 */
describe('outbox relay (PostgreSQL)', () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000' });
    // The start-up pass over the table, done before anything is counted.
    await runtime.app.get(OutboxRelay).flush();
  });

  afterAll(async () => {
    await runtime.close();
  });

  it('deletes the rows of commits published while a DELETE runs with one more DELETE', async () => {
    const commits = 8;
    const topic = `relay-${randomUUID()}`;
    const bus = runtime.app.get(MessageBus);
    const publish = bus.publish.bind(bus);
    let published = 0;
    let allPublished!: () => void;
    const gate = new Promise<void>((resolve) => (allPublished = resolve));
    const spy = jest.spyOn(bus, 'publish').mockImplementation(async (name, records) => {
      await publish(name, records);
      if (name === topic && (published += records.length) === commits) {
        allPublished();
      }
    });
    const prototype = Client.prototype as unknown as { query: Query };
    const original = prototype.query;
    const deletes: string[] = [];
    // The first DELETE waits until every commit was published, so the others queue behind it.
    prototype.query = function (this: unknown, ...args: unknown[]): unknown {
      const config = args[0];
      const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '');
      if (statementKind(text) !== 'DELETE acm_outbox') {
        return original.apply(this, args);
      }
      deletes.push(text);
      return deletes.length === 1 ? gate.then(() => original.apply(this, args)) : original.apply(this, args);
    };
    try {
      const uow = runtime.app.get(UnitOfWork);
      await Promise.all(
        Array.from({ length: commits }, (_, index) =>
          uow.transaction((store) => store.outbox.add([{ topic, key: null, value: `m${index}` }])),
        ),
      );
      await eventually('every row deleted', async () => ((await countRows(runtime.schema)) === 0 ? true : undefined));
    } finally {
      prototype.query = original;
      spy.mockRestore();
    }
    expect(published).toBe(commits);
    expect(deletes).toHaveLength(2);
  });
});

/** Rows left in this runtime's outbox, read on a connection of its own (its statements are not the relay's). */
async function countRows(schema: string): Promise<number> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".acm_outbox`);
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
