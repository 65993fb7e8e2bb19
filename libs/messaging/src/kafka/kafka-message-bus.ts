/**
 * The Kafka adapter of the MessageBus port; its folder is the only place of the product that imports kafkajs (so
 * the client can be swapped, e.g. for @platformatic/kafka, in one place).
 *
 * Tuned for latency, because the runtime advances a phase on each ACK and every phase costs at least
 * one produce→consume hop each way: consumers long-poll with `minBytes: 1` (the broker answers as soon
 * as one record exists); the producer sends each publish at once (kafkajs does not linger). Safety is not traded away: the producer is idempotent with `acks: -1`, so a retried
 * send can neither duplicate nor reorder records of a partition.
 */
import type { ConnectionOptions } from 'node:tls';

import { Kafka, KafkaJSError, Partitioners, logLevel } from 'kafkajs';
import type {
  Admin,
  Consumer,
  ConsumerRunConfig,
  IHeaders,
  KafkaMessage,
  LogEntry,
  Producer,
  SASLOptions,
} from 'kafkajs';

import { MessageBus, assertTopicName, consoleBusLogger, describeError } from '../message-bus';
import { clusterIdReader } from './cluster-id';
import type { ClusterIdReader } from './cluster-id';
import { OffsetCommitter } from './offset-committer';
import { installKafkajsIdleLoopFix } from './kafkajs-idle-loop';
import { DEFAULT_REDELIVERY_BACKOFF, deliverBatchUntilSettled, deliverUntilSettled } from '../redelivery';
import type { RedeliveryBackoff } from '../redelivery';
import type {
  BusLogLevel,
  BusLogger,
  IncomingRecord,
  OutgoingRecord,
  SubscribeBatchOptions,
  SubscribeOptions,
  Subscription,
} from '../message-bus';

/** A subscription's options with the way its records are handed over: one at a time, or a fetch at a time. */
type Delivery = (SubscribeOptions & { batch?: false }) | (SubscribeBatchOptions & { batch: true });

function toIncoming(topic: string, partition: number, message: KafkaMessage): IncomingRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key === null ? null : message.key.toString('utf8'),
    value: message.value === null ? '' : message.value.toString('utf8'),
    timestamp: message.timestamp,
    headers: headersToStrings(message.headers),
  };
}

/** Thrown from a handler callback so kafkajs ends it without committing and without a crash (see its uses). */
function stoppedWhileRetrying(): KafkaJSError {
  return new KafkaJSError('Subscription closed while retrying a record; its offset stays uncommitted', {
    retriable: true,
  });
}

/** Consumer settings; defaults in {@link DEFAULT_KAFKA_CONSUMER_TUNING}. */
export interface KafkaConsumerTuning {
  /** A member silent this long is evicted and its partitions move (kafkajs default 30 000). */
  sessionTimeout?: number;
  /** Also how fast a member notices a rebalance (kafkajs default 3 000). */
  heartbeatInterval?: number;
  /** How long an existing member may take to rejoin during a rebalance (kafkajs default 60 000). */
  rebalanceTimeout?: number;
  /**
   * Longest an idle fetch is parked at the broker; data is returned the moment it arrives whatever this
   * is (with `minBytes: 1`). It bounds how long `Subscription.close` and noticing a rebalance take.
   * (kafkajs default 5 000.)
   */
  maxWaitTimeInMs?: number;
  /** Partitions handled in parallel by one subscription; one partition (so one key) stays sequential. */
  partitionsConsumedConcurrently?: number;
  /**
   * Least time between two offset commits of a subscription; what is handled meanwhile goes in one commit, and a
   * crash handles at most that much more again (see OffsetCommitter). 0 commits after every batch.
   */
  commitIntervalMs?: number;
}

