/**
 * The contract of the `RolloutStore` port, run against the in-memory twin (unit project) and PostgreSQL
 * (integration project). Tests share one store per adapter and use fresh ids.
 */
import { randomUUID } from 'node:crypto';

import { newRollout, parseRolloutRequest } from '@acm/domain';
import type { RolloutEvent, RolloutStore, StoredRollout, UnitOfWork } from '@acm/domain';

import { operationOf } from './builders';

export interface RolloutContractFixture {
  readonly unitOfWork: UnitOfWork;
  readonly rollouts: RolloutStore;
  close(): Promise<void>;
}

const T0 = 1_765_000_000_000;
let clock = T0;

function storedRollout(instanceIds: readonly string[]): StoredRollout {
  const request = parseRolloutRequest({
    order: 'DEPLOY',
    compositionId: randomUUID(),
    instanceIds,
    strategy: { batchSize: 2 },
  });
  clock += 1_000;
  return { rollout: newRollout(randomUUID(), request, instanceIds, clock), tracking: {} };
}

export function describeRolloutContract(name: string, open: () => Promise<RolloutContractFixture>): void {
  describe(`RolloutStore contract: ${name}`, () => {
    let fixture: RolloutContractFixture;
    let rollouts: RolloutStore;

    beforeAll(async () => {
      fixture = await open();
      rollouts = fixture.rollouts;
    }, 60_000);

    afterAll(async () => {
      await fixture.close();
    }, 60_000);

    it('stores a rollout whole and lists it, newest first, and among the unfinished', async () => {
      const first = storedRollout([randomUUID(), randomUUID(), randomUUID()]);
      const second = storedRollout([randomUUID()]);
      expect(await rollouts.create(first)).toBeNull();
      expect(await rollouts.create(second)).toBeNull();
      expect(await rollouts.find(first.rollout.rolloutId)).toEqual(first);
      expect(await rollouts.find(randomUUID())).toBeNull();
      const listed = (await rollouts.list(1000)).map((rollout) => rollout.rolloutId);
      expect(listed.indexOf(second.rollout.rolloutId)).toBeLessThan(listed.indexOf(first.rollout.rolloutId));
      const unfinished = await rollouts.unfinished(1000);
      expect(unfinished.indexOf(first.rollout.rolloutId)).toBeLessThan(unfinished.indexOf(second.rollout.rolloutId));
    });

    it('refuses a rollout that selects an instance an unfinished one holds, naming it; frees them once finished', async () => {
      const shared = randomUUID();
      const first = storedRollout([randomUUID(), shared]);
      expect(await rollouts.create(first)).toBeNull();
      const second = storedRollout([shared, randomUUID()]);
      expect(await rollouts.create(second)).toEqual({ rolloutId: first.rollout.rolloutId, instanceIds: [shared] });
      expect(await rollouts.find(second.rollout.rolloutId)).toBeNull();
      expect(await rollouts.holding([shared])).toEqual([first.rollout.rolloutId]);

      const driver = randomUUID();
      expect(await rollouts.lease(first.rollout.rolloutId, driver, clock, clock + 10_000)).not.toBeNull();
      const cancelled: StoredRollout = { ...first, rollout: { ...first.rollout, state: 'CANCELLED' } };
      expect(await rollouts.save(cancelled, driver)).toBe(true);
      expect(await rollouts.holding([shared])).toEqual([]);
      expect(await rollouts.unfinished(1000)).not.toContain(first.rollout.rolloutId);
      expect(await rollouts.create(second)).toBeNull();
    });

    it("appends the history events a creation and the holder's saves carry, in order; a refused save appends none", async () => {
      const stored = storedRollout([randomUUID(), randomUUID()]);
      const id = stored.rollout.rolloutId;
      const event = (kind: RolloutEvent['kind'], batch: number | null): RolloutEvent => ({
        at: clock,
        kind,
        batch,
        instanceId: null,
        state: null,
        reason: null,
        actor: { kind: 'runtime', rule: 'rollout' },
      });
      expect(await rollouts.create(stored, [event('CREATED', null)])).toBeNull();
      const driver = randomUUID();
      await rollouts.lease(id, driver, clock, clock + 5_000);
      expect(await rollouts.save(stored, driver, [event('BATCH_STARTED', 1), event('BATCH_ENDED', 1)])).toBe(true);
      expect(await rollouts.save(stored, randomUUID(), [event('BATCH_STARTED', 2)])).toBe(false);
      expect(await rollouts.save(stored, driver)).toBe(true);
      expect((await rollouts.history(id)).map((item) => `${item.kind} ${item.batch}`)).toEqual([
        'CREATED null',
        'BATCH_STARTED 1',
        'BATCH_ENDED 1',
      ]);
      expect(await rollouts.history(randomUUID())).toEqual([]);
    });

    it('lets one driver hold a rollout until its lease ends; only the holder saves', async () => {
      const stored = storedRollout([randomUUID()]);
      await rollouts.create(stored);
      const id = stored.rollout.rolloutId;
      const [one, two] = [randomUUID(), randomUUID()];
      expect(await rollouts.lease(id, one, clock, clock + 5_000)).toEqual(stored);
      expect(await rollouts.lease(id, two, clock + 1_000, clock + 6_000)).toBeNull();
      const paused: StoredRollout = { ...stored, rollout: { ...stored.rollout, state: 'PAUSED' } };
      expect(await rollouts.save(paused, two)).toBe(false);
      expect((await rollouts.find(id))?.rollout.state).toBe('RUNNING');
      expect(await rollouts.save(paused, one)).toBe(true);
      expect(await rollouts.lease(id, one, clock + 1_000, clock + 6_000)).toEqual(paused);
      // a lease that ended (its holder died) is taken over
      expect(await rollouts.lease(id, two, clock + 7_000, clock + 12_000)).toEqual(paused);
      await rollouts.release(id, one);
      expect(await rollouts.lease(id, one, clock + 8_000, clock + 13_000)).toBeNull();
      await rollouts.release(id, two);
      expect(await rollouts.lease(id, one, clock + 8_000, clock + 13_000)).toEqual(paused);
      expect(await rollouts.lease(randomUUID(), one, clock, clock + 1)).toBeNull();
    });

    it('gives a rollout to exactly one of many drivers asking for its lease at once', async () => {
      const stored = storedRollout([randomUUID()]);
      await rollouts.create(stored);
      const drivers = Array.from({ length: 8 }, () => randomUUID());
      const leases = await Promise.all(
        drivers.map((driver) => rollouts.lease(stored.rollout.rolloutId, driver, clock, clock + 5_000)),
      );
      const holders = drivers.filter((_, index) => leases[index] !== null);
      expect(holders).toHaveLength(1);
      const saved = await Promise.all(drivers.map((driver) => rollouts.save(stored, driver)));
      expect(drivers.filter((_, index) => saved[index])).toEqual(holders);
    });

    it('saves a step given the rollout before it: the changed instances and tracking, the others as they were', async () => {
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      const stored = storedRollout(ids);
      await rollouts.create(stored);
      const driver = randomUUID();
      const leased = (await rollouts.lease(stored.rollout.rolloutId, driver, clock, clock + 5_000))!;
      const ordered: StoredRollout = {
        rollout: {
          ...leased.rollout,
          instances: leased.rollout.instances.map((item) =>
            item.instanceId === ids[0] ? { ...item, state: 'ORDERED' } : item,
          ),
        },
        tracking: { [ids[0]!]: { baselineOperationId: null, operationId: null } },
      };
      expect(await rollouts.save(ordered, driver, [], leased)).toBe(true);
      expect(await rollouts.find(stored.rollout.rolloutId)).toEqual(ordered);
      const started: StoredRollout = {
        ...ordered,
        tracking: { [ids[0]!]: { baselineOperationId: null, operationId: randomUUID() } },
      };
      expect(await rollouts.save(started, driver, [], ordered)).toBe(true);
      expect(await rollouts.find(stored.rollout.rolloutId)).toEqual(started);
      expect((await rollouts.list(1000)).find((item) => item.rolloutId === stored.rollout.rolloutId)).toEqual(
        started.rollout,
      );
    });

    it('reads the latest operation of each instance and operations by id', async () => {
      const [a, b, none] = [randomUUID(), randomUUID(), randomUUID()];
      const older = operationOf(a, { state: 'COMPLETED', startedAt: T0, finishedAt: T0 + 1 });
      const newer = operationOf(a, { state: 'FAILED', startedAt: T0 + 10, finishedAt: T0 + 11 });
      const running = operationOf(b, { state: 'RUNNING', timedOut: true, startedAt: T0 });
      await fixture.unitOfWork.transaction(async (store) => {
        await store.operations.insert(older);
        await store.operations.insert(newer);
        await store.operations.insert(running);
      });
      const latest = await rollouts.latestOperations([a, b, none]);
      expect(latest).toEqual(
        new Map([
          [a, { operationId: newer.operationId, targetId: a, state: 'FAILED', timedOut: false }],
          [b, { operationId: running.operationId, targetId: b, state: 'RUNNING', timedOut: true }],
        ]),
      );
      const byId = await rollouts.operations([older.operationId, randomUUID()]);
      expect(byId).toEqual(
        new Map([
          [older.operationId, { operationId: older.operationId, targetId: a, state: 'COMPLETED', timedOut: false }],
        ]),
      );
    });
  });
}
