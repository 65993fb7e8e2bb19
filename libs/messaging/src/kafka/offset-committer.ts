import { describeError } from '../message-bus';
import type { BusLogger } from '../message-bus';

/** A committed position: the next record of the partition to read. */
export interface CommittedPosition {
  topic: string;
  partition: number;
  offset: string;
}

/** What the committer needs of a consumer (kafkajs' `Consumer` is one). */
export interface OffsetCommitClient {
  commitOffsets(positions: CommittedPosition[]): Promise<void>;
}

/**
 * Commits a consumer's handled offsets beside its fetch loop. kafkajs' own auto-commit sends an OffsetCommit after
 * every batch and waits for it before the partition's next fetch: a round trip to the group coordinator between one
 * record and the next, and one request to the broker per batch. Here one commit is in flight at a time, and what is
 * handled meanwhile goes in the next one, so under load a commit covers many batches. An offset is committed only
 * once its record was handled (at least once); a commit that fails (a rebalance) leaves the record to be handled
 * again by the partition's next owner, which the handlers' idempotence makes harmless.
 *
 * With an interval, the next commit waits that long after the last one. One deploy at a time otherwise costs a
 * commit per fetched batch, about four per phase across the runtime and a participant, and Kafka answers the
 * requests of one connection in order, so a fetch could queue behind a commit. A crash then replays at most an
 * interval more of records, which idempotence makes harmless too; `flush` (closing) does not wait for it.
 */
export class OffsetCommitter {
  private readonly pending = new Map<string, CommittedPosition>();
  /** The highest position asked for per partition: a position never moves back. */
  private readonly highest = new Map<string, bigint>();
  private running: Promise<void> | undefined;
  /** Ends the wait between two commits early (flush). */
  private endPause: (() => void) | undefined;
  private flushing = 0;

  constructor(
    private readonly consumer: OffsetCommitClient,
    private readonly logger: BusLogger,
    private readonly intervalMs = 0,
  ) {}

  /** The record at `offset` was handled: the group's position becomes the record after it. */
  handled(topic: string, partition: number, offset: string): void {
    this.commit(topic, partition, (BigInt(offset) + 1n).toString());
  }

  /** Makes `offset` the group's position (a start pinned at join, before any record was handled). */
  commit(topic: string, partition: number, offset: string): void {
    const key = `${topic}|${partition}`;
    const position = BigInt(offset);
    if (position <= (this.highest.get(key) ?? -1n)) {
      return;
    }
    this.highest.set(key, position);
    this.pending.set(key, { topic, partition, offset });
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves once everything handled so far was committed, or its commit failed. */
  async flush(): Promise<void> {
    this.flushing += 1;
    try {
      this.endPause?.();
      while (this.running !== undefined) {
        await this.running;
      }
    } finally {
      this.flushing -= 1;
    }
  }

  private pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      // Unreferenced: a process may end during the wait, leaving those records to be handled again.
      const timer = setTimeout(resolve, this.intervalMs).unref();
      this.endPause = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      this.endPause = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const offsets = [...this.pending.values()];
      this.pending.clear();
      try {
        await this.consumer.commitOffsets(offsets);
      } catch (error) {
        // Not committed: a later position for these partitions (the same records handled again) may be asked again.
        for (const { topic, partition, offset } of offsets) {
          const key = `${topic}|${partition}`;
          if (this.highest.get(key) === BigInt(offset)) {
            this.highest.delete(key);
          }
        }
        this.logger('debug', 'Offset commit failed; the records after the last commit may be handled again', {
          error: describeError(error),
        });
      }
      // Still running while it waits: what is handled meanwhile goes in the next commit.
      if (this.intervalMs > 0 && this.flushing === 0) {
        await this.pause();
      }
    }
  }
}
