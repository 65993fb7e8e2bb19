import { randomUUID } from 'node:crypto';
import { InMemoryMessageBus } from '@acm/messaging';
import type { OutgoingRecord } from '@acm/messaging';
import { TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { testDatabaseUrl } from '../../../../test/support/services';
import { loadRuntimeConfig } from '../config/runtime.config';
import { EngineMetrics } from '../engine/engine-metrics';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { SensitiveValues } from '../security/sensitive-values';
import { OutboxRelay } from './outbox-relay';

/** A bus whose publishes are recorded and can be held until the test lets them go. */
class HeldBus extends InMemoryMessageBus {
  readonly requests: string[][] = [];
  private gate: Promise<void> | null = null;
  private open: () => void = () => undefined;

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.gate = null;
    this.open();
  }

  override async publish(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    this.requests.push(records.map((record) => record.value));
    await this.gate;
    return super.publish(topic, records);
  }
}

async function until(what: string, condition: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The relay's path for committed rows, on PostgreSQL: one publish at a time, what waits goes together. */
describe('OutboxRelay (PostgreSQL)', () => {
  const schema = `outbox_relay_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 4 });
  let unitOfWork: TypeOrmUnitOfWork;
  const bus = new HeldBus({ logger: () => undefined });
  let relay: OutboxRelay;

  beforeAll(async () => {
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await migrate(dataSource);
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
    const config = loadRuntimeConfig({});
    relay = new OutboxRelay(unitOfWork, bus, new EngineMetrics(new RuntimeMetrics()), new SensitiveValues(config));
    relay.onApplicationBootstrap();
    await relay.flush();
  });

  afterAll(async () => {
    await relay.stop();
    await bus.close();
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  const commit = (value: string): Promise<void> =>
    unitOfWork.transaction((store) => store.outbox.add([{ topic: 'acm-relay-test', key: null, value }]));
  const rowsLeft = async (): Promise<number> =>
    Number((await dataSource.query(`SELECT count(*) AS n FROM acm_outbox`))[0].n);

  it('sends the rows of commits that land during a publish together, in commit order, and deletes them', async () => {
    const received: string[] = [];
    const subscription = await bus.subscribe({
      topic: 'acm-relay-test',
      groupId: 'relay-test',
      handler: (record) => {
        received.push(record.value);
        return Promise.resolve();
      },
    });
    bus.hold();
    await commit('first');
    await until('the first publish to start', () => bus.requests.length === 1);
    await commit('second');
    await commit('third');
    await commit('fourth');
    expect(bus.requests).toEqual([['first']]);

    bus.release();
    await until('every row to be delivered and deleted', async () => received.length === 4 && (await rowsLeft()) === 0);

    expect(bus.requests).toEqual([['first'], ['second', 'third', 'fourth']]);
    expect(received).toEqual(['first', 'second', 'third', 'fourth']);
    await subscription.close();
  });

  it('deletes the rows sent while a delete is in flight with one statement', async () => {
    const received: string[] = [];
    const subscription = await bus.subscribe({
      topic: 'acm-relay-test',
      groupId: 'relay-delete-test',
      handler: (record) => {
        received.push(record.value);
        return Promise.resolve();
      },
    });
    const deleted: string[][] = [];
    let releaseDelete: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (releaseDelete = resolve));
    const deleteOutbox = unitOfWork.deleteOutbox.bind(unitOfWork);
    const spy = jest.spyOn(unitOfWork, 'deleteOutbox').mockImplementation(async (ids) => {
      deleted.push([...ids]);
      if (deleted.length === 1) {
        await held;
      }
      return deleteOutbox(ids);
    });
    try {
      await commit('one');
      await until('the first delete to start', () => deleted.length === 1);
      await commit('two');
      await commit('three');
      await commit('four');
      await until('every row to be delivered', () =>
        ['one', 'two', 'three', 'four'].every((value) => received.includes(value)),
      );
      expect(deleted).toHaveLength(1);

      releaseDelete();
      await until('every row to be deleted', async () => (await rowsLeft()) === 0);

      expect(deleted.map((ids) => ids.length)).toEqual([1, 3]);
    } finally {
      spy.mockRestore();
      await subscription.close();
    }
  });
});
