import type { DeliveryState, StoredSubscription } from '../notification/subscription';

/**
 * Where notification subscriptions live. Each method commits on its own. One deliverer at a time holds a
 * subscription's lease (any replica), and only the holder may save its delivery state, so an event goes out from
 * one replica at a time and the state never moves back.
 */
export abstract class SubscriptionStore {
  abstract create(stored: StoredSubscription): Promise<void>;
  abstract find(subscriptionId: string): Promise<StoredSubscription | null>;
  /** Every subscription, oldest first. */
  abstract list(limit: number): Promise<StoredSubscription[]>;
  /** Answers false when there was none. */
  abstract delete(subscriptionId: string): Promise<boolean>;
  /** The subscriptions whose next attempt is due at `now` and whose lease is free, oldest due first. */
  abstract due(now: number, limit: number): Promise<string[]>;
  /**
   * Takes the lease for `owner` until `until` when nobody holds it or the holder's lease ended before `now`; answers
   * the subscription, or null when another owner holds it (or it does not exist).
   */
  abstract lease(subscriptionId: string, owner: string, now: number, until: number): Promise<StoredSubscription | null>;
  /** Saves the delivery state if `owner` still holds the lease (answers false otherwise, writing nothing). */
  abstract saveDelivery(subscriptionId: string, owner: string, delivery: DeliveryState): Promise<boolean>;
  /** Gives the lease back (only the holder's). */
  abstract release(subscriptionId: string, owner: string): Promise<void>;
}
