import { MessageBus } from '@acm/messaging';
import type { OutgoingRecord } from '@acm/messaging';
import { TypeOrmUnitOfWork } from '@acm/persistence';
import type { QueuedRecord } from '@acm/persistence';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { Injectable, Logger } from '@nestjs/common';
import { EngineMetrics } from '../engine/engine-metrics';
import { SensitiveValues } from '../security/sensitive-values';

/** Rows claimed per round trip to the database. */
const BATCH = 200;

/**
 * Sends what transactions queued in the outbox. The rows a commit queued are published right after that
 * commit, from memory (so a phase's message leaves within one publish of its ACK); a pass over the table
 * on start-up and on every supervision tick sends whatever a crash or a broker outage left behind. Rows are
 * deleted only once the broker acknowledged them: at least once.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap {
  private readonly logger = new Logger('Outbox');
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly sending = new Set<Promise<void>>();
  /** Ids of sent rows waiting for the DELETE after the one running (`deleting`). */
  private toDelete: string[] = [];
  private deleting: Promise<void> | null = null;

  constructor(
    private readonly unitOfWork: TypeOrmUnitOfWork,
    private readonly bus: MessageBus,
    private readonly metrics: EngineMetrics,
    private readonly sensitive: SensitiveValues,
  ) {}

  onApplicationBootstrap(): void {
    this.unitOfWork.onOutboxCommitted((records) => {
      const sending = this.sendCommitted(records);
      this.sending.add(sending);
      void sending.finally(() => this.sending.delete(sending));
    });
    this.kick();
  }

  /** Publishes rows that just committed; on failure they stay in the table for the next pass. */
  private async sendCommitted(records: readonly QueuedRecord[]): Promise<void> {
    if (this.stopped) {
      return;
    }
    try {
      await this.publish(records);
      await this.forget(records.map((record) => record.id));
    } catch (error) {
      this.logger.warn(
        `Publishing failed, the next pass retries: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /**
   * Deletes sent rows. While one DELETE runs, the ids of the sends that finish meanwhile are queued and go out in
   * the next one, so concurrent commits share a statement instead of one each; each caller waits for the round
   * that carries its ids. A failed round leaves its rows in the table, for the next pass (at least once).
   */
  private forget(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) {
      return Promise.resolve();
    }
    this.toDelete.push(...ids);
    // deleteQueued awaits before it can finish, so `deleting` is set before its `finally` clears it.
    this.deleting ??= this.deleteQueued();
    return this.deleting;
  }

  private async deleteQueued(): Promise<void> {
    try {
      while (this.toDelete.length > 0) {
        await this.unitOfWork.deleteOutbox(this.toDelete.splice(0));
      }
    } finally {
      // In the same turn as the loop's last check: ids queued after it start a round of their own.
      this.deleting = null;
    }
  }

  private async publish(records: readonly QueuedRecord[]): Promise<void> {
    const byTopic = new Map<string, OutgoingRecord[]>();
    for (const record of records) {
      const list = byTopic.get(record.topic) ?? [];
      // Rows keep sensitive values encrypted; they are decrypted only here, as the message leaves. The trace
      // context of the transaction that wrote the row leaves with it as W3C headers (traceparent, tracestate).
      list.push({
        key: record.key,
        value: this.sensitive.revealInMessage(record.value),
        ...(record.headers === undefined ? {} : { headers: { ...record.headers } }),
      });
      byTopic.set(record.topic, list);
    }
    for (const [topic, list] of byTopic) {
      await this.bus.publish(topic, list);
      this.metrics.messagesSent.inc({ topic }, list.length);
    }
  }

  /**
   * Stops sending and waits for the sends in progress (called by the runtime's shutdown sequence). Rows
   * not yet sent stay in the table for the next start.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.running, ...this.sending]);
  }

  /** Starts a relay pass, or asks the running one to go round once more. */
  kick(): void {
    if (this.stopped) {
      return;
    }
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves once nothing is left that this pass can see. */
  async flush(): Promise<void> {
    this.kick();
    while (this.running) {
      await this.running;
    }
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const sent = await this.unitOfWork.relayOutbox((records) => this.publish(records), BATCH);
        if (sent < BATCH || this.stopped) {
          return;
        }
      }
    } catch (error) {
      this.logger.warn(
        `Outbox relay failed, the next tick retries: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
