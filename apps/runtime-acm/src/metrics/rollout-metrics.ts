import { readRolloutGauges } from '@acm/persistence';
import type { RolloutGauges } from '@acm/persistence';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Gauge, Histogram } from 'prom-client';
import { DATABASE } from '../database/database';
import type { Database } from '../database/database';
import { RuntimeMetrics } from './runtime-metrics';

/** Batches run from seconds to hours (pauses, slow participants): the buckets reach 4 hours. */
const BATCH_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 14_400];

/**
 * Rollouts as an operator watches them: rollouts by state and the instances of unfinished rollouts by state, read
 * from the table at each scrape (every replica reports the whole picture), and batch durations observed by the
 * replica that ended the batch.
 */
@Injectable()
export class RolloutMetrics {
  private readonly logger = new Logger('Metrics');
  private readonly batchSeconds: Histogram<'order'>;
  private reading: Promise<RolloutGauges | null> | null = null;

  constructor(
    runtime: RuntimeMetrics,
    @Inject(DATABASE) private readonly database: Database,
  ) {
    const registers = [runtime.registry];
    const gauges = (): Promise<RolloutGauges | null> => this.gauges();
    const counted = (name: string, help: string, rows: (read: RolloutGauges) => RolloutGauges['rollouts']): void => {
      new Gauge({
        name,
        help,
        labelNames: ['state'],
        registers,
        async collect() {
          const read = await gauges();
          if (read !== null) {
            this.reset();
            rows(read).forEach((row) => this.set({ state: row.state }, row.count));
          }
        },
      });
    };
    counted('acm_rollouts', 'Rollouts by state', (read) => read.rollouts);
    counted(
      'acm_rollout_instances',
      'Instances of unfinished rollouts, by their state in the rollout',
      (read) => read.instances,
    );
    this.batchSeconds = new Histogram({
      name: 'acm_rollout_batch_duration_seconds',
      help: "Time from a rollout batch's first order to the end of its last instance, by order",
      labelNames: ['order'],
      buckets: BATCH_BUCKETS,
      registers,
    });
  }

  batchEnded(order: string, seconds: number): void {
    this.batchSeconds.observe({ order }, seconds);
  }

  /** One read per scrape, shared by both gauges. */
  private gauges(): Promise<RolloutGauges | null> {
    this.reading ??= readRolloutGauges(this.database.dataSource)
      .catch((error: unknown) => {
        // A scrape must answer while the database is down; the gauges then keep their last values.
        this.logger.warn(`Rollout gauges not read: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      })
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }
}
