import fc from 'fast-check';
import { isRefusal } from '../refusal';
import type { Rollout, RolloutInput, RolloutStrategy } from './rollout';
import { allowedFailures, decideRollout, newRollout } from './rollout';

/**
 * Properties of `decideRollout` over random fleets, batch sizes, maxInFlight, thresholds, failure handling and
 * schedules of outcomes (failures at random, duplicates, outcomes of instances not in flight) mixed with pause,
 * resume, promote, cancel and the passing of time; each run is then driven to its end.
 */

const thresholdArbitrary = fc.oneof(
  fc.integer({ min: 0, max: 2 }).map((count) => ({ kind: 'count' as const, count })),
  fc.integer({ min: 0, max: 100 }).map((percent) => ({ kind: 'percent' as const, percent })),
);

const fleetArbitrary = fc.record({
  size: fc.integer({ min: 1, max: 30 }),
  batch: fc.oneof(
    fc.integer({ min: 2, max: 10 }).map((count) => ({ kind: 'count' as const, count })),
    fc.integer({ min: 1, max: 100 }).map((percent) => ({ kind: 'percent' as const, percent })),
  ),
  maxInFlight: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
  threshold: thresholdArbitrary,
  total: fc.option(thresholdArbitrary, { nil: null }),
  onFailure: fc.constantFrom('pause' as const, 'continue' as const, 'rollback' as const),
  rollbackAll: fc.boolean(),
  canary: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  pauseBetweenBatches: fc.constantFrom(0, 1_000),
  bakeTime: fc.constantFrom(0, 2),
  events: fc.array(
    fc.oneof(
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constant('UNHEALTHY' as const), pick: fc.nat() }),
      },
      {
        weight: 12,
        arbitrary: fc.record({ kind: fc.constant('END' as const), pick: fc.nat(), failed: fc.boolean() }),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          { kind: 'PAUSE' as const },
          { kind: 'RESUME' as const },
          { kind: 'PROMOTE' as const },
          { kind: 'CANCEL' as const },
          { kind: 'TICK' as const },
        ),
      },
    ),
    { maxLength: 150 },
  ),
});

const ENDED = new Set(['DONE', 'FAILED', 'REFUSED', 'ROLLED_BACK', 'ROLLBACK_FAILED', 'UNHEALTHY']);
const FAILURES = new Set(['FAILED', 'REFUSED', 'UNHEALTHY']);

