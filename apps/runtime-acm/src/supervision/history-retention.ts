import { randomUUID } from 'node:crypto';
import { Clock, NOTHING_PRUNED, RetentionStore, addPruned, prunableOperations } from '@acm/domain';
import type { PrunedRows } from '@acm/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig, RetentionSettings } from '../config/runtime.config';
import { RuntimeMetrics } from '../metrics/runtime-metrics';

/**
 * Subjects (instances and definitions, deleted ones included) looked at per pass: the candidates of a pass are their
 * operations, at most RETENTION_MAX_OPERATIONS + failures each once retention has caught up.
 */
export const SUBJECTS_PER_PASS = 100;

const PRUNED_TABLES = ['acm_operation', 'acm_operation_message', 'acm_message_answer', 'acm_event'] as const;

/**
 * Prunes the history of finished operations (RETENTION_*): kicked by every supervision pass, it runs beside it, never
 * inside it, so a slow prune delays no timeout or resend. Each pass looks at the next SUBJECTS_PER_PASS subjects
 * after a cursor that walks the whole id space and wraps, ranks their operations, and removes what the rules in
 * libs/domain/src/retention say is due, RETENTION_BATCH_SIZE operations per statement. Each replica starts its walk
 * at a random place, and the store skips rows another replica (or an ACK) holds locked: replicas share the work.
 */
@Injectable()
export class HistoryRetention {
  private readonly logger = new Logger('Retention');
  private readonly settings: RetentionSettings | null;
  private readonly pruned: Counter<'table'>;
  private cursor: string | null = randomUUID();
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
    private readonly store: RetentionStore,
    private readonly clock: Clock,
    metrics: RuntimeMetrics,
  ) {
    this.settings = config.retention;
    this.pruned = new Counter({
      name: 'acm_history_pruned_rows_total',
      help: 'History rows removed by retention, by table',
      labelNames: ['table'],
      registers: [metrics.registry],
    });
    for (const table of PRUNED_TABLES) {
      this.pruned.inc({ table }, 0);
    }
  }

  /** Starts a pass in the background unless one runs (or retention is off); the supervision pass does not wait. */
  kick(): void {
    if (this.settings === null || this.running !== null || this.stopped) {
      return;
    }
    this.running = this.pass(this.settings, this.clock.now())
      .then(() => undefined)
      .catch((error: unknown) => {
        this.logger.error(`Pruning the history failed, the next pass retries: ${messageOf(error)}`);
      })
      .finally(() => {
        this.running = null;
      });
  }

  /** Resolves when no pass runs. */
  async idle(): Promise<void> {
    await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** Walks every subject once, from the first id, as of `now`: what a series of passes does, at once (tests, tools). */
  async sweep(now: number = this.clock.now()): Promise<PrunedRows> {
    if (this.settings === null) {
      return NOTHING_PRUNED;
    }
    await this.idle();
    this.cursor = null;
    let total = NOTHING_PRUNED;
    do {
      total = addPruned(total, await this.pass(this.settings, now));
    } while (this.cursor !== null && !this.stopped);
    return total;
  }

  private async pass(settings: RetentionSettings, now: number): Promise<PrunedRows> {
    const subjects = await this.store.subjectsAfter(this.cursor, SUBJECTS_PER_PASS);
    this.cursor = subjects.length < SUBJECTS_PER_PASS ? null : (subjects[subjects.length - 1] ?? null);
    const due = prunableOperations(await this.store.candidates(subjects), now, settings, Number.MAX_SAFE_INTEGER);
    let total = NOTHING_PRUNED;
    for (let start = 0; start < due.length && !this.stopped; start += settings.batchSize) {
      const removed = await this.store.prune(due.slice(start, start + settings.batchSize));
      this.count(removed);
      total = addPruned(total, removed);
    }
    // Events of no operation are kept as long as failures; one batch per pass is far more than they grow by.
    const loose = await this.store.pruneLooseEvents(now - settings.failedMaxAgeMs, settings.batchSize);
    this.count({ ...NOTHING_PRUNED, events: loose });
    return addPruned(total, { ...NOTHING_PRUNED, events: loose });
  }

  private count(removed: PrunedRows): void {
    const tables: Array<[string, number]> = [
      ['acm_operation', removed.operations],
      ['acm_operation_message', removed.messages],
      ['acm_message_answer', removed.answers],
      ['acm_event', removed.events],
    ];
    for (const [table, rows] of tables) {
      if (rows > 0) {
        this.pruned.inc({ table }, rows);
      }
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
