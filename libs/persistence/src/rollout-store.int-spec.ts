import { randomUUID } from 'node:crypto';

import { decideRollout, isRefusal, newRollout, parseRolloutRequest } from '@acm/domain';
import type { StoredRollout } from '@acm/domain';
import { TypeOrmRolloutStore, TypeOrmUnitOfWork, createDataSource, migrate } from '@acm/persistence';
import { RolloutInstances1765840000000 } from './migrations/1765840000000-RolloutInstances';
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

describe('TypeOrmRolloutStore: a step writes what it changed', () => {
  const schema = `rollout_rows_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 2 });
  let store: TypeOrmRolloutStore;

  beforeAll(async () => {
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await migrate(dataSource);
    store = new TypeOrmRolloutStore(dataSource);
  }, 60_000);

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  /** Each instance row's transaction id: a row a save rewrote gets the saving transaction's. */
  const rowVersions = async (rolloutId: string): Promise<Map<string, string>> => {
    const rows: Array<{ instance_id: string; version: string }> = await dataSource.query(
      `SELECT instance_id, xmin::text AS version FROM acm_rollout_instance WHERE rollout_id = $1`,
      [rolloutId],
    );
    return new Map(rows.map((row) => [row.instance_id, row.version]));
  };

  it('moves the instances and tracking of a rollout saved as one document into rows, and back', async () => {
    const instanceIds = [randomUUID(), randomUUID(), randomUUID()];
    const request = parseRolloutRequest({
      order: 'DEPLOY',
      compositionId: randomUUID(),
      instanceIds,
      strategy: { batchSize: 2 },
    });
    const rollout = newRollout(randomUUID(), request, instanceIds, 1_000);
    const ordered: StoredRollout = {
      rollout: { ...rollout, instances: rollout.instances.map((item) => ({ ...item, state: 'ORDERED' })) },
      tracking: { [instanceIds[1]!]: { baselineOperationId: null, operationId: randomUUID() } },
    };
    const runner = dataSource.createQueryRunner();
    const migration = new RolloutInstances1765840000000();
    try {
      await migration.down(runner);
      // A rollout as the previous release wrote it: one document with its instances and tracking.
      await runner.query(
        `INSERT INTO acm_rollout (rollout_id, state, created_at, body) VALUES ($1, 'RUNNING', 1000, $2::jsonb)`,
        [rollout.rolloutId, JSON.stringify(ordered)],
      );
      await migration.up(runner);
      expect(await store.find(rollout.rolloutId)).toEqual(ordered);
      await migration.down(runner);
      const [row] = (await runner.query(`SELECT body FROM acm_rollout WHERE rollout_id = $1`, [rollout.rolloutId])) as [
        { body: StoredRollout },
      ];
      expect(row.body).toEqual(ordered);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
  });

  it("reads another replica's save at the next lease, and its own without reading the rows again", async () => {
    const other = new TypeOrmRolloutStore(dataSource);
    const instanceIds = [randomUUID(), randomUUID()];
    const request = parseRolloutRequest({
      order: 'DEPLOY',
      compositionId: randomUUID(),
      instanceIds,
      strategy: { batchSize: 1 },
    });
    const created: StoredRollout = { rollout: newRollout(randomUUID(), request, instanceIds, 1_000), tracking: {} };
    const rolloutId = created.rollout.rolloutId;
    expect(await store.create(created)).toBeNull();
    const [here, there] = [randomUUID(), randomUUID()];

    const first = (await store.lease(rolloutId, here, 1_000, 5_000))!;
    const paused: StoredRollout = { ...first, rollout: { ...first.rollout, state: 'PAUSED' } };
    expect(await store.save(paused, here, [], first)).toBe(true);
    await store.release(rolloutId, here);

    const seen = (await other.lease(rolloutId, there, 2_000, 6_000))!;
    expect(seen).toEqual(paused);
    const ordered: StoredRollout = {
      rollout: {
        ...seen.rollout,
        state: 'RUNNING',
        instances: seen.rollout.instances.map((item, index) => (index === 0 ? { ...item, state: 'ORDERED' } : item)),
      },
      tracking: { [instanceIds[0]!]: { baselineOperationId: null, operationId: null } },
    };
    expect(await other.save(ordered, there, [], seen)).toBe(true);
    await other.release(rolloutId, there);

    // The first store saved last as `paused`: its lease must read the other's save, not reuse its own.
    expect(await store.lease(rolloutId, here, 3_000, 7_000)).toEqual(ordered);
  });

  it('rewrites only the rows of the instances a step changed, not the fleet', async () => {
    const instanceIds = Array.from({ length: 200 }, () => randomUUID());
    const request = parseRolloutRequest({
      order: 'DEPLOY',
      compositionId: randomUUID(),
      instanceIds,
      strategy: { batchSize: 10 },
    });
    const created: StoredRollout = { rollout: newRollout(randomUUID(), request, instanceIds, 1_000), tracking: {} };
    const rolloutId = created.rollout.rolloutId;
    expect(await store.create(created)).toBeNull();
    const driver = randomUUID();
    const leased = (await store.lease(rolloutId, driver, 1_000, 60_000))!;
    const before = await rowVersions(rolloutId);
    expect(before.size).toBe(200);

    const step = decideRollout(leased.rollout, { kind: 'START' }, 2_000);
    if (isRefusal(step)) {
      throw new Error(step.message);
    }
    const tracking = Object.fromEntries(
      step.orders.map((instanceId) => [instanceId, { baselineOperationId: null, operationId: null }]),
    );
    const next: StoredRollout = { rollout: step.rollout, tracking };
    expect(await store.save(next, driver, [], leased)).toBe(true);

    const after = await rowVersions(rolloutId);
    const rewritten = instanceIds.filter((instanceId) => after.get(instanceId) !== before.get(instanceId));
    expect(step.orders).toHaveLength(10);
    expect(rewritten.sort()).toEqual([...step.orders].sort());
    expect(await store.find(rolloutId)).toEqual(next);
  });
});
