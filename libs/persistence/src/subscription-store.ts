import { SubscriptionStore } from '@acm/domain';
import type { DeliveryState, StoredSubscription, Subscription } from '@acm/domain';
import type { DataSource } from 'typeorm';

interface SubscriptionRow {
  body: Subscription;
  secret: string | null;
  delivery: DeliveryState;
}

const storedOf = (row: SubscriptionRow): StoredSubscription => ({
  subscription: row.body,
  secret: row.secret,
  delivery: row.delivery,
});

/** TypeORM answers an UPDATE/DELETE ... RETURNING as [rows, count] on PostgreSQL. */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** The subscription port on PostgreSQL: `acm_subscription`, its delivery state a jsonb document. */
export class TypeOrmSubscriptionStore extends SubscriptionStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  override async create(stored: StoredSubscription): Promise<void> {
    const { subscription } = stored;
    await this.dataSource.query(
      `INSERT INTO acm_subscription (subscription_id, created_at, body, secret, delivery, next_attempt_at)
       VALUES ($1, $2, $3::jsonb, $4, $5::jsonb, $6)`,
      [
        subscription.subscriptionId,
        subscription.createdAt,
        JSON.stringify(subscription),
        stored.secret,
        JSON.stringify(stored.delivery),
        stored.delivery.nextAttemptAt,
      ],
    );
  }

  override async find(subscriptionId: string): Promise<StoredSubscription | null> {
    const rows = await this.dataSource.query<SubscriptionRow[]>(
      `SELECT body, secret, delivery FROM acm_subscription WHERE subscription_id = $1`,
      [subscriptionId],
    );
    return rows[0] === undefined ? null : storedOf(rows[0]);
  }

  override async list(limit: number): Promise<StoredSubscription[]> {
    const rows = await this.dataSource.query<SubscriptionRow[]>(
      `SELECT body, secret, delivery FROM acm_subscription ORDER BY created_at, subscription_id LIMIT $1`,
      [limit],
    );
    return rows.map(storedOf);
  }

  override async delete(subscriptionId: string): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(`DELETE FROM acm_subscription WHERE subscription_id = $1 RETURNING subscription_id`, [
        subscriptionId,
      ]),
    );
    return rows.length > 0;
  }

  override async due(now: number, limit: number): Promise<string[]> {
    const rows = await this.dataSource.query<Array<{ subscription_id: string }>>(
      `SELECT subscription_id FROM acm_subscription
       WHERE next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
       ORDER BY next_attempt_at, subscription_id LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => row.subscription_id);
  }

  override async lease(
    subscriptionId: string,
    owner: string,
    now: number,
    until: number,
  ): Promise<StoredSubscription | null> {
    const rows = rowsOf<SubscriptionRow>(
      await this.dataSource.query(
        `UPDATE acm_subscription SET lease_owner = $2, lease_until = $4
         WHERE subscription_id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < $3)
         RETURNING body, secret, delivery`,
        [subscriptionId, owner, now, until],
      ),
    );
    return rows[0] === undefined ? null : storedOf(rows[0]);
  }

  override async saveDelivery(subscriptionId: string, owner: string, delivery: DeliveryState): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(
        `UPDATE acm_subscription SET delivery = $3::jsonb, next_attempt_at = $4
         WHERE subscription_id = $1 AND lease_owner = $2 RETURNING subscription_id`,
        [subscriptionId, owner, JSON.stringify(delivery), delivery.nextAttemptAt],
      ),
    );
    return rows.length > 0;
  }

  override async release(subscriptionId: string, owner: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE acm_subscription SET lease_owner = NULL, lease_until = NULL WHERE subscription_id = $1 AND lease_owner = $2`,
      [subscriptionId, owner],
    );
  }
}

/**
 * The notification backlog: over every subscription, the feed's events past its position (committed, not yet
 * delivered, dead-lettered or passed over as not matching its filter). 0 once every deliverer caught up.
 */
export async function readUndeliveredNotifications(dataSource: DataSource): Promise<number> {
  const [row] = await dataSource.query<Array<{ count: string }>>(
    `SELECT count(*) AS count FROM acm_subscription s
     JOIN acm_event e ON e.feed_position > (s.delivery->>'position')::bigint`,
  );
  return Number(row?.count ?? 0);
}
