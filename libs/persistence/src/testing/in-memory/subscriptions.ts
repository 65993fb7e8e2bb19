import { SubscriptionStore } from '@acm/domain';
import type { DeliveryState, StoredSubscription } from '@acm/domain';

interface Held {
  stored: StoredSubscription;
  leaseOwner: string | null;
  leaseUntil: number | null;
}

const copy = <T>(value: T): T => structuredClone(value);

/** The subscription port in memory: the twin of `TypeOrmSubscriptionStore` for unit tests. */
export class InMemorySubscriptionStore extends SubscriptionStore {
  private readonly rows = new Map<string, Held>();

  override create(stored: StoredSubscription): Promise<void> {
    const id = stored.subscription.subscriptionId;
    if (this.rows.has(id)) {
      return Promise.reject(new Error(`duplicate subscription ${id}`));
    }
    this.rows.set(id, { stored: copy(stored), leaseOwner: null, leaseUntil: null });
    return Promise.resolve();
  }

  override find(subscriptionId: string): Promise<StoredSubscription | null> {
    const held = this.rows.get(subscriptionId);
    return Promise.resolve(held === undefined ? null : copy(held.stored));
  }

  override list(limit: number): Promise<StoredSubscription[]> {
    const listed = [...this.rows.values()]
      .map((held) => held.stored)
      .sort(
        (a, b) =>
          a.subscription.createdAt - b.subscription.createdAt ||
          a.subscription.subscriptionId.localeCompare(b.subscription.subscriptionId),
      )
      .slice(0, limit)
      .map(copy);
    return Promise.resolve(listed);
  }

  override delete(subscriptionId: string): Promise<boolean> {
    return Promise.resolve(this.rows.delete(subscriptionId));
  }

  override due(now: number, limit: number): Promise<string[]> {
    const due = [...this.rows.values()]
      .filter(
        (held) => held.stored.delivery.nextAttemptAt <= now && (held.leaseUntil === null || held.leaseUntil < now),
      )
      .sort(
        (a, b) =>
          a.stored.delivery.nextAttemptAt - b.stored.delivery.nextAttemptAt ||
          a.stored.subscription.subscriptionId.localeCompare(b.stored.subscription.subscriptionId),
      )
      .slice(0, limit)
      .map((held) => held.stored.subscription.subscriptionId);
    return Promise.resolve(due);
  }

  override lease(
    subscriptionId: string,
    owner: string,
    now: number,
    until: number,
  ): Promise<StoredSubscription | null> {
    const held = this.rows.get(subscriptionId);
    if (
      held === undefined ||
      !(held.leaseOwner === null || held.leaseOwner === owner || (held.leaseUntil !== null && held.leaseUntil < now))
    ) {
      return Promise.resolve(null);
    }
    held.leaseOwner = owner;
    held.leaseUntil = until;
    return Promise.resolve(copy(held.stored));
  }

  override saveDelivery(subscriptionId: string, owner: string, delivery: DeliveryState): Promise<boolean> {
    const held = this.rows.get(subscriptionId);
    if (held === undefined || held.leaseOwner !== owner) {
      return Promise.resolve(false);
    }
    held.stored = { ...held.stored, delivery: copy(delivery) };
    return Promise.resolve(true);
  }

  override release(subscriptionId: string, owner: string): Promise<void> {
    const held = this.rows.get(subscriptionId);
    if (held !== undefined && held.leaseOwner === owner) {
      held.leaseOwner = null;
      held.leaseUntil = null;
    }
    return Promise.resolve();
  }
}