/**
 * Latency-first defaults, chosen by measurement (docs/messaging.md): a 500 ms fetch wait gave the
 * lowest produce→consume latency (shorter waits were measurably slower: more empty fetch cycles for a
 * record to fall between) while keeping close and rebalances sub-second; dead members are detected in
 * 10 s; 10 partitions in parallel (ONAP creates its topics with 10).
 */
export const DEFAULT_KAFKA_CONSUMER_TUNING: Required<KafkaConsumerTuning> = {
  sessionTimeout: 10_000,
  heartbeatInterval: 1_000,
  rebalanceTimeout: 30_000,
  maxWaitTimeInMs: 500,
  partitionsConsumedConcurrently: 10,
  commitIntervalMs: 100,
};

export interface KafkaMessageBusOptions {
  /** `host:port` bootstrap servers. */
  brokers: string[];
  /** Client id shown in broker logs and quotas. Default `acm-runtime`. */
  clientId?: string;
  /** TLS: `true` for system CAs, or Node TLS options (CA, client certificate). Passed through to kafkajs. */
  ssl?: boolean | ConnectionOptions;
  /** SASL (plain, scram-sha-256/512, aws, oauthbearer). Passed through to kafkajs. */
  sasl?: SASLOptions;
  /** Let produce/subscribe create missing topics (ONAP's `KAFKA_ALLOW_AUTO_CREATE_TOPICS`, default true). */
  allowAutoTopicCreation?: boolean;
  /** TCP connect timeout per broker, ms. Default 3 000. */
  connectionTimeout?: number;
  /** Broker request timeout, ms. Default 30 000. */
  requestTimeout?: number;
  /** Client retry policy for connections and retriable errors (kafkajs default: 5 retries from 300 ms). */
  retry?: { retries?: number; initialRetryTime?: number; maxRetryTime?: number };
  consumer?: KafkaConsumerTuning;
  /** Longest `subscribe` waits for the group join and first fetch. Default 30 000 ms. */
  subscribeTimeoutMs?: number;
  /** Delays between attempts on a record whose handler failed transiently. Default 100 ms doubling to 5 s. */
  redeliveryBackoff?: RedeliveryBackoff;
  /**
   * How often the cluster id is read, ms, to notice a broker that came back as a new, empty cluster
   * (its log directory lost). Default 1 000; 0 turns the check off.
   */
  clusterCheckIntervalMs?: number;
  logger?: BusLogger;
}

const LOG_LEVELS: Partial<Record<logLevel, BusLogLevel>> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * kafkajs logs some routine, retried protocol answers as errors; a rebalance in particular happens every
 * time a replica joins or leaves. Those are downgraded to info so ERROR keeps meaning "look at me".
 */
const ROUTINE_ERRORS = [
  'The group is rebalancing',
  'The coordinator is loading',
  // Transient while a new topic's partitions get their leaders; retried, and reported if final.
  'This server does not host this topic-partition',
  'This server is not the leader for that topic-partition',
  'There is no leader for this topic-partition',
];

/** Routes kafkajs' own log lines (WARN and above) to the injected logger. */
function kafkaLogCreator(logger: BusLogger) {
  return () =>
    ({ namespace, level, log }: LogEntry): void => {
      const { message, timestamp: _timestamp, ...extra } = log;
      const detail = `${message} ${String(extra['error'] ?? '')}`;
      const routine = ROUTINE_ERRORS.some((text) => detail.includes(text));
      logger(routine ? 'info' : (LOG_LEVELS[level] ?? 'info'), `kafkajs ${namespace}: ${message}`, extra);
    };
}

function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) {
      result[name] = first.toString();
    }
  }
  return result;
}

const TOPIC_READY_TIMEOUT_MS = 10_000;
/** How long a readiness ping waits for the cluster to answer. */
const PING_TIMEOUT_MS = 3_000;

/** The unfixed idle loop is reported once per process, not per bus. */
let idleLoopFixWarned = false;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Worth another attempt: kafkajs marks transient protocol errors `retriable`; a missing group
 * coordinator (broker starting, offsets topic loading) is marked final by kafkajs but clears quickly.
 */
