/**
 * A MessageBus inside one process, with Kafka's semantics (partitions, groups, committed positions,
 * per-key order) so unit and e2e tests exercise the same behaviour as production without a broker.
 * Delivery is always asynchronous (setImmediate), so a publisher never runs handlers re-entrantly.
 */
import { MessageBus, assertTopicName, consoleBusLogger } from '../message-bus';
import type {
  BusLogger,
  IncomingRecord,
  OutgoingRecord,
  SubscribeBatchOptions,
  SubscribeOptions,
  Subscription,
} from '../message-bus';
import { DEFAULT_REDELIVERY_BACKOFF, deliverBatchUntilSettled, deliverUntilSettled } from '../redelivery';
import type { BatchOutcome, RedeliveryBackoff } from '../redelivery';

export interface InMemoryMessageBusOptions {
  /** Partitions of a topic created implicitly (by publish or subscribe). Default 10, like ONAP's topics. */
  defaultPartitions?: number;
  logger?: BusLogger;
  /** Delays between attempts on a record whose handler failed transiently. Default 100 ms doubling to 5 s. */
  redeliveryBackoff?: RedeliveryBackoff;
}

interface StoredRecord {
  key: string | null;
  value: string;
  headers: Record<string, string>;
  timestamp: string;
}

/** After this many records in a row, a partition pump yields to I/O and timers. */
const YIELD_EVERY = 64;

/** Most records handed to a batch handler at once (a Kafka fetch is bounded by bytes; this plays its part). */
const MAX_BATCH = 500;

type Delivery = (SubscribeOptions & { batch?: false }) | (SubscribeBatchOptions & { batch: true });

class Member {
  private readonly inFlight = new Set<Promise<BatchOutcome>>();
  /** Aborted when the member leaves: a record being retried is given up, uncommitted, to the others. */
  private readonly leaving = new AbortController();

  constructor(
    private readonly options: Delivery,
    private readonly logger: BusLogger,
    private readonly backoff: RedeliveryBackoff,
  ) {}

  /** How many of the records ready at `position` this member takes at once. */
  get batchSize(): number {
    return this.options.batch === true ? MAX_BATCH : 1;
  }

  /**
   * Runs the handler until the records apply or are skipped, or the member leaves; never throws. Resolves how
   * many leading records are done.
   */
  async deliver(records: readonly IncomingRecord[]): Promise<BatchOutcome> {
    const common = {
      isTransientFailure: this.options.isTransientFailure,
      backoff: this.backoff,
      logger: this.logger,
      groupId: this.options.groupId,
      signal: this.leaving.signal,
    };
    const run =
      this.options.batch === true
        ? deliverBatchUntilSettled(records, {
            ...common,
            handler: this.options.handler,
            onSkipped: this.options.onSkipped,
          })
        : deliverUntilSettled(records[0]!, { ...common, handler: this.options.handler }).then((outcome) =>
            outcome === 'stopped' ? { settled: 0, stopped: true } : { settled: 1, stopped: false },
          );
    this.inFlight.add(run);
    try {
      return await run;
    } finally {
      this.inFlight.delete(run);
    }
  }

  async drain(): Promise<void> {
    this.leaving.abort();
    await Promise.all([...this.inFlight]);
  }
}

class Group {
  readonly members: Member[] = [];
  /** Next offset to deliver, per partition (the committed position). */
  readonly positions: number[];
  readonly pumping: boolean[];

  constructor(
    readonly id: string,
    start: number[],
  ) {
    this.positions = [...start];
    this.pumping = start.map(() => false);
  }

  /** Partition p belongs to member p mod n: a fixed, even spread recomputed whenever membership changes. */
  memberFor(partition: number): Member | undefined {
    return this.members.length === 0 ? undefined : this.members[partition % this.members.length];
  }
}

class Topic {
  readonly partitions: StoredRecord[][];
  readonly groups = new Map<string, Group>();
  private roundRobin = 0;

  constructor(
    readonly name: string,
    partitionCount: number,
  ) {
    this.partitions = Array.from({ length: partitionCount }, () => []);
  }

  partitionFor(key: string | null): number {
    if (key === null) {
      this.roundRobin = (this.roundRobin + 1) % this.partitions.length;
      return this.roundRobin;
    }
    return fnv1a(key) % this.partitions.length;
  }
}

/** 32-bit FNV-1a: a stable spread of keys over partitions. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Runs `work` now; its result or synchronous throw becomes the returned promise's outcome. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(work()));
}

const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** In-process MessageBus; see the port's documentation for the guaranteed semantics. */
export class InMemoryMessageBus extends MessageBus {
  private readonly topics = new Map<string, Topic>();
  private readonly members = new Set<Member>();
  private readonly defaultPartitions: number;
  private readonly logger: BusLogger;
  private readonly backoff: RedeliveryBackoff;
  private closed = false;

  constructor(options: InMemoryMessageBusOptions = {}) {
    super();
    this.defaultPartitions = options.defaultPartitions ?? 10;
    this.logger = options.logger ?? consoleBusLogger;
    this.backoff = options.redeliveryBackoff ?? DEFAULT_REDELIVERY_BACKOFF;
  }

  /** Creates a topic with a given partition count (otherwise topics appear on first use). */
  createTopic(name: string, partitions: number): Promise<void> {
    this.assertOpen();
    assertTopicName(name);
    if (!this.topics.has(name)) {
      this.topics.set(name, new Topic(name, Math.max(1, Math.floor(partitions))));
    }
    return Promise.resolve();
  }

