import { randomUUID } from 'node:crypto';

import type { AutomationComposition, InstanceElement } from '@acm/domain';
import { Client } from 'pg';
import type { Pool } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { QueryFailedError } from 'typeorm';

import { eventually } from '../../../test/support/scripted-participant';
import { testDatabaseUrl } from '../../../test/support/services';
import { TypeOrmUnitOfWork, createDataSource, migrate } from './data-source';
import { TypeOrmStore } from './typeorm-store';
import { preparedStatement, runPrepared } from './prepared-query';
import { definitionOf, elementOf, instanceOf, operationOf } from './testing';
import { isTransientDatabaseError } from './transient-errors';
import { rejectionOf } from './testing/rejection-of';

interface Listed {
  name: string;
  statement: string;
  plans: number;
  generic: number;
  custom: number;
}

/**
 * The named statements prepared on the connection `manager` uses, with how often each was planned or reused
 * (`plans`), and of those how often with its generic plan and how often with a plan for the call's values.
 */
async function preparedOn(manager: EntityManager): Promise<Listed[]> {
  return manager.query<Listed[]>(
    `SELECT name, statement, (generic_plans + custom_plans)::integer AS plans, generic_plans::integer AS generic,
       custom_plans::integer AS custom
     FROM pg_prepared_statements WHERE name LIKE 'acm\\_%' ORDER BY name`,
  );
}

const kindOf = (statement: string): string => /^\/\*\s*([^*]+?)\s*\*\//.exec(statement)?.[1] ?? statement.slice(0, 6);