function isRetriable(error: unknown): boolean {
  if (!(error instanceof Error)) {
    return false;
  }
  return (
    (error as Error & { retriable?: unknown }).retriable === true || error.name === 'KafkaJSGroupCoordinatorNotFound'
  );
}

/**
 * Broker answers meaning the idempotent producer's id or sequence is no longer valid there: the broker
 * lost its producer state (restarted as a new, empty cluster) or expired the id. kafkajs never
 * re-initialises a producer by itself, so every later send would fail the same way.
 */
const PRODUCER_STATE_LOST = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_ID_MAPPING',
]);

function lostProducerState(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) {
    return false;
  }
  const { type, cause, errors } = error as { type?: unknown; cause?: unknown; errors?: unknown };
  return (
    (typeof type === 'string' && PRODUCER_STATE_LOST.has(type)) ||
    lostProducerState(cause, depth + 1) ||
    (Array.isArray(errors) && errors.some((inner) => lostProducerState(inner, depth + 1)))
  );
}

/** Memoises an async connect; a failure is not cached, so the next call retries. */
function lazily<T>(connect: () => Promise<T>): {
  get(): Promise<T>;
  peek(): Promise<T> | undefined;
  forget(): void;
} {
  let pending: Promise<T> | undefined;
  return {
    forget() {
      pending = undefined;
    },
    get() {
      pending ??= connect().catch((error: unknown) => {
        pending = undefined;
        throw error;
      });
      return pending;
    },
    peek() {
      return pending;
    },
  };
}

/** MessageBus over Apache Kafka (kafkajs 2.2). See the port and `docs/messaging.md` for semantics. */
export class KafkaMessageBus extends MessageBus {
  private readonly kafka: Kafka;
  private readonly logger: BusLogger;
  private readonly tuning: Required<KafkaConsumerTuning>;
  private readonly allowAutoTopicCreation: boolean;
  private readonly subscribeTimeoutMs: number;
  private readonly redeliveryBackoff: RedeliveryBackoff;
  private readonly subscriptions = new Set<Subscription>();
  /** Consumers that restart from the beginning when the cluster is replaced, by their subscription. */
  private readonly restarts = new Map<Subscription, () => Promise<void>>();
  private readonly clusterCheckIntervalMs: number;
  private clusterCheck: NodeJS.Timeout | undefined;
  /** The cluster id first seen; undefined until a broker answered. */
  private clusterId: string | undefined;
  /** The recovery from a cluster change in progress, so checks do not overlap. */
  private clusterCheckRunning: Promise<boolean> | undefined;
  /** A send failed: the broker may have come back as a new cluster, so check before the next send. */
  private verifyClusterBeforeSend = false;
  private consumerRestarts: Promise<void> = Promise.resolve();
  /** Topics known to exist, so auto-creation is checked once per topic, not per publish. */
  private readonly knownTopics = new Set<string>();
  private readonly producer: ReturnType<typeof lazily<Producer>>;
  private readonly admin: ReturnType<typeof lazily<Admin>>;
  /**
   * Reads the cluster id only, without kafkajs' retries: a check during an outage must fail at once
   * rather than retry for tens of seconds and make the next one (and a waiting publish) late.
   */
  private readonly clusterAdmin: ReturnType<typeof lazily<Admin>>;
  private readonly clusterIdReader: ClusterIdReader;
  /** Topics this bus published to or subscribed to: the cluster id check names one of them. */
  private readonly topicsInUse = new Set<string>();
  private closed = false;

