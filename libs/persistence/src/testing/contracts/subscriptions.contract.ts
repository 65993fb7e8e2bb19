/**
 * The contract of the `SubscriptionStore` port, run against the in-memory twin (unit project) and PostgreSQL
 * (integration project). Tests share one store per adapter and use fresh ids.
 */
import { randomUUID } from 'node:crypto';

import { afterDelivered, initialDelivery } from '@acm/domain';
import type { StoredSubscription, SubscriptionStore } from '@acm/domain';

export interface SubscriptionContractFixture {
  readonly subscriptions: SubscriptionStore;
  close(): Promise<void>;
}

let clock = 1_765_000_000_000;

function storedSubscription(secret: string | null = 'shh'): StoredSubscription {
  clock += 1_000;
  return {
    subscription: {
      subscriptionId: randomUUID(),
      url: 'https://receiver.example/hook',
      filter: { kinds: ['COMPLETED', 'FAILED'], instanceId: randomUUID() },
      format: 'cloudevents',
      createdAt: clock,
    },
    secret,
    delivery: initialDelivery(7, clock),
  };
}

export function describeSubscriptionContract(name: string, open: () => Promise<SubscriptionContractFixture>): void {
  describe(`SubscriptionStore contract: ${name}`, () => {
    let fixture: SubscriptionContractFixture;
    let store: SubscriptionStore;

    beforeAll(async () => {
      fixture = await open();
      store = fixture.subscriptions;
    }, 60_000);

    afterAll(async () => {
      await fixture.close();
    });

    it('keeps what it was given, secret included, and lists oldest first', async () => {
      const first = storedSubscription();
      const second = storedSubscription(null);
      await store.create(first);
      await store.create(second);
      expect(await store.find(first.subscription.subscriptionId)).toEqual(first);
      expect(await store.find(second.subscription.subscriptionId)).toEqual(second);
      const ids = (await store.list(1000)).map((stored) => stored.subscription.subscriptionId);
      expect(ids.indexOf(first.subscription.subscriptionId)).toBeLessThan(
        ids.indexOf(second.subscription.subscriptionId),
      );
    });

    it('answers null for an unknown id, and deletes once', async () => {
      const stored = storedSubscription();
      await store.create(stored);
      expect(await store.find(randomUUID())).toBeNull();
      expect(await store.delete(stored.subscription.subscriptionId)).toBe(true);
      expect(await store.delete(stored.subscription.subscriptionId)).toBe(false);
      expect(await store.find(stored.subscription.subscriptionId)).toBeNull();
    });

    it('gives the lease to one owner until it ends, and only the holder saves', async () => {
      const stored = storedSubscription();
      const id = stored.subscription.subscriptionId;
      const now = stored.delivery.nextAttemptAt;
      await store.create(stored);
      expect(await store.due(now, 10_000)).toContain(id);
      expect(await store.lease(id, 'replica-a', now, now + 30_000)).toEqual(stored);
      expect(await store.lease(id, 'replica-b', now + 1_000, now + 31_000)).toBeNull();
      expect(await store.due(now + 1_000, 10_000)).not.toContain(id);

      const moved = afterDelivered(stored.delivery, 12, now + 2_000);
      expect(await store.saveDelivery(id, 'replica-b', moved)).toBe(false);
      expect(await store.saveDelivery(id, 'replica-a', moved)).toBe(true);
      expect((await store.find(id))?.delivery).toEqual(moved);

      // A lease that ended may be taken by another owner, and the old holder can no longer save.
      expect(await store.lease(id, 'replica-b', now + 31_000, now + 61_000)).not.toBeNull();
      expect(await store.saveDelivery(id, 'replica-a', stored.delivery)).toBe(false);
      await store.release(id, 'replica-b');
      expect(await store.lease(id, 'replica-a', now + 32_000, now + 62_000)).not.toBeNull();
    });

    it('is due only once its next attempt time came', async () => {
      const stored = storedSubscription();
      const id = stored.subscription.subscriptionId;
      const later = { ...stored.delivery, nextAttemptAt: stored.delivery.nextAttemptAt + 60_000 };
      await store.create({ ...stored, delivery: later });
      expect(await store.due(later.nextAttemptAt - 1, 10_000)).not.toContain(id);
      expect(await store.due(later.nextAttemptAt, 10_000)).toContain(id);
    });
  });
}
