import { Clock } from '@acm/domain';
import type { Operation } from '@acm/domain';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { OperationSupervisor } from '../engine/operation-supervisor';
import type { CommitObserver } from '../observability/observed-unit-of-work';

/**
 * Told after each commit the supervision due times it wrote (the observed unit of work's observer list holds it),
 * it tells the timer. A class of its own so the unit of work need not know the supervisor, which needs the unit of
 * work.
 */
@Injectable()
export class DueTimeNudge implements CommitObserver {
  private readonly listeners: Array<(dueAt: number) => void> = [];

  listen(listener: (dueAt: number) => void): void {
    this.listeners.push(listener);
  }

  committed(_events: readonly unknown[], _replicas: readonly unknown[], dueTimes: readonly number[]): void {
    if (dueTimes.length > 0) {
      const earliest = dueTimes.reduce((first, time) => (time < first ? time : first));
      for (const listener of this.listeners) {
        listener(earliest);
      }
    }
  }
}

/** How the timer waits; tests drive it by hand. */
export interface TimerFunctions {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const TIMER_FUNCTIONS = Symbol('TIMER_FUNCTIONS');

const SYSTEM_TIMERS: TimerFunctions = {
  // The timer alone never keeps the process alive: the runtime's server and bus do while it runs.
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** setTimeout's largest delay; a later due time is armed again when this one fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Timers that fire on time: one timer, armed for the earliest supervision due time this runtime knows (from its
 * own commits, and from an indexed read at start and on every scan, which brings in what other replicas wrote).
 * When it fires, the supervisor decides every operation that is due, under each target's lock, so several replicas
 * armed for the same time act once; the scan stays the safety net.
 */
@Injectable()
export class SupervisionTimer {
  private readonly logger = new Logger('Supervision');
  private readonly timers: TimerFunctions;
  private handle: unknown = null;
  /** The clock time the timer is armed for; null when it is not armed. */
  private armedFor: number | null = null;
  private firing: Promise<void> | null = null;
  /** The earliest due time told while a pass was running: armed once it ends. */
  private toldWhileFiring: number | null = null;
  /** The earliest operation a pass left due: not fired for again until its due time changes. */
  private stuck: { readonly operationId: string; readonly dueAt: number } | null = null;
  private stopped = false;

  constructor(
    private readonly supervisor: OperationSupervisor,
    private readonly clock: Clock,
    nudge: DueTimeNudge,
    @Optional() @Inject(TIMER_FUNCTIONS) timers?: TimerFunctions,
  ) {
    this.timers = timers ?? SYSTEM_TIMERS;
    nudge.listen((dueAt) => this.expect(dueAt));
  }

  /** The clock time the timer will fire at, or null (for tests and diagnostics). */
  get armedAt(): number | null {
    return this.armedFor;
  }

  /** Arms for `dueAt` when it is earlier than what the timer waits for. */
  expect(dueAt: number): void {
    if (this.stopped) {
      return;
    }
    if (this.firing !== null) {
      this.toldWhileFiring = this.toldWhileFiring === null ? dueAt : Math.min(this.toldWhileFiring, dueAt);
      return;
    }
    if (this.armedFor === null || dueAt < this.armedFor) {
      this.arm(dueAt);
    }
  }

  /**
   * Reads the earliest due time of the database and arms for it (at start and on every scan). Resolves whether an
   * operation is in flight (true when the read failed: unknown counts as in flight).
   */
  async refresh(): Promise<boolean> {
    if (this.stopped) {
      return true;
    }
    try {
      const next = await this.supervisor.nextDue();
      if (next !== null && !this.isStuck(next)) {
        this.expect(next.control.dueAt!);
      }
      return next !== null;
    } catch (error) {
      this.logger.error(`Reading the next due time failed: ${error instanceof Error ? error.message : String(error)}`);
      return true;
    }
  }

  /** Disarms and waits for a pass in progress (called by the supervision scheduler's stop). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    await this.firing;
  }

  /** Runs the pass the timer runs when it fires (tests call it after moving a fake clock to `armedAt`). */
  async fire(): Promise<void> {
    if (this.firing !== null || this.stopped) {
      return this.firing ?? undefined;
    }
    this.disarm();
    this.firing = this.pass().finally(() => {
      this.firing = null;
    });
    await this.firing;
    const told = this.toldWhileFiring;
    this.toldWhileFiring = null;
    if (told !== null) {
      this.expect(told);
    }
  }

  private async pass(): Promise<void> {
    try {
      const { next } = await this.supervisor.fireDue();
      if (next !== null && !this.stopped) {
        const now = this.clock.now();
        // A pass that leaves its earliest operation due as it found it could not decide it: the scan retries it.
        if (next.control.dueAt! <= now && this.isStuck(next)) {
          this.logger.warn(`Operation ${next.operationId} stays due after a supervision pass; the scan retries it`);
          return;
        }
        this.stuck = next.control.dueAt! <= now ? { operationId: next.operationId, dueAt: next.control.dueAt! } : null;
        this.toldWhileFiring =
          this.toldWhileFiring === null ? next.control.dueAt! : Math.min(this.toldWhileFiring, next.control.dueAt!);
      }
    } catch (error) {
      this.logger.error(`Supervision timer pass failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private isStuck(next: Operation): boolean {
    return this.stuck?.operationId === next.operationId && this.stuck.dueAt === next.control.dueAt;
  }

  private arm(dueAt: number): void {
    this.disarm();
    const delay = Math.min(Math.max(0, dueAt - this.clock.now()), MAX_DELAY_MS);
    this.armedFor = dueAt;
    this.handle = this.timers.setTimeout(() => {
      this.handle = null;
      void this.fire();
    }, delay);
  }

  private disarm(): void {
    if (this.handle !== null) {
      this.timers.clearTimeout(this.handle);
      this.handle = null;
    }
    this.armedFor = null;
  }
}