  constructor(options: KafkaMessageBusOptions) {
    super();
    this.logger = options.logger ?? consoleBusLogger;
    const idleLoopFix = installKafkajsIdleLoopFix();
    if (!idleLoopFix.applied && !idleLoopFixWarned) {
      idleLoopFixWarned = true;
      this.logger('warn', 'kafkajs idle-connection timer loop left unfixed', { ...idleLoopFix });
    }
    this.tuning = { ...DEFAULT_KAFKA_CONSUMER_TUNING, ...options.consumer };
    this.allowAutoTopicCreation = options.allowAutoTopicCreation ?? true;
    this.subscribeTimeoutMs = options.subscribeTimeoutMs ?? 30_000;
    this.redeliveryBackoff = options.redeliveryBackoff ?? DEFAULT_REDELIVERY_BACKOFF;
    this.clusterCheckIntervalMs = options.clusterCheckIntervalMs ?? 1_000;
    const client = {
      clientId: options.clientId ?? 'acm-runtime',
      brokers: options.brokers,
      ssl: options.ssl,
      sasl: options.sasl,
      connectionTimeout: options.connectionTimeout ?? 3_000,
      requestTimeout: options.requestTimeout ?? 30_000,
      logLevel: logLevel.WARN,
      logCreator: kafkaLogCreator(this.logger),
    };
    this.kafka = new Kafka({ ...client, retry: options.retry });
    this.producer = lazily(async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: this.allowAutoTopicCreation,
        // Explicit, so kafkajs does not warn; murmur2 like Java clients, so a key lands on the same
        // partition whichever side (ONAP Java or us) produced it.
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      this.watchCluster();
      return producer;
    });
    this.admin = lazily(async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    });
    this.clusterAdmin = lazily(async () => {
      const admin = this.kafka.admin({ retry: { retries: 0 } });
      await admin.connect();
      return admin;
    });
    this.clusterIdReader = clusterIdReader(new Kafka({ ...client, retry: { retries: 0 } }), () =>
      this.clusterAdmin.get(),
    );
  }

  /** Connects the producer now (e.g. a start-up health gate) instead of on the first publish. */
  async connect(): Promise<void> {
    this.assertOpen();
    await this.producer.get();
  }

  /** Creates topics that do not exist yet (existing ones are left as they are). */
  async createTopics(topics: ReadonlyArray<{ topic: string; numPartitions?: number }>): Promise<void> {
    this.assertOpen();
    topics.forEach(({ topic }) => assertTopicName(topic));
    const admin = await this.admin.get();
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter(({ topic }) => !existing.has(topic));
    if (missing.length > 0) {
      // numPartitions -1 = the broker's num.partitions. A concurrent creator wins harmlessly.
      await admin.createTopics({
        waitForLeaders: false,
        topics: missing.map(({ topic, numPartitions }) => ({ topic, numPartitions: numPartitions ?? -1 })),
      });
      await Promise.all(missing.map(({ topic }) => this.waitForLeaders(admin, topic)));
    }
    topics.forEach(({ topic }) => this.knownTopics.add(topic));
  }

  /**
   * Waits until a new topic answers offset queries on every partition. kafkajs' own `waitForLeaders`
   * only tolerates LEADER_NOT_AVAILABLE, but a KRaft broker (Kafka 4) first answers
   * UNKNOWN_TOPIC_OR_PARTITION, then briefly NOT_LEADER_OR_FOLLOWER.
   */
  private async waitForLeaders(admin: Admin, topic: string): Promise<void> {
    const deadline = Date.now() + TOPIC_READY_TIMEOUT_MS;
    for (;;) {
      try {
        await admin.fetchTopicOffsets(topic);
        return;
      } catch (error) {
        if (!isRetriable(error) || Date.now() > deadline) {
          throw error;
        }
      }
      await sleep(50);
    }
  }

  /**
   * With auto-creation on, creates a missing topic explicitly (waiting for its leaders) before first use:
   * the broker's implicit creation answers the first metadata request with an error, which kafkajs'
   * consumer does not retry and both clients log as errors.
   */
  private async ensureTopic(topic: string): Promise<void> {
    if (this.allowAutoTopicCreation && !this.knownTopics.has(topic)) {
      await this.createTopics([{ topic }]);
    }
  }

  override async publish(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    this.assertOpen();
    assertTopicName(topic);
    if (records.length === 0) {
      return;
    }
    this.topicsInUse.add(topic);
    if (this.verifyClusterBeforeSend && this.clusterCheckIntervalMs > 0 && (await this.checkClusterOnce())) {
      this.verifyClusterBeforeSend = false;
    }
    await this.ensureTopic(topic);
    const messages = records.map((record) => ({ key: record.key, value: record.value, headers: record.headers }));
    const producer = await this.producer.get();
    try {
      await producer.send({ topic, acks: -1, messages });
    } catch (error) {
      if (!lostProducerState(error) || this.closed) {
        this.verifyClusterBeforeSend = true;
        throw error;
      }
      this.logger('warn', 'The broker no longer knows this producer; re-initialising it', {
        topic,
        error: describeError(error),
      });
      await this.replaceProducer(producer);
      await (await this.producer.get()).send({ topic, acks: -1, messages });
    }
  }

  /** Drops a producer whose id the broker refuses; the next `get` connects a new one with a new id. */
  private async replaceProducer(stale: Producer | undefined): Promise<void> {
    const current = this.producer.peek();
    if (current === undefined || (await current.catch(() => undefined)) === stale) {
      this.producer.forget();
    }
    await stale?.disconnect().catch(() => undefined);
  }

  override subscribe(options: SubscribeOptions): Promise<Subscription> {
    return this.subscribeAs({ ...options, batch: false });
  }

  override subscribeBatch(options: SubscribeBatchOptions): Promise<Subscription> {
    return this.subscribeAs({ ...options, batch: true });
  }

  private async subscribeAs(options: Delivery): Promise<Subscription> {
    this.assertOpen();
    assertTopicName(options.topic);
    this.topicsInUse.add(options.topic);
    let current = await this.subscribeWithRetries(options);
    let closed: Promise<void> | undefined;
    const subscription: Subscription = {
      close: () => {
        closed ??= (async () => {
          this.subscriptions.delete(subscription);
          this.restarts.delete(subscription);
          await current.close();
        })();
        return closed;
      },
    };
    this.subscriptions.add(subscription);
    // On a new cluster every record is new to this group, and the consumer's in-memory fetch positions
    // belong to the old log (one still inside the new, shorter log would skip records below it).
    // Seeking to the start also overrides a position the old consumer committed on the new cluster
    // before the change was noticed. Records handled again are within the at-least-once contract.
    this.restarts.set(subscription, async () => {
      await current.close();
      const restarted = await this.subscribeWithRetries(options, 'earliest');
      if (this.restarts.has(subscription)) {
        current = restarted;
      } else {
        await restarted.close(); // closed while restarting
      }
    });
    this.watchCluster();
    return subscription;
  }

  /** `start`: where the group starts as `subscribe` defines it, or at the oldest record on every partition. */
  private async subscribeWithRetries(
    options: Delivery,
    start: 'as-subscribed' | 'earliest' = 'as-subscribed',
  ): Promise<Subscription> {
    const deadline = Date.now() + this.subscribeTimeoutMs;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.subscribeOnce(options, deadline, start);
      } catch (error) {
        const backoff = Math.min(1_000, 100 * 2 ** attempt);
        if (this.closed || !isRetriable(error) || Date.now() + backoff >= deadline) {
          throw error;
        }
        this.logger('warn', 'Subscribe failed, retrying', {
          topic: options.topic,
          groupId: options.groupId,
          attempt,
          error: describeError(error),
        });
        await sleep(backoff);
      }
    }
  }

  private async subscribeOnce(
    options: Delivery,
    deadline: number,
    start: 'as-subscribed' | 'earliest',
  ): Promise<Subscription> {
    const closing = new AbortController();
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      // kafkajs restarts a crashed consumer even when it crashed because it was being closed (a record
      // in its redelivery wait): the closed member would rejoin the group and hold partitions forever.
      retry: { restartOnFailure: () => Promise.resolve(!closing.signal.aborted) },
      sessionTimeout: this.tuning.sessionTimeout,
      heartbeatInterval: this.tuning.heartbeatInterval,
      rebalanceTimeout: this.tuning.rebalanceTimeout,
      maxWaitTimeInMs: this.tuning.maxWaitTimeInMs,
      minBytes: 1,
      allowAutoTopicCreation: this.allowAutoTopicCreation,
    });
    const committer = new OffsetCommitter(consumer, this.logger, this.tuning.commitIntervalMs);
    const removeCrashListener = consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.logger(payload.restart ? 'warn' : 'error', 'Kafka consumer crashed', {
        topic: options.topic,
        groupId: options.groupId,
        restart: payload.restart,
        error: describeError(payload.error),
      });
    });
    try {
      await this.ensureTopic(options.topic);
      await consumer.connect();
      // Earliest is kafkajs' reset policy for every group: a group whose offsets vanish while it runs
      // (the broker came back as a new, empty cluster) then reads what was published since, instead of
      // skipping it. Where the caller wants "latest", the start at join is pinned by a seek below.
      await consumer.subscribe({ topics: [options.topic], fromBeginning: true });
      const startOffsets =
        start === 'earliest'
          ? await this.earliestOffsets(options.topic)
          : options.fromBeginning === true
            ? new Map<number, string>()
            : await this.endOffsetsOfUncommitted(options);
      const receiving = this.untilReceiving(consumer, options, startOffsets, deadline);
      await consumer.run({
        // Offsets are committed by `committer`, beside the fetch loop (see OffsetCommitter).
        autoCommit: false,
        partitionsConsumedConcurrently: this.tuning.partitionsConsumedConcurrently,
        ...this.handOver(options, closing.signal, committer),
      });
      // Committed only now: kafkajs drops a commit made before its runner runs, which is after the join.
      for (const { partition, offset } of await receiving) {
        committer.commit(options.topic, partition, offset);
      }
    } catch (error) {
      removeCrashListener();
      closing.abort();
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }

    let closed: Promise<void> | undefined;
    return {
      close: () => {
        closed ??= (async () => {
          closing.abort();
          try {
            // What was handled is committed before leaving, so the next owner starts after it.
            await committer.flush();
            await consumer.disconnect();
          } finally {
            removeCrashListener();
          }
        })();
        return closed;
      },
    };
  }

  /** The consumer's record callback: `eachMessage`, or `eachBatch` for a batch subscription. */
  private handOver(
    options: Delivery,
    signal: AbortSignal,
    committer: OffsetCommitter,
  ): Pick<ConsumerRunConfig, 'eachMessage' | 'eachBatch'> & {
    eachBatchAutoResolve?: boolean;
  } {
    const common = {
      isTransientFailure: options.isTransientFailure,
      backoff: this.redeliveryBackoff,
      logger: this.logger,
      groupId: options.groupId,
      signal,
    };
    if (options.batch === true) {
      return {
        // Offsets are resolved here, only for records whose handling settled, so none is committed early.
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          const records = batch.messages.map((message) => toIncoming(batch.topic, batch.partition, message));
          const outcome = await deliverBatchUntilSettled(records, {
            ...common,
            handler: options.handler,
            onSkipped: options.onSkipped,
            beforeWait: () => payload.heartbeat(),
          });
          const last = records[outcome.settled - 1];
          if (last !== undefined) {
            payload.resolveOffset(last.offset);
            committer.handled(batch.topic, batch.partition, last.offset);
          }
          if (outcome.stopped) {
            throw stoppedWhileRetrying();
          }
        },
      };
    }
    return {
      eachMessage: async (payload) => {
        const record = toIncoming(payload.topic, payload.partition, payload.message);
        // Retrying inside eachMessage keeps the partition's order and its offset unresolved; the
        // heartbeat before each wait keeps the membership, and throws when the group rebalances so the
        // partition's next owner starts again at this record.
        const outcome = await deliverUntilSettled(record, {
          ...common,
          handler: options.handler,
          beforeWait: () => payload.heartbeat(),
        });
        if (outcome === 'stopped') {
          // Returning would resolve (and commit) the offset. A retriable KafkaJSError ends the batch without
          // a crash: the runner's retry finds the consumer stopping and exits.
          throw stoppedWhileRetrying();
        }
        committer.handled(payload.topic, payload.partition, payload.message.offset);
      },
    };
  }

  /** Starts the periodic cluster id check once a producer or a consumer exists. */
  private watchCluster(): void {
    if (this.clusterCheck !== undefined || this.clusterCheckIntervalMs <= 0 || this.closed) {
      return;
    }
    this.clusterCheck = setInterval(() => void this.checkClusterOnce(), this.clusterCheckIntervalMs);
    this.clusterCheck.unref();
    void this.checkClusterOnce();
  }

  /**
   * The topic a cluster id check and a ping name: naming one keeps the Metadata request small on a cluster of
   * thousands of topics, and any this bus uses will do. None yet (undefined) makes the reader describe the cluster.
   */
  private get probeTopic(): string | undefined {
    return this.topicsInUse.values().next().value;
  }

  /** One check at a time; resolves whether a broker answered. */
  private checkClusterOnce(): Promise<boolean> {
    this.clusterCheckRunning ??= this.checkCluster().finally(() => {
      this.clusterCheckRunning = undefined;
    });
    return this.clusterCheckRunning;
  }

  /**
   * Compares the cluster id with the one first seen. A different id means the broker lost its data:
   * the producer id and sequences kafkajs keeps belong to the old cluster (the new one hands the same
   * small ids out again, so a stale producer could collide with a fresh one), topics must be created
   * again and consumers must read the new log from its start.
   */
  private async checkCluster(): Promise<boolean> {
    let clusterId: string;
    try {
      clusterId = (await this.clusterIdReader.read(this.probeTopic)).clusterId;
    } catch {
      // No broker answering now; the next check connects afresh.
      const admin = this.clusterAdmin.peek();
      this.clusterAdmin.forget();
      await admin?.then((stale) => stale.disconnect()).catch(() => undefined);
      return false;
    }
    if (this.clusterId === undefined || this.closed) {
      this.clusterId ??= clusterId;
      return true;
    }
    if (clusterId === this.clusterId) {
      return true;
    }
    this.logger('warn', 'The broker came back as a new cluster; re-initialising the producer and consumers', {
      previousClusterId: this.clusterId,
      clusterId,
    });
    this.clusterId = clusterId;
    this.knownTopics.clear();
    const stale = this.producer.peek();
    if (stale !== undefined) {
      await this.replaceProducer(await stale.catch(() => undefined));
    }
    // Not awaited: a publish waiting on this check needs the new producer, not the consumers' rejoin.
    this.consumerRestarts = this.consumerRestarts.then(() => this.restartConsumers());
    // Consumers restart at the oldest record, so what listeners publish now is read whenever they rejoin.
    this.reportRecordsLost();
    return true;
  }

  private async restartConsumers(): Promise<void> {
    for (const [subscription, restart] of [...this.restarts]) {
      await restart().catch((error: unknown) => {
        this.logger('error', 'Could not restart a consumer on the new cluster', { error: describeError(error) });
        this.restarts.delete(subscription);
      });
    }
  }

  override async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    clearInterval(this.clusterCheck);
    await this.clusterCheckRunning;
    await this.consumerRestarts;
    await Promise.allSettled([...this.subscriptions].map((subscription) => subscription.close()));
    await this.clusterIdReader.disconnect();
    await Promise.allSettled(
      [this.producer.peek(), this.admin.peek(), this.clusterAdmin.peek()].map(async (client) => {
        if (client !== undefined) {
          await (await client).disconnect();
        }
      }),
    );
  }

  /**
   * One Metadata request, as the cluster id check sends it (naming one topic, so a probe costs the same on a
   * cluster of thousands of topics). Bounded by PING_TIMEOUT_MS: a broker that accepts the connection but does
   * not answer must not hold a probe.
   */
  override async ping(): Promise<void> {
    this.assertOpen();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Kafka did not answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.clusterIdReader.read(this.probeTopic), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  override async lag(topic: string, groupId: string): Promise<number> {
    this.assertOpen();
    const admin = await this.admin.get();
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const positions = new Map((committed?.partitions ?? []).map((entry) => [entry.partition, Number(entry.offset)]));
    const ends = await admin.fetchTopicOffsets(topic);
    return ends.reduce((sum, end) => {
      const position = positions.get(end.partition) ?? -1;
      return position < 0 ? sum : sum + Math.max(0, Number(end.high) - position);
    }, 0);
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new Error('MessageBus is closed');
    }
  }

  /** The oldest retained offset of every partition. */
  private async earliestOffsets(topic: string): Promise<Map<number, string>> {
    const admin = await this.admin.get();
    return new Map((await admin.fetchTopicOffsets(topic)).map((entry) => [entry.partition, entry.low]));
  }

  /**
   * End offsets of the partitions this group has never committed. A new group would otherwise
   * resolve "latest" lazily at its first fetch, after `subscribe` resolved, and could skip a record
   * published in between; seeking there at join time (and committing it) closes that gap, also for
   * members that take these partitions over later.
   */
  private async endOffsetsOfUncommitted(options: Delivery): Promise<Map<number, string>> {
    const admin = await this.admin.get();
    const [committed] = await admin.fetchOffsets({ groupId: options.groupId, topics: [options.topic] });
    const uncommitted = new Set(
      (committed?.partitions ?? []).filter((entry) => Number(entry.offset) < 0).map((entry) => entry.partition),
    );
    const ends = await admin.fetchTopicOffsets(options.topic);
    return new Map(ends.filter((end) => uncommitted.has(end.partition)).map((end) => [end.partition, end.high]));
  }

  /**
   * Resolves once the consumer joined its group. kafkajs emits GROUP_JOIN before it resolves start
   * offsets (that happens lazily at the first fetch), so a new group could still skip a record published
   * just after the join; seeking the never-committed partitions to the end offsets read before the join
   * pins the start position instead (resolved with it, for the caller to commit for whoever owns the partition
   * later).
   */
  private untilReceiving(
    consumer: Consumer,
    options: Delivery,
    startOffsets: ReadonlyMap<number, string>,
    deadline: number,
  ): Promise<Array<{ partition: number; offset: string }>> {
    const pinned: Array<{ partition: number; offset: string }> = [];
    return new Promise((resolve, reject) => {
      const listeners: Array<() => void> = [];
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        listeners.forEach((remove) => remove());
        if (error === undefined) {
          resolve(pinned);
        } else {
          reject(error);
        }
      };
      const timer = setTimeout(
        () =>
          finish(
            new Error(
              `Subscribing to ${options.topic} as ${options.groupId}: no group join after ${this.subscribeTimeoutMs} ms`,
            ),
          ),
        Math.max(0, deadline - Date.now()),
      );
      listeners.push(
        consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
          for (const partition of payload.memberAssignment[options.topic] ?? []) {
            const offset = startOffsets.get(partition);
            if (offset !== undefined) {
              consumer.seek({ topic: options.topic, partition, offset });
              pinned.push({ partition, offset });
            }
          }
          finish();
        }),
        consumer.on(consumer.events.CRASH, ({ payload }) => {
          if (!payload.restart) {
            finish(payload.error);
          }
        }),
      );
    });
  }
}
