import type { FeedEvent } from '../ports/event-feed.port';
import {
  afterDelivered,
  afterFailed,
  afterSkipped,
  deliveryRetryDelayMs,
  initialDelivery,
  matchesFilter,
  unknownEventKinds,
} from './subscription';

const POLICY = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 10_000 };

const event = (overrides: Partial<FeedEvent> = {}): FeedEvent =>
  ({
    position: 5,
    sequence: 9,
    subjectId: 'instance-1',
    compositionId: 'composition-1',
    operationId: null,
    event: 'COMPLETED',
    detail: {},
    actor: { kind: 'runtime' },
    at: 0,
    ...overrides,
  }) as FeedEvent;

describe('delivery rules', () => {
  it('doubles the wait per failure up to the cap, half of it jittered', () => {
    expect(deliveryRetryDelayMs(1, POLICY, 0)).toBe(500);
    expect(deliveryRetryDelayMs(1, POLICY, 0.999999)).toBe(1_000);
    expect(deliveryRetryDelayMs(2, POLICY, 0)).toBe(1_000);
    expect(deliveryRetryDelayMs(3, POLICY, 0.5)).toBe(3_000);
    expect(deliveryRetryDelayMs(20, POLICY, 1)).toBe(10_000);
  });

  it('retries after the backoff, then dead-letters the event and goes on', () => {
    const start = initialDelivery(4, 100);
    const once = afterFailed(start, { position: 5, eventId: '9' }, 'HTTP 500', 200, POLICY, 0);
    expect(once).toMatchObject({ position: 4, attempts: 1, nextAttemptAt: 700, lastError: 'HTTP 500' });
    const twice = afterFailed(once, { position: 5, eventId: '9' }, 'timeout', 800, POLICY, 0);
    expect(twice).toMatchObject({ position: 4, attempts: 2, nextAttemptAt: 1_800 });
    const dead = afterFailed(twice, { position: 5, eventId: '9' }, 'HTTP 503', 2_000, POLICY, 0);
    expect(dead).toMatchObject({
      position: 5,
      attempts: 0,
      deadLetters: 1,
      lastDeadLetter: { eventId: '9', error: 'HTTP 503', at: 2_000 },
    });
  });

  it('moves past an event only once it was delivered, and counts it', () => {
    const failed = afterFailed(initialDelivery(4, 100), { position: 5, eventId: '9' }, 'HTTP 500', 200, POLICY, 0);
    const delivered = afterDelivered(failed, 5, 900);
    expect(delivered).toMatchObject({ position: 5, attempts: 0, delivered: 1, lastDeliveredAt: 900 });
    expect(afterSkipped(delivered, 3)).toBe(delivered);
    expect(afterSkipped(delivered, 8).position).toBe(8);
  });

  it('filters by kind, instance and definition', () => {
    expect(matchesFilter({}, event())).toBe(true);
    expect(matchesFilter({ kinds: ['FAILED'] }, event())).toBe(false);
    expect(matchesFilter({ kinds: ['FAILED', 'COMPLETED'] }, event())).toBe(true);
    expect(matchesFilter({ instanceId: 'instance-2' }, event())).toBe(false);
    expect(matchesFilter({ compositionId: 'composition-1' }, event())).toBe(true);
    expect(
      matchesFilter({ compositionId: 'composition-1' }, event({ subjectId: 'composition-1', compositionId: null })),
    ).toBe(true);
    expect(matchesFilter({ compositionId: 'composition-2' }, event())).toBe(false);
  });

  it("filters by instance metadata: an instance's event whose metadata holds the values; never a definition's", () => {
    const site = { metadata: { site: 'prod', tier: '1' } };
    const ofInstance = (instanceMetadata: Record<string, unknown> | null) => event({ instanceMetadata });
    expect(matchesFilter(site, ofInstance({ site: 'prod', tier: 1, owner: 'ops' }))).toBe(true);
    expect(matchesFilter(site, ofInstance({ site: 'prod' }))).toBe(false);
    expect(matchesFilter(site, ofInstance({ site: 'dev', tier: '1' }))).toBe(false);
    expect(matchesFilter(site, ofInstance({ site: { name: 'prod' }, tier: '1' }))).toBe(false);
    expect(matchesFilter(site, ofInstance(null))).toBe(false);
    // A deleted instance's event (its definition no longer known through it) and a definition's never match.
    expect(matchesFilter(site, event({ compositionId: null, instanceMetadata: null }))).toBe(false);
    const ofDefinition = event({ subjectId: 'composition-1', compositionId: 'composition-1', instanceMetadata: null });
    expect(matchesFilter({ metadata: {} }, ofDefinition)).toBe(false);
    expect(matchesFilter({ metadata: {} }, ofInstance(null))).toBe(true);
    expect(matchesFilter({ ...site, kinds: ['FAILED'] }, ofInstance({ site: 'prod', tier: '1' }))).toBe(false);
  });

  it('names the kinds the ledger does not know', () => {
    expect(unknownEventKinds(['COMPLETED', 'EXPLODED', 'FAILED'])).toEqual(['EXPLODED']);
  });
});