describe('named prepared statements (PostgreSQL)', () => {
  const schema = `prepared_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  let dataSource: DataSource;
  let admin: Client;

  beforeAll(async () => {
    // One connection: every statement of the store and every look at pg_prepared_statements share it.
    dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 1 });
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await migrate(dataSource);
    await dataSource.query(`CREATE TABLE probe (id integer PRIMARY KEY, amount integer NOT NULL)`);
    admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
  });

  afterAll(async () => {
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
    await dataSource.destroy();
  });

  it("prepares an ACK's lock-and-load, readContext and saveAll once per connection, then only executes them", async () => {
    const unitOfWork = new TypeOrmUnitOfWork(dataSource);
    const now = 1_764_000_000_000;
    const definition = definitionOf({ state: 'PRIMED', elementStateMap: {} });
    const element = elementOf(randomUUID(), { deployState: 'DEPLOYING', properties: { timeoutMs: 1000 } });
    const instance = instanceOf(definition.compositionId, [element], {
      deployState: 'DEPLOYING',
      phase: 0,
      lastMsg: now,
    });
    const operation = operationOf(instance.instanceId, { startedAt: now, deadlineAt: now + 60_000 });
    const messageId = randomUUID();
    await unitOfWork.transaction(async (store) => {
      await store.definitions.insert(definition);
      await store.instances.insert(instance);
      await store.operations.insert(operation);
      await store.operations.recordMessage(messageId, operation.operationId, 0, [element.id]);
    });
    const ack = (deployState: InstanceElement['deployState']): Promise<AutomationComposition> =>
      unitOfWork.transaction(async (store) => {
        const loaded = (await store.instances.findManyForUpdate([instance.instanceId])).get(instance.instanceId);
        const context = await store.readContext({
          runningOf: [instance.instanceId],
          definitions: [definition.compositionId],
          messages: [messageId],
          participants: true,
        });
        expect(context.running.get(instance.instanceId)).toEqual(operation);
        expect(context.definitions.get(definition.compositionId)?.value).toEqual(definition);
        expect(context.answered.get(messageId)).toEqual({ operation, phase: 0 });
        const changed = {
          ...loaded!.value,
          elements: { [element.id]: { ...loaded!.value.elements[element.id]!, deployState } },
        };
        await store.saveAll({
          instances: [{ instance: changed, expectedVersion: loaded!.version }],
          operations: [],
          messages: [],
          answers: [{ messageId, participantId: element.participantId!, replicaId: randomUUID() }],
          outbox: [],
          events: [],
        });
        return changed;
      });

    const first = await ack('DEPLOYED');
    const prepared = await preparedOn(dataSource.manager);
    expect(prepared.map((statement) => kindOf(statement.statement)).sort()).toEqual([
      'SELECT',
      'SELECT readContext',
      'WITH saveAll',
    ]);
    expect(prepared.every((statement) => statement.plans === 1)).toBe(true);

    // The second ACK adds no statement: the same three are bound and executed again, and they read what was written.
    await ack('UNDEPLOYED');
    const again = await preparedOn(dataSource.manager);
    expect(again.map((statement) => statement.name)).toEqual(prepared.map((statement) => statement.name));
    expect(again.every((statement) => statement.plans === 2)).toBe(true);
    const read = await unitOfWork.read((store) => store.instances.find(instance.instanceId));
    expect(read?.value.elements[element.id]?.deployState).toBe('UNDEPLOYED');
    expect(read?.version).toBe(3);
    expect(first.elements[element.id]?.deployState).toBe('DEPLOYED');
  });

  it('plans for the values of each call by default, and once for any values with genericPlans', async () => {
    // Connections of their own: no statement of the other tests is prepared on them.
    const plain = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 1 });
    const generic = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 1, genericPlans: true });
    await Promise.all([plain.initialize(), generic.initialize()]);
    try {
      const plansOf = async (source: DataSource): Promise<{ mode: string; generic: number; custom: number }> => {
        const store = new TypeOrmStore(source.manager);
        for (let call = 0; call < 3; call += 1) {
          expect(await store.instances.find(randomUUID())).toBeNull();
        }
        const [setting] = await source.query<Array<{ plan_cache_mode: string }>>('SHOW plan_cache_mode');
        const prepared = await preparedOn(source.manager);
        return {
          mode: setting?.plan_cache_mode ?? '',
          generic: prepared.reduce((sum, statement) => sum + statement.generic, 0),
          custom: prepared.reduce((sum, statement) => sum + statement.custom, 0),
        };
      };
      // PostgreSQL plans a statement for its values on its first five calls at least, then compares the costs.
      expect(await plansOf(plain)).toEqual({ mode: 'auto', generic: 0, custom: 3 });
      expect(await plansOf(generic)).toEqual({ mode: 'force_generic_plan', generic: 3, custom: 0 });
    } finally {
      await Promise.all([plain.destroy(), generic.destroy()]);
    }
  });

  it('answers as EntityManager.query does: rows, and [rows, affected] for UPDATE and DELETE', async () => {
    await dataSource.query(`INSERT INTO probe (id, amount) VALUES (1, 10), (2, 20), (3, 30)`);
    const manager = dataSource.manager;
    const texts: Array<[string, unknown[]]> = [
      [`SELECT id, amount FROM probe WHERE id = ANY($1::integer[]) ORDER BY id`, [[1, 2]]],
      [`UPDATE probe SET amount = amount + 1 WHERE id = $1 RETURNING amount`, [1]],
      [`UPDATE probe SET amount = amount + 1 WHERE id = $1`, [2]],
      [`DELETE FROM probe WHERE id = $1 RETURNING id`, [3]],
      [`INSERT INTO probe (id, amount) VALUES ($1, 0) RETURNING id`, [4]],
    ];
    for (const [text, parameters] of texts) {
      const prepared = await runPrepared<unknown>(manager, preparedStatement(text), parameters);
      await dataSource.query(`TRUNCATE probe`);
      await dataSource.query(`INSERT INTO probe (id, amount) VALUES (1, 10), (2, 20), (3, 30)`);
      const unnamed = await manager.query<unknown>(text, parameters);
      await dataSource.query(`TRUNCATE probe`);
      await dataSource.query(`INSERT INTO probe (id, amount) VALUES (1, 10), (2, 20), (3, 30)`);
      expect(prepared).toEqual(unnamed);
    }
    await dataSource.query(`TRUNCATE probe`);
  });

  it('fails as EntityManager.query does: the same QueryFailedError, not transient for a unique violation', async () => {
    await dataSource.query(`INSERT INTO probe (id, amount) VALUES (100, 1)`);
    const text = `INSERT INTO probe (id, amount) VALUES ($1, 1)`;
    const prepared = await rejectionOf(runPrepared(dataSource.manager, preparedStatement(text), [100]));
    const unnamed = await rejectionOf(dataSource.query(text, [100]));
    expect(prepared).toBeInstanceOf(QueryFailedError);
    const fields = (error: unknown): Record<string, unknown> => {
      const failed = error as QueryFailedError & { driverError: { code: string; constraint: string } };
      return {
        message: failed.message,
        query: failed.query,
        parameters: failed.parameters,
        code: failed.driverError.code,
        constraint: failed.driverError.constraint,
      };
    };
    expect(fields(prepared)).toEqual(fields(unnamed));
    expect(fields(prepared)).toMatchObject({ code: '23505', constraint: 'probe_pkey' });
    expect(isTransientDatabaseError(prepared)).toBe(false);
    // A query runner taken from the data source for the statement went back to the pool, on failure too.
    const pool = (dataSource.driver as unknown as { master: Pool }).master;
    expect(pool.idleCount).toBe(pool.totalCount);
    await dataSource.query(`TRUNCATE probe`);
  });

  it('refuses a released query runner as EntityManager.query does', async () => {
    const runner = dataSource.createQueryRunner();
    await runner.release();
    const prepared = await rejectionOf(runPrepared(runner.manager, preparedStatement(`SELECT 1 AS one`), []));
    const unnamed = await rejectionOf(runner.manager.query(`SELECT 1 AS one`));
    expect(prepared).toBeInstanceOf(Error);
    expect((prepared as Error).constructor).toBe((unnamed as Error).constructor);
    expect((prepared as Error).message).toBe((unnamed as Error).message);
  });

  it('is transient on a lost connection, and the next connection prepares the statement again', async () => {
    const statement = preparedStatement(
      `SELECT amount, pg_sleep($2::float8) IS NULL AS slept FROM probe WHERE id = $1`,
    );
    await dataSource.query(`INSERT INTO probe (id, amount) VALUES (7, 70)`);
    const runner = dataSource.createQueryRunner();
    try {
      expect(await runPrepared(runner.manager, statement, [7, 0])).toEqual([{ amount: 70, slept: false }]);
      const backend: Array<{ pid: number }> = await runner.query('SELECT pg_backend_pid() AS pid');
      const pid = backend[0]?.pid;
      const running = rejectionOf(runPrepared(runner.manager, statement, [7, 30]));
      // Ended while it runs, as a server shutdown would: wait until the backend is in the sleep.
      for (;;) {
        const state = await admin.query<{ query: string }>(
          `SELECT query FROM pg_stat_activity WHERE pid = $1 AND state = 'active'`,
          [pid],
        );
        if (state.rows[0]?.query.includes('pg_sleep') === true) {
          break;
        }
      }
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      expect(isTransientDatabaseError(await running)).toBe(true);
    } finally {
      await runner.release();
    }
    // The pool drops the dead connection once its socket closed; the next statement then opens a new one.
    const pool = (dataSource.driver as unknown as { master: Pool }).master;
    await eventually('the dead connection dropped', () => (pool.totalCount === 0 ? true : undefined));
    expect(await runPrepared(dataSource.manager, statement, [7, 0])).toEqual([{ amount: 70, slept: false }]);
    await dataSource.query(`TRUNCATE probe`);
  });

  it('after a change of its result type, fails once as transient, then runs prepared under a new name', async () => {
    await dataSource.query(`CREATE TABLE retyped (id integer PRIMARY KEY, amount integer NOT NULL)`);
    await dataSource.query(`INSERT INTO retyped (id, amount) VALUES (1, 5)`);
    const statement = preparedStatement(`SELECT amount FROM retyped WHERE id = $1`);
    const runner = dataSource.createQueryRunner();
    try {
      expect(await runPrepared(runner.manager, statement, [1])).toEqual([{ amount: 5 }]);
      // As a migration of another replica would, on another connection.
      await admin.query(`ALTER TABLE "${schema}".retyped ALTER COLUMN amount TYPE bigint`);
      const changed = await rejectionOf(runPrepared(runner.manager, statement, [1]));
      expect((changed as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('0A000');
      expect(isTransientDatabaseError(changed)).toBe(true);
      // Repeated, as the transient failure is: bigint comes back as text, from a statement prepared anew.
      expect(await runPrepared(runner.manager, statement, [1])).toEqual([{ amount: '5' }]);
      const names = (await preparedOn(runner.manager))
        .filter((listed) => listed.statement === statement.text)
        .map((listed) => listed.name);
      expect(names).toEqual([statement.name, `${statement.name}_1`]);
    } finally {
      await runner.release();
    }
  });
});