  override publish(topicName: string, records: readonly OutgoingRecord[]): Promise<void> {
    return settle(() => {
      this.assertOpen();
      const topic = this.topic(topicName);
      const touched = new Set<number>();
      for (const record of records) {
        const partition = topic.partitionFor(record.key);
        topic.partitions[partition]!.push({
          key: record.key,
          value: record.value,
          headers: { ...record.headers },
          timestamp: String(Date.now()),
        });
        touched.add(partition);
      }
      for (const group of topic.groups.values()) {
        for (const partition of touched) {
          this.schedule(topic, group, partition);
        }
      }
    });
  }

  override subscribe(options: SubscribeOptions): Promise<Subscription> {
    return this.join({ ...options, batch: false });
  }

  override subscribeBatch(options: SubscribeBatchOptions): Promise<Subscription> {
    return this.join({ ...options, batch: true });
  }

  private join(options: Delivery): Promise<Subscription> {
    return settle(() => {
      this.assertOpen();
      const topic = this.topic(options.topic);
      let group = topic.groups.get(options.groupId);
      if (group === undefined) {
        const start = topic.partitions.map((log) => (options.fromBeginning === true ? 0 : log.length));
        group = new Group(options.groupId, start);
        topic.groups.set(options.groupId, group);
      }
      const member = new Member(options, this.logger, this.backoff);
      group.members.push(member);
      this.members.add(member);
      this.scheduleAll(topic, group);

      const joined = group;
      let closing: Promise<void> | undefined;
      return {
        close: () => {
          closing ??= this.leave(topic, joined, member);
          return closing;
        },
      };
    });
  }

  override ping(): Promise<void> {
    return settle(() => this.assertOpen());
  }

  override lag(topicName: string, groupId: string): Promise<number> {
    return settle(() => {
      this.assertOpen();
      const topic = this.topics.get(topicName);
      const group = topic?.groups.get(groupId);
      if (topic === undefined || group === undefined) {
        return 0;
      }
      return topic.partitions.reduce((sum, log, partition) => sum + log.length - (group.positions[partition] ?? 0), 0);
    });
  }

  /**
   * Resolves once every record published so far was handled by every group that has a member (records
   * published meanwhile are waited for too). A process that closes the bus after this loses nothing it
   * published, as a broker would have kept it.
   */
  async whenDelivered(): Promise<void> {
    while (!this.closed && this.hasUndelivered()) {
      await nextMacrotask();
    }
  }

  private hasUndelivered(): boolean {
    for (const topic of this.topics.values()) {
      for (const group of topic.groups.values()) {
        if (group.members.length === 0) {
          continue;
        }
        const behind = topic.partitions.some(
          (log, partition) => group.pumping[partition] === true || group.positions[partition]! < log.length,
        );
        if (behind) {
          return true;
        }
      }
    }
    return false;
  }

  override async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    for (const topic of this.topics.values()) {
      for (const group of topic.groups.values()) {
        group.members.splice(0);
      }
    }
    const members = [...this.members];
    this.members.clear();
    await Promise.all(members.map((member) => member.drain()));
  }

  private async leave(topic: Topic, group: Group, member: Member): Promise<void> {
    const index = group.members.indexOf(member);
    if (index >= 0) {
      group.members.splice(index, 1);
    }
    this.members.delete(member);
    await member.drain();
    // The partitions it held now belong to the remaining members.
    this.scheduleAll(topic, group);
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new Error('MessageBus is closed');
    }
  }

  private topic(name: string): Topic {
    let topic = this.topics.get(name);
    if (topic === undefined) {
      assertTopicName(name);
      topic = new Topic(name, this.defaultPartitions);
      this.topics.set(name, topic);
    }
    return topic;
  }

  private scheduleAll(topic: Topic, group: Group): void {
    for (let partition = 0; partition < topic.partitions.length; partition += 1) {
      this.schedule(topic, group, partition);
    }
  }

  /** Starts the partition's pump for the group unless one is running; never runs handlers synchronously. */
  private schedule(topic: Topic, group: Group, partition: number): void {
    if (group.pumping[partition] === true) {
      return;
    }
    group.pumping[partition] = true;
    setImmediate(() => {
      void this.pump(topic, group, partition);
    });
  }

  /** Delivers the partition's records in order (one at a time, or what is ready for a batch member) to its owner. */
  private async pump(topic: Topic, group: Group, partition: number): Promise<void> {
    const log = topic.partitions[partition]!;
    let sinceYield = 0;
    try {
      for (;;) {
        const position = group.positions[partition]!;
        const member = group.memberFor(partition);
        if (this.closed || member === undefined || position >= log.length) {
          return;
        }
        const records = log.slice(position, position + member.batchSize).map((stored, index) => ({
          topic: topic.name,
          partition,
          offset: String(position + index),
          key: stored.key,
          value: stored.value,
          timestamp: stored.timestamp,
          headers: { ...stored.headers },
        }));
        const outcome = await member.deliver(records);
        // A member that left while retrying leaves the rest at the group's position for the next owner.
        group.positions[partition] = position + outcome.settled;
        if (outcome.stopped) {
          continue;
        }
        sinceYield += 1;
        if (sinceYield >= YIELD_EVERY) {
          sinceYield = 0;
          await nextMacrotask();
        }
      }
    } finally {
      group.pumping[partition] = false;
    }
  }
}
