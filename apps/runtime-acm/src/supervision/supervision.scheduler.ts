import { nextScanDelayMs } from '@acm/domain';
import { MessageBus } from '@acm/messaging';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { ParallelSlots } from '../engine/parallel-slots';
import { OperationSupervisor } from '../engine/operation-supervisor';
import { ParticipantProtocolService } from '../application/participant-protocol.service';
import { OutboxRelay } from '../messaging/outbox-relay';
import { HistoryRetention } from './history-retention';
import { DueTimeNudge, SupervisionTimer } from './supervision-timer';

/**
 * The safety net, every HEART_BEAT ms while an operation is in flight (and less often with none: `nextScanDelayMs`,
 * woken back at once by a commit that writes a due time): flag overdue operations TIMEOUT, start due retries, resend silent phases,
 * report stuck elements, mark silent replicas OFF_LINE and hand their work over, send messages a crash left in
 * the outbox, and start pruning the history that retention lets go. Phases never wait for it: ACKs advance
 * them, and deadlines, retries, resends and no-progress reports fire when they fall due (`SupervisionTimer`,
 * re-armed from the database by every pass). When the bus reports that the broker lost records (it came back
 * as a new cluster), open phases are sent again at once.
 */
@Injectable()
export class SupervisionScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('Supervision');
  private ticking: Promise<void> | null = null;
  private stopped = false;
  /** The broker lost records and the open phases were not sent again yet (a failed attempt is retried). */
  private recordsLost = false;
  /** The resend after a loss failed in this tick (the database is down): the next period tries again. */
  private resendFailed = false;
  private stopWatchingBus: (() => void) | null = null;
  private scanTimer: NodeJS.Timeout | undefined;
  /** performance.now() at which the armed scan runs. */
  private scanAt = 0;
  /** Whether the last pass saw an operation in flight (unknown until the first pass: counted as in flight). */
  private workInFlight = true;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly supervisor: OperationSupervisor,
    private readonly participants: ParticipantProtocolService,
    private readonly relay: OutboxRelay,
    private readonly bus: MessageBus,
    private readonly slots: ParallelSlots,
    private readonly retention: HistoryRetention,
    private readonly timer: SupervisionTimer,
    private readonly dueTimes: DueTimeNudge,
  ) {}

  onApplicationBootstrap(): void {
    this.stopWatchingBus = this.bus.onRecordsLost(() => {
      this.logger.warn('The broker lost records it held; sending every open phase again');
      this.recordsLost = true;
      void this.tick();
    });
    this.dueTimes.listen(() => this.workStarted());
    this.scheduleScan(this.config.heartBeatMs);
    void this.timer.refresh();
  }

  /** Stops the period and waits for a pass in progress (called by the runtime's shutdown sequence). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWatchingBus?.();
    clearTimeout(this.scanTimer);
    this.scanTimer = undefined;
    await this.timer.stop();
    await this.ticking;
  }

  /** Arms the next scan `delayMs` from now (replacing the one armed), unless stopped. */
  private scheduleScan(delayMs: number): void {
    clearTimeout(this.scanTimer);
    this.scanTimer = undefined;
    if (this.stopped) {
      return;
    }
    this.scanAt = performance.now() + delayMs;
    this.scanTimer = setTimeout(() => {
      this.scanTimer = undefined;
      void this.tick().finally(() => this.scheduleScan(nextScanDelayMs(this.config, this.workInFlight)));
    }, delayMs);
  }

  /** A commit wrote a due time: work is in flight, so an idle scan's long sleep ends within a heartbeat. */
  private workStarted(): void {
    this.workInFlight = true;
    if (this.scanTimer !== undefined && this.scanAt - performance.now() > this.config.heartBeatMs) {
      this.scheduleScan(this.config.heartBeatMs);
    }
  }

  /**
   * One supervision pass; overlapping ticks are skipped rather than queued, except that a loss of records
   * reported during a pass gets a pass of its own right after it.
   */
  async tick(): Promise<void> {
    if (this.ticking !== null || this.stopped) {
      return;
    }
    this.ticking = (async () => {
      do {
        await this.pass();
      } while (this.recordsLost && !this.stopped && !this.resendFailed);
    })().finally(() => {
      this.ticking = null;
      this.resendFailed = false;
    });
    await this.ticking;
  }

  private async pass(): Promise<void> {
    if (this.recordsLost) {
      this.recordsLost = false;
      try {
        const resent = await this.supervisor.resendAfterBrokerLoss();
        this.logger.warn(`Sent ${resent} open phase message(s) again after the broker lost records`);
      } catch (error) {
        this.recordsLost = true;
        this.resendFailed = true;
        this.logger.error(
          `Sending open phases again failed, the next pass retries: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    try {
      await this.supervisor.timeOutOverdue();
      // Control of running work: due retries, resends of silent phases, no-progress reports.
      await this.supervisor.superviseRunning();
      const silent = await this.participants.markSilentReplicas(this.config.maxStatusWaitMs);
      for (const participantId of silent) {
        await this.supervisor.handOverLostWork(participantId, (replica) => replica.participantState === 'OFF_LINE');
      }
      // A new replica registered: the others had a full period to answer its STATUS request.
      await this.supervisor.handOverAfterProbes(this.config.heartBeatMs);
      // The safety net of the runtime-wide parallelism limit: slots a commit's nudge missed go now.
      await this.slots.fill();
      this.relay.kick();
      // Retention runs beside the passes (never inside one), in small batches of its own.
      this.retention.kick();
      // What other replicas wrote since: the timer arms for the earliest due time of the database.
      this.workInFlight = await this.timer.refresh();
    } catch (error) {
      this.workInFlight = true;
      this.logger.error(`Supervision tick failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
