import { MessageBus } from '@acm/messaging';
import type { EngineGauges } from '@acm/persistence';
import { readEngineGauges } from '@acm/persistence';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { DATABASE } from '../database/database';
import type { Database } from '../database/database';
import type { CommitObserver, CommittedEvent } from '../observability/observed-unit-of-work';
import { RuntimeMetrics } from './runtime-metrics';

/** Operations whose order and open phases are remembered for the phase histogram; older ones are forgotten. */
const REMEMBERED_OPERATIONS = 10_000;

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * What an operator watches while orders run: gauges read from the tables (and the bus) at each scrape, so every
 * replica reports the whole runtime and a restart loses nothing; phase durations, resends and timeouts read from the
 * history events as they commit; ACK-apply latency measured by the inbox.
 */
@Injectable()
export class OperabilityMetrics implements CommitObserver {
  private readonly logger = new Logger('Metrics');
  readonly ackApplySeconds: Histogram<'type'>;
  private readonly phaseSeconds: Histogram<'order'>;
  private readonly resends: Counter<'order'>;
  private readonly timeouts: Counter<'order'>;
  private readonly orders = new Map<string, string>();
  private readonly phaseStarts = new Map<string, number>();
  private reading: Promise<EngineGauges | null> | null = null;

  constructor(
    runtime: RuntimeMetrics,
    @Inject(DATABASE) private readonly database: Database,
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
    bus: MessageBus,
  ) {
    const registers = [runtime.registry];
    const gauges = (): Promise<EngineGauges | null> => this.gauges();
    type Counted = ReadonlyArray<{ readonly count: number } & Readonly<Record<string, string | number>>>;
    const counted = (name: string, help: string, label: string, rows: (read: EngineGauges) => Counted): void => {
      new Gauge({
        name,
        help,
        labelNames: [label],
        registers,
        async collect() {
          const read = await gauges();
          if (read !== null) {
            // Reset first, so a label whose rows disappeared (no operation of that order left) is dropped, not kept stale.
            this.reset();
            rows(read).forEach((row) => this.set({ [label]: String(row[label]) }, row.count));
          }
        },
      });
    };
    counted('acm_operations_in_flight', 'Running operations, by order', 'order', (read) => read.operationsRunning);
    counted(
      'acm_elements_in_flight',
      'Elements an order is acting on, by their transitional state',
      'state',
      (read) => read.elementsInFlight,
    );
    new Gauge({
      name: 'acm_outbox_backlog',
      help: 'Messages committed to the outbox and not yet acknowledged by the broker',
      registers,
      async collect() {
        const read = await gauges();
        if (read !== null) {
          this.set(read.outboxBacklog);
        }
      },
    });
    counted(
      'acm_participants',
      'Participants by state: ON_LINE when one of their replicas is',
      'state',
      (read) => read.participants,
    );
    counted('acm_participant_replicas', 'Participant replicas by state', 'state', (read) => read.replicas);
    const logger = this.logger;
    new Gauge({
      name: 'acm_kafka_consumer_lag',
      help: "Participant messages on the operation topic the runtime's consumer group has not handled yet",
      labelNames: ['topic', 'group'],
      registers,
      async collect() {
        const labels = { topic: config.operationTopic, group: config.kafkaGroupId };
        try {
          this.set(labels, await bus.lag(config.operationTopic, config.kafkaGroupId));
        } catch (error) {
          logger.debug(`Consumer lag not read: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
    });
    this.ackApplySeconds = new Histogram({
      name: 'acm_ack_apply_latency_seconds',
      help: 'Time from an ACK record reaching the bus to its application committed, by message type',
      labelNames: ['type'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.phaseSeconds = new Histogram({
      name: 'acm_phase_duration_seconds',
      help: 'Time from a phase start to its last ACK, by order (on the replica that saw both)',
      labelNames: ['order'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.resends = new Counter({
      name: 'acm_phase_resends_total',
      help: 'Phase messages sent again (a silent replica handed over), by order',
      labelNames: ['order'],
      registers,
    });
    this.timeouts = new Counter({
      name: 'acm_operation_timeouts_total',
      help: 'Operations flagged TIMEOUT by supervision, by order',
      labelNames: ['order'],
      registers,
    });
  }

  committed(events: readonly CommittedEvent[]): void {
    for (const event of events) {
      const operationId = event.operationId;
      if (operationId === null) {
        continue;
      }
      const order = (): string => this.orders.get(operationId) ?? 'UNKNOWN';
      switch (event.event) {
        case 'ORDERED':
          this.remember(this.orders, operationId, event.detail.order);
          break;
        case 'PHASE_STARTED': {
          const key = `${operationId}:${event.detail.phase}`;
          if (!this.phaseStarts.has(key)) {
            this.remember(this.phaseStarts, key, event.at);
          }
          break;
        }
        case 'PHASE_COMPLETED': {
          const key = `${operationId}:${event.detail.phase}`;
          const started = this.phaseStarts.get(key);
          if (started !== undefined) {
            this.phaseSeconds.observe({ order: order() }, Math.max(0, event.at - started) / 1000);
            this.phaseStarts.delete(key);
          }
          break;
        }
        case 'PHASE_RESENT':
          this.resends.inc({ order: order() });
          break;
        case 'TIMEOUT':
          this.timeouts.inc({ order: order() });
          break;
        case 'COMPLETED':
        case 'FAILED':
        case 'CANCELLED':
        case 'SUPERSEDED':
          this.orders.delete(operationId);
          break;
        default:
          break;
      }
    }
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.set(key, value);
    if (map.size > REMEMBERED_OPERATIONS) {
      const oldest = map.keys().next();
      if (oldest.done !== true) {
        map.delete(oldest.value);
      }
    }
  }

  /** One read of the tables per scrape, shared by the gauges that prom-client collects concurrently. */
  private gauges(): Promise<EngineGauges | null> {
    this.reading ??= readEngineGauges(this.database.dataSource)
      .catch((error: unknown) => {
        // A scrape must answer while the database is down; the gauges then keep their last values.
        this.logger.warn(`Engine gauges not read: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      })
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }
}
