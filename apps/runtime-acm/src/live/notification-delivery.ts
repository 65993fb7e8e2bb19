import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  Clock,
  EventFeed,
  SubscriptionStore,
  afterDelivered,
  afterFailed,
  afterSkipped,
  matchesFilter,
} from '@acm/domain';
import type { DeliveryRetryPolicy, DeliveryState, StoredSubscription } from '@acm/domain';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Subscription as RxSubscription } from 'rxjs';
import { eventIdOf, sendNotification } from '../application/notification-sender';
import type { RuntimeConfig } from '../config/runtime.config';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import { NotificationMetrics } from '../metrics/notification-metrics';
import { CoalescedPasses } from './coalesced-passes';
import { EventFeedFollower } from './event-feed-follower';

/** How often due retries are looked for when no event woke the deliverer. */
const TICK_MS = 500;
/** Subscriptions served per pass, and feed events read per statement. */
const DUE_PAGE = 100;
const EVENT_PAGE = 200;

/**
 * Delivers the event feed to the subscriptions, at least once: any replica may serve a subscription, one at a time
 * (the subscription's lease); its position moves only after the receiver answered 2xx (or the event was
 * dead-lettered), and is saved after each event, so a replica killed between commit and delivery leaves the event
 * for the next holder, sent with the same event id.
 */
@Injectable()
export class NotificationDelivery implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Notifications');
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly policy: DeliveryRetryPolicy;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | null = null;
  private wakes: RxSubscription | null = null;
  private readonly passes = new CoalescedPasses(
    () => this.pass(),
    (error) => this.logger.debug(`A notification pass failed: ${error.message}`),
  );
  private stopped = false;

  constructor(
    private readonly store: SubscriptionStore,
    private readonly feed: EventFeed,
    private readonly follower: EventFeedFollower,
    private readonly clock: Clock,
    private readonly metrics: NotificationMetrics,
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
  ) {
    this.policy = {
      maxAttempts: config.notifyMaxAttempts,
      baseDelayMs: config.notifyRetryBaseMs,
      maxDelayMs: config.notifyRetryMaxMs,
    };
    // Long enough for a few attempts; short enough that a replica's death holds a subscription up for seconds only.
    this.leaseMs = 3 * config.notifyTimeoutMs + 5_000;
  }

  onApplicationBootstrap(): void {
    this.wakes = this.follower.live().subscribe(() => this.wake());
    this.timer = setInterval(() => this.wake(), TICK_MS);
    this.timer.unref();
    this.wake();
  }

  wake(): void {
    if (!this.stopped) {
      this.passes.wake();
    }
  }

  private async pass(): Promise<void> {
    const due = await this.store.due(this.clock.now(), DUE_PAGE);
    for (const subscriptionId of due) {
      if (this.stopped) {
        return;
      }
      await this.serve(subscriptionId);
    }
  }

  /** Delivers what follows the subscription's position while it holds the lease, until a failure waits to retry. */
  private async serve(subscriptionId: string): Promise<void> {
    const leasedAt = this.clock.now();
    const stored = await this.store.lease(subscriptionId, this.owner, leasedAt, leasedAt + this.leaseMs);
    if (stored === null) {
      return;
    }
    try {
      let delivery = stored.delivery;
      while (!this.stopped && this.inLease(leasedAt)) {
        const events = await this.feed.after(delivery.position, EVENT_PAGE);
        if (events.length === 0) {
          return;
        }
        for (const event of events) {
          if (!this.inLease(leasedAt)) {
            break;
          }
          if (!matchesFilter(stored.subscription.filter, event)) {
            delivery = afterSkipped(delivery, event.position);
            continue;
          }
          const next = await this.attempt(stored, delivery, event);
          if (!(await this.store.saveDelivery(subscriptionId, this.owner, next))) {
            return;
          }
          delivery = next;
          if (delivery.attempts > 0) {
            return;
          }
        }
        if (!(await this.store.saveDelivery(subscriptionId, this.owner, delivery))) {
          return;
        }
      }
    } finally {
      await this.store.release(subscriptionId, this.owner);
    }
  }

  /** Whether one more attempt (at most the timeout) ends before the lease does. */
  private inLease(leasedAt: number): boolean {
    return this.clock.now() + this.config.notifyTimeoutMs < leasedAt + this.leaseMs - 1_000;
  }

  private async attempt(
    stored: StoredSubscription,
    delivery: DeliveryState,
    event: Parameters<typeof sendNotification>[1],
  ): Promise<DeliveryState> {
    const outcome = await sendNotification(stored, event, this.config.notifyTimeoutMs);
    const now = this.clock.now();
    if (outcome.delivered) {
      this.metrics.delivery('delivered');
      return afterDelivered(delivery, event.position, now);
    }
    const next = afterFailed(
      delivery,
      { position: event.position, eventId: eventIdOf(event) },
      outcome.error,
      now,
      this.policy,
      Math.random(),
    );
    const id = stored.subscription.subscriptionId;
    this.metrics.delivery(next.attempts === 0 ? 'dead_lettered' : 'retried');
    if (next.attempts === 0) {
      this.logger.warn(`Subscription ${id}: event ${eventIdOf(event)} dead-lettered after ${outcome.error}`);
    } else {
      this.logger.debug(`Subscription ${id}: event ${eventIdOf(event)} failed (${outcome.error}), retried later`);
    }
    return next;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) {
      clearInterval(this.timer);
    }
    this.wakes?.unsubscribe();
    await this.passes.stop();
  }
}
