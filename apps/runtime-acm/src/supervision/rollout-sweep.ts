import { OPERATION_ENDS } from '@acm/domain';
import { TypeOrmUnitOfWork } from '@acm/persistence';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ObservationService } from '../application/observation.service';
import { RolloutService } from '../application/rollout.service';
import { RolloutMetrics } from '../metrics/rollout-metrics';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';

const ROLLOUT_SWEEP = 'rollout-sweep';

/** The history kinds after which a rollout looks at an instance's operation again (TIMEOUT fails it for a rollout). */
const ENDING_KINDS: ReadonlySet<string> = new Set([...Object.keys(OPERATION_ENDS), 'TIMEOUT']);

/**
 * Drives rollouts: each committed history event that ends an instance's operation, and each recorded change of an
 * element's observed health, steps the rollouts holding that instance at once, and every HEART_BEAT ms a sweep steps every unfinished rollout, so a lost event, another
 * replica's commit or a restart cannot wedge one. The rules and the lease are the service's.
 */
@Injectable()
export class RolloutSweep implements OnApplicationBootstrap {
  private readonly logger = new Logger('Rollouts');
  private stopped = false;
  private sweeping: Promise<void> | null = null;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly scheduler: SchedulerRegistry,
    private readonly rollouts: RolloutService,
    private readonly unitOfWork: TypeOrmUnitOfWork,
    private readonly metrics: RolloutMetrics,
    private readonly observations: ObservationService,
  ) {}

  onApplicationBootstrap(): void {
    this.rollouts.onBatchEnded((order, seconds) => this.metrics.batchEnded(order, seconds));
    this.unitOfWork.onEventsCommitted((events) => {
      if (this.stopped) {
        return;
      }
      const ended = events.filter((event) => ENDING_KINDS.has(event.event)).map((event) => event.subjectId);
      if (ended.length > 0) {
        this.rollouts.operationsEnded([...new Set(ended)]).catch((error: unknown) => this.failed(error));
      }
    });
    // A health change may fail a batch that bakes: step the rollouts holding the instance at once.
    this.observations.onHealthChanged((instanceIds) => {
      if (!this.stopped) {
        this.rollouts.operationsEnded(instanceIds).catch((error: unknown) => this.failed(error));
      }
    });
    this.scheduler.addInterval(
      ROLLOUT_SWEEP,
      setInterval(() => void this.sweep(), this.config.heartBeatMs),
    );
    void this.sweep();
  }

  /** One sweep; an overlapping one is skipped. */
  async sweep(): Promise<void> {
    if (this.sweeping !== null || this.stopped) {
      return;
    }
    this.sweeping = this.rollouts
      .sweep()
      .catch((error: unknown) => this.failed(error))
      .finally(() => (this.sweeping = null));
    await this.sweeping;
  }

  /** Stops the sweep and waits for the steps in progress (called by the runtime's shutdown sequence). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.scheduler.doesExist('interval', ROLLOUT_SWEEP)) {
      this.scheduler.deleteInterval(ROLLOUT_SWEEP);
    }
    await this.sweeping;
    await this.rollouts.stop();
  }

  private failed(error: unknown): void {
    this.logger.warn(
      `Rollout sweep failed, the next one retries: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
