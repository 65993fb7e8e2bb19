/**
 * Waits for operations to finish by reading the runtime's acm_operation table directly: one small
 * indexed query per period for everything in flight, instead of one REST poll per instance (which
 * would load the very runtime being measured). Timing never comes from here: durations are the
 * runtime's own started_at/finished_at.
 */
import type { Pool } from 'pg';
import { sleep } from './util';

interface Waiter {
  resolve: (state: string) => void;
  reject: (error: Error) => void;
  deadline: number;
}

export class OperationWatcher {
  private readonly waiting = new Map<string, Waiter>();
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: Pool,
    private readonly orderName: string,
    private readonly periodMs = 5,
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    for (const [id, waiter] of this.waiting) {
      waiter.reject(new Error(`watcher stopped before ${this.orderName} of ${id} finished`));
    }
    this.waiting.clear();
  }

  /** Resolves with the final operation state (COMPLETED, FAILED, ...); rejects after `timeoutMs`. */
  finished(targetId: string, timeoutMs = 120_000): Promise<string> {
    return new Promise((resolve, reject) => {
      this.waiting.set(targetId, { resolve, reject, deadline: Date.now() + timeoutMs });
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (this.waiting.size > 0) {
        const ids = [...this.waiting.keys()];
        const rows = await this.pool
          .query<{ target_id: string; state: string }>(
            `SELECT target_id, state FROM acm_operation
             WHERE target_id = ANY($1::uuid[]) AND order_name = $2 AND state <> 'RUNNING'`,
            [ids, this.orderName],
          )
          .then(
            (result) => result.rows,
            // A failed read is retried next period; the deadlines below still bound every wait.
            () => [],
          );
        for (const row of rows) {
          this.waiting.get(row.target_id)?.resolve(row.state);
          this.waiting.delete(row.target_id);
        }
        const now = Date.now();
        for (const [id, waiter] of this.waiting) {
          if (now > waiter.deadline) {
            waiter.reject(new Error(`${this.orderName} of ${id} did not finish in time`));
            this.waiting.delete(id);
          }
        }
      }
      await sleep(this.periodMs);
    }
  }
}
