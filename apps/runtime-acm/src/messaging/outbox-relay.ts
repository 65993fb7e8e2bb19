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
 *
 * Committed rows leave one publish at a time, in commit order: the rows of the commits that land while a
 * publish is in flight go together in the next one, and their rows are deleted with one statement. The
 * producer sends one request at a time anyway (it is idempotent), so under load this turns a queue of small
 * requests, each a round trip, into a few large ones.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap {
  private readonly logger = new Logger('Outbox');
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Committed rows not yet handed to the bus, in commit order. */
  private readonly committed: QueuedRecord[] = [];
  private sendingCommitted: Promise<void> | null = null;
  /** Ids of rows the broker acknowledged and the table still holds. */
  private readonly sent: string[] = [];
  private deletingSent: Promise<void> | null = null;

  constructor(
    private readonly unitOfWork: TypeOrmUnitOfWork,
    private readonly bus: MessageBus,
    private readonly metrics: EngineMetrics,
    private readonly sensitive: SensitiveValues,
  ) {}

  onApplicationBootstrap(): void {
    this.unitOfWork.onOutboxCommitted((records) => {
      if (this.stopped) {
        return;
      }
      this.committed.push(...records);
      this.sendingCommitted ??= this.sendCommitted().finally(() => {
        this.sendingCommitted = null;
      });
    });
    this.kick();
  }

  /**
   * Publishes committed rows until none wait; rows that fail stay in the table for the next pass. The delete of
   * what was sent runs beside the next publish (see `forget`).
   */
  private async sendCommitted(): Promise<void> {
    while (this.committed.length > 0 && !this.stopped) {
      const records = this.committed.splice(0, BATCH);
      try {
        await this.publish(records);
      } catch (error) {
        this.logger.warn(
          `Publishing failed, the next pass retries: ${error instanceof Error ? error.message : String(error)}`,
        );
        continue;
      }
      this.forget(records.map((record) => record.id));
    }
  }

  /**
   * Deletes sent rows one statement at a time: the ids sent while a delete is in flight go together in the next
   * one, so under load a publish costs no statement of its own (on the embedded database's one connection, a
   * statement per publish was a tenth of its time).
   */
  private forget(ids: readonly string[]): void {
    if (ids.length === 0) {
      return;
    }
    this.sent.push(...ids);
    this.deletingSent ??= this.deleteSent();
  }

  private async deleteSent(): Promise<void> {
    while (this.sent.length > 0) {
      const ids = this.sent.splice(0);
      await this.unitOfWork.deleteOutbox(ids).catch((error: unknown) => {
        // Sent but still in the table: the next pass sends it again (at least once).
        this.logger.warn(`Deleting sent rows failed: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
    // In the same turn as the loop's last check, so an id sent from now on starts a new delete.
    this.deletingSent = null;
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
    await Promise.all([this.running, this.sendingCommitted]);
    await this.deletingSent;
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
