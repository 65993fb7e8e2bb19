import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { OperationEngine } from '../engine/operation-engine';
import { ParticipantProtocolService } from '../engine/participant-protocol.service';
import { OutboxRelay } from '../messaging/outbox-relay';

const SUPERVISION = 'supervision';

/**
 * The safety net, every HEART_BEAT ms: flag overdue operations TIMEOUT, mark silent replicas OFF_LINE and
 * hand their work over, send messages a crash left in the outbox. Phases never wait for it.
 */
@Injectable()
export class SupervisionScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Supervision');
  private ticking = false;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly scheduler: SchedulerRegistry,
    private readonly engine: OperationEngine,
    private readonly participants: ParticipantProtocolService,
    private readonly relay: OutboxRelay,
  ) {}

  onApplicationBootstrap(): void {
    this.scheduler.addInterval(
      SUPERVISION,
      setInterval(() => void this.tick(), this.config.heartBeatMs),
    );
  }

  onApplicationShutdown(): void {
    if (this.scheduler.doesExist('interval', SUPERVISION)) {
      this.scheduler.deleteInterval(SUPERVISION);
    }
  }

  /** One supervision pass; overlapping ticks are skipped rather than queued. */
  async tick(): Promise<void> {
    if (this.ticking) {
      return;
    }
    this.ticking = true;
    try {
      await this.engine.timeOutOverdue();
      const silent = await this.participants.markSilentReplicas(this.config.maxStatusWaitMs);
      for (const participantId of silent) {
        await this.engine.handOverLostWork(participantId, (replica) => replica.participantState === 'OFF_LINE');
      }
      // A new replica registered: the others had a full period to answer its STATUS request.
      await this.engine.handOverAfterProbes(this.config.heartBeatMs);
      this.relay.kick();
    } catch (error) {
      this.logger.error(`Supervision tick failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.ticking = false;
    }
  }
}
