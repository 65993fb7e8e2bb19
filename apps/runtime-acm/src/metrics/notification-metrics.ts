import { readUndeliveredNotifications } from '@acm/persistence';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { DATABASE } from '../database/database';
import type { Database } from '../database/database';
import { RuntimeMetrics } from './runtime-metrics';

/** What one delivery attempt came to: delivered (2xx), failed and kept for a retry, or failed for the last time. */
export type DeliveryResult = 'delivered' | 'retried' | 'dead_lettered';

/**
 * Webhook deliveries: attempts by result, counted by the replica that made them, and the backlog of undelivered
 * events over every subscription, read from the tables at each scrape (every replica reports the whole backlog).
 */
@Injectable()
export class NotificationMetrics {
  private readonly logger = new Logger('Metrics');
  private readonly deliveries: Counter<'result'>;

  constructor(runtime: RuntimeMetrics, @Inject(DATABASE) database: Database) {
    const registers = [runtime.registry];
    this.deliveries = new Counter({
      name: 'acm_notification_deliveries_total',
      help: 'Webhook delivery attempts by result: delivered, retried (failed, tried again later), dead_lettered',
      labelNames: ['result'],
      registers,
    });
    for (const result of ['delivered', 'retried', 'dead_lettered'] as const) {
      this.deliveries.inc({ result }, 0);
    }
    const logger = this.logger;
    new Gauge({
      name: 'acm_notification_undelivered_events',
      help: "Feed events past a subscription's position, summed over subscriptions: not yet delivered nor given up",
      registers,
      async collect() {
        try {
          this.set(await readUndeliveredNotifications(database.dataSource));
        } catch (error) {
          // A scrape must answer while the database is down; the gauge then keeps its last value.
          logger.warn(`Undelivered notifications not read: ${(error as Error).message}`);
        }
      },
    });
  }

  delivery(result: DeliveryResult): void {
    this.deliveries.inc({ result });
  }
}