describe('decideRollout properties', () => {
  it('keeps maxInFlight, runs batches in order, honours thresholds, orders no instance twice, ends every instance', () => {
    fc.assert(
      fc.property(fleetArbitrary, (fleet) => {
        const ids = Array.from({ length: fleet.size }, (_, index) => `i-${index}`);
        const strategy: RolloutStrategy = {
          batchSize: fleet.batch,
          maxInFlight: fleet.maxInFlight,
          // a count threshold at most the smallest batch size the arbitraries make
          failureThreshold:
            fleet.threshold.kind === 'count'
              ? { kind: 'count', count: Math.min(fleet.threshold.count, 1) }
              : fleet.threshold,
          totalFailureThreshold:
            fleet.total?.kind === 'count'
              ? { kind: 'count', count: Math.min(fleet.total.count, fleet.size) }
              : fleet.total,
          onFailure: fleet.onFailure,
          rollbackAll: fleet.onFailure === 'rollback' && fleet.rollbackAll,
          canary: fleet.canary,
          pauseBetweenBatches: fleet.pauseBetweenBatches,
          batchBy: null,
          batchOrder: [],
          skipRefused: false,
          bakeTime: fleet.bakeTime,
        };
        let rollout: Rollout = newRollout(
          'r',
          {
            order: 'DEPLOY',
            compositionId: 'c',
            instanceIds: ids,
            filter: null,
            compositionTargetId: null,
            patch: null,
            strategy,
          },
          ids,
          0,
        );
        const batchOf = new Map(rollout.instances.map((item) => [item.instanceId, item.batch]));
        expect(new Set(rollout.instances.map((item) => item.instanceId)).size).toBe(fleet.size);
        const ordered = new Set<string>();
        const rolledBack = new Set<string>();
        const inFlight = new Set<string>();
        let now = 0;
        let dueAt: number | null = null;
        /** When each batch's last instance ended (the start of its bake). */
        const endedAt = new Map<number, number>();
        const apply = (input: RolloutInput): void => {
          now += 10;
          const decision = decideRollout(rollout, input, now);
          if (isRefusal(decision)) {
            return;
          }
          const before = rollout;
          for (let batch = 0; batch < before.batchCount; batch += 1) {
            const members = before.instances.filter((item) => item.batch === batch);
            const after = decision.rollout.instances.filter((item) => item.batch === batch);
            const ended = after.every((item) => item.state !== 'PENDING' && item.state !== 'ORDERED');
            if (!endedAt.has(batch) && ended && members.some((item) => item.state !== 'PENDING')) {
              endedAt.set(batch, now);
            }
          }
          for (const id of decision.orders) {
            expect(ordered.has(id)).toBe(false);
            const batch = batchOf.get(id)!;
            if (batch > 0) {
              // the batch before it ended and baked for bakeTime first
              expect(now).toBeGreaterThanOrEqual(endedAt.get(batch - 1)! + strategy.bakeTime * 1000);
            }
            for (const other of before.instances) {
              if (other.batch < batch) {
                // every instance of the batches before it has ended, or was left untouched by a stop
                expect(inFlight.has(other.instanceId)).toBe(false);
              }
            }
            // a batch over its threshold is followed only with onFailure continue, or after a resume accepted it
            for (let earlier = 0; earlier < batch; earlier += 1) {
              const members = before.instances.filter((item) => item.batch === earlier);
              const failures = members.filter((item) => FAILURES.has(item.state)).length;
              if (failures > allowedFailures(strategy.failureThreshold, members.length)) {
                expect(strategy.onFailure === 'continue' || decision.rollout.waivedBatches.includes(earlier)).toBe(
                  true,
                );
              }
            }
            ordered.add(id);
            inFlight.add(id);
          }
          for (const id of decision.rollbacks) {
            expect(rolledBack.has(id)).toBe(false);
            // only an instance the rollout ordered, whose operation ended (DONE: FAILED ones are not rolled back)
            expect(ordered.has(id) && !inFlight.has(id)).toBe(true);
            expect(before.instances.find((item) => item.instanceId === id)?.state).not.toBe('FAILED');
            rolledBack.add(id);
            inFlight.add(id);
          }
          if (input.kind === 'INSTANCE_UNHEALTHY' && decision.rollout !== before) {
            // only a DONE instance of the current batch, while it bakes
            const item = before.instances.find((candidate) => candidate.instanceId === input.instanceId)!;
            expect(item.state).toBe('DONE');
            expect(item.batch).toBe(before.currentBatch);
            expect(before.bakingUntil).not.toBeNull();
          }
          rollout = decision.rollout;
          dueAt = decision.dueAt;
          expect(inFlight.size).toBeLessThanOrEqual(strategy.maxInFlight ?? fleet.size);
          expect(rollout.instances.map((item) => [item.instanceId, item.batch])).toEqual([...batchOf]);
        };
        const end = (id: string, failed: boolean): void => {
          inFlight.delete(id);
          apply({ kind: 'OPERATION_ENDED', instanceId: id, outcome: failed ? 'FAILED' : 'DONE' });
        };
        apply({ kind: 'START' });
        for (const event of fleet.events) {
          if (event.kind === 'END') {
            const id = ids[event.pick % ids.length]!;
            if (inFlight.has(id)) {
              end(id, event.failed);
            } else {
              // an outcome of an instance not in flight changes nothing
              const unchanged = rollout;
              apply({ kind: 'OPERATION_ENDED', instanceId: id, outcome: event.failed ? 'FAILED' : 'DONE' });
              expect(rollout).toBe(unchanged);
            }
          } else if (event.kind === 'UNHEALTHY') {
            apply({ kind: 'INSTANCE_UNHEALTHY', instanceId: ids[event.pick % ids.length]!, reason: 'Degraded' });
          } else {
            apply(event);
          }
        }
        // drive to the end: every operation in flight succeeds, the operator resumes and promotes, time passes
        for (
          let guard = 0;
          guard < 10 * fleet.size + 20 && !['COMPLETED', 'FAILED', 'CANCELLED'].includes(rollout.state);
          guard += 1
        ) {
          const next = [...inFlight][0];
          if (next !== undefined) {
            end(next, false);
          } else if (rollout.state === 'PAUSED') {
            apply({ kind: 'RESUME' });
          } else if (rollout.state === 'WAITING_PROMOTION') {
            apply({ kind: 'PROMOTE' });
          } else if (dueAt !== null) {
            now = Math.max(now, dueAt);
            apply({ kind: 'TICK' });
          } else {
            apply({ kind: 'TICK' });
          }
        }
        while (inFlight.size > 0) {
          end([...inFlight][0]!, false);
        }
        expect(['COMPLETED', 'FAILED', 'CANCELLED']).toContain(rollout.state);
        for (const item of rollout.instances) {
          // the record agrees with what was ordered: untouched instances were never ordered
          expect(item.state === 'PENDING').toBe(!ordered.has(item.instanceId));
          expect(item.state === 'PENDING' || ENDED.has(item.state)).toBe(true);
          expect(item.state === 'ROLLED_BACK' || item.state === 'ROLLBACK_FAILED').toBe(
            rolledBack.has(item.instanceId),
          );
        }
        if (rollout.state === 'COMPLETED') {
          expect(
            rollout.instances.every((item) => ['DONE', 'FAILED', 'REFUSED', 'UNHEALTHY'].includes(item.state)),
          ).toBe(true);
        }
        if (rolledBack.size > 0) {
          expect(rollout.state === 'FAILED' || rollout.state === 'CANCELLED').toBe(true);
          if (rollout.state === 'FAILED') {
            // every batch it rolled back has no instance left DONE
            const batches = new Set([...rolledBack].map((id) => batchOf.get(id)));
            expect(
              rollout.instances.some(
                (item) => batches.has(item.batch) && (item.state === 'DONE' || item.state === 'UNHEALTHY'),
              ),
            ).toBe(false);
          }
        }
      }),
      { numRuns: 250 },
    );
  });
});
