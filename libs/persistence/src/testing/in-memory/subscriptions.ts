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

  override async create(stored: StoredSubscription): Promise<void> {
    const id = stored.subscription.subscriptionId;
    if (this.rows.has(id)) {
      throw new Error(`duplicate subscription ${id}`);
    }
    this.rows.set(id, { stored: copy(stored), leaseOwner: null, leaseUntil: null });
  }

  override async find(subscriptionId: string): Promise<StoredSubscription | null> {
    const held = this.rows.get(subscriptionId);
    return held === undefined ? null : copy(held.stored);
  }

  override async list(limit: number): Promise<StoredSubscription[]> {
    return [...this.rows.values()]
      .map((held) => held.stored)
      .sort(
        (a, b) =>
          a.subscription.createdAt - b.subscription.createdAt ||
          a.subscription.subscriptionId.localeCompare(b.subscription.subscriptionId),
      )
      .slice(0, limit)
      .map(copy);
  }

  override async delete(subscriptionId: string): Promise<boolean> {
    return this.rows.delete(subscriptionId);
  }

  override async due(now: number, limit: number): Promise<string[]> {
    return [...this.rows.values()]
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
  }

  override async lease(
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
      return null;
    }
    held.leaseOwner = owner;
    held.leaseUntil = until;
    return copy(held.stored);
  }

  override async saveDelivery(subscriptionId: string, owner: string, delivery: DeliveryState): Promise<boolean> {
    const held = this.rows.get(subscriptionId);
    if (held === undefined || held.leaseOwner !== owner) {
      return false;
    }
    held.stored = { ...held.stored, delivery: copy(delivery) };
    return true;
  }

  override async release(subscriptionId: string, owner: string): Promise<void> {
    const held = this.rows.get(subscriptionId);
    if (held !== undefined && held.leaseOwner === owner) {
      held.leaseOwner = null;
      held.leaseUntil = null;
    }
  }
}
