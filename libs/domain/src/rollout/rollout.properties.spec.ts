import fc from 'fast-check';
import { isRefusal } from '../refusal';
import type { Rollout, RolloutInput } from './rollout';
import { decideRollout, newRollout } from './rollout';

/**
 * Properties of `decideRollout` over random fleets, batch sizes, thresholds and schedules of outcomes (in any
 * order, with duplicates and outcomes of instances not ordered) mixed with pause, resume and cancel.
 */

const fleetArbitrary = fc.record({
  size: fc.integer({ min: 1, max: 30 }),
  batch: fc.oneof(
    fc.integer({ min: 1, max: 10 }).map((count) => ({ kind: 'count' as const, count })),
    fc.integer({ min: 1, max: 100 }).map((percent) => ({ kind: 'percent' as const, percent })),
  ),
  threshold: fc.integer({ min: 0, max: 1 }),
  onFailure: fc.constantFrom('pause' as const, 'continue' as const),
  events: fc.array(
    fc.oneof(
      { weight: 10, arbitrary: fc.record({ kind: fc.constant('END' as const), pick: fc.nat(), failed: fc.boolean() }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          { kind: 'PAUSE' as const },
          { kind: 'RESUME' as const },
          { kind: 'CANCEL' as const },
        ),
      },
    ),
    { maxLength: 120 },
  ),
});

describe('decideRollout properties', () => {
  it('orders no instance twice, never starts batch k+1 before batch k ended, and keeps each instance in one batch', () => {
    fc.assert(
      fc.property(fleetArbitrary, (fleet) => {
        const ids = Array.from({ length: fleet.size }, (_, index) => `i-${index}`);
        const threshold = Math.min(fleet.threshold, fleet.batch.kind === 'count' ? fleet.batch.count : 1);
        let rollout: Rollout = newRollout(
          'r',
          {
            order: 'DEPLOY',
            compositionId: 'c',
            instanceIds: ids,
            strategy: { batchSize: fleet.batch, failureThreshold: threshold, onFailure: fleet.onFailure },
          },
          ids,
          0,
        );
        const batchOf = new Map(rollout.instances.map((item) => [item.instanceId, item.batch]));
        expect(new Set(rollout.instances.map((item) => item.instanceId)).size).toBe(fleet.size);
        const ordered = new Set<string>();
        const ended = new Set<string>();
        const apply = (input: RolloutInput): void => {
          const decision = decideRollout(rollout, input);
          if (isRefusal(decision)) {
            return;
          }
          for (const id of decision.orders) {
            expect(ordered.has(id)).toBe(false);
            const batch = batchOf.get(id)!;
            // every instance of the batches before it has ended
            for (const earlier of ids.filter((other) => batchOf.get(other)! < batch)) {
              expect(ended.has(earlier)).toBe(true);
            }
            ordered.add(id);
          }
          rollout = decision.rollout;
          expect(rollout.instances.map((item) => [item.instanceId, item.batch])).toEqual([...batchOf]);
        };
        apply({ kind: 'START' });
        for (const event of fleet.events) {
          if (event.kind === 'END') {
            const id = ids[event.pick % ids.length]!;
            if (ordered.has(id)) {
              ended.add(id);
            }
            apply({ kind: 'OPERATION_ENDED', instanceId: id, outcome: event.failed ? 'FAILED' : 'DONE' });
          } else {
            apply(event);
          }
        }
        // the rollout's own record agrees with what it ordered
        for (const item of rollout.instances) {
          expect(item.state === 'PENDING').toBe(!ordered.has(item.instanceId));
        }
        if (rollout.state === 'COMPLETED') {
          expect(rollout.instances.every((item) => item.state === 'DONE' || item.state === 'FAILED')).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
