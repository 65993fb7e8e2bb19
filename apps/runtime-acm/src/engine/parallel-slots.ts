import type { OperationSession, SupervisionQueries } from '@acm/domain';
import { OperationSessions } from '@acm/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { OperationSteps } from './operation-steps';
import { asInstanceOperation } from './running-operation';

/**
 * Told after each commit that wrote history (the observed unit of work's observer list holds it), it wakes whoever
 * listens: the slot filler under a runtime-wide limit. A class of its own so the unit of work need not know the
 * engine, which itself needs the unit of work.
 */
@Injectable()
export class CommitNudge {
  private readonly listeners: Array<() => void> = [];

  listen(listener: () => void): void {
    this.listeners.push(listener);
  }

  committed(events: readonly unknown[]): void {
    if (events.length > 0) {
      for (const listener of this.listeners) {
        listener();
      }
    }
  }
}

/** Bounds one drain, should an operation keep being listed without anything to send (never expected). */
const MAX_PASSES_PER_DRAIN = 10_000;

/**
 * The runtime-wide parallelism limit (MAX_PARALLEL_ELEMENTS): at most that many elements dispatched and not answered
 * across every running operation of every instance and every replica on the database. No other step sends an element
 * under that limit (the domain gives them no slot); this pass hands free slots to the waiting operations, oldest
 * first, each in a transaction of its own: the slots lock (`lockSlots`, one holder across replicas) first, then the
 * count, then one target row. ACKs, orders and supervision never take the slots lock, so whoever holds it waits at
 * most for a target lock whose holder waits for nothing of ours: no deadlock. Started after each commit that wrote
 * history (an ACK that freed a slot, an order that waits for one) and by every supervision pass, the safety net.
 */
@Injectable()
export class ParallelSlots {
  private readonly logger = new Logger('ParallelSlots');
  private draining: Promise<number> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly sessions: OperationSessions,
    private readonly steps: OperationSteps,
    nudges: CommitNudge,
  ) {
    if (config.maxParallelElements !== null) {
      nudges.listen(() => this.nudge());
    }
  }

  /** Fills free slots in the background; a nudge during a drain makes it look once more when it ends. */
  nudge(): void {
    if (this.config.maxParallelElements === null || this.stopped) {
      return;
    }
    void this.fill().catch((error: unknown) => this.logger.warn(`filling free slots failed: ${String(error)}`));
  }

  /** Fills free slots now; resolves with the elements it sent, once nothing more can go. */
  fill(): Promise<number> {
    if (this.config.maxParallelElements === null) {
      return Promise.resolve(0);
    }
    if (this.draining !== null) {
      this.again = true;
      return this.draining;
    }
    this.draining = this.drain().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  /** No new drain starts; resolves when the one in progress ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.draining?.catch(() => undefined);
  }

  private async drain(): Promise<number> {
    let sent = 0;
    do {
      this.again = false;
      for (let pass = 0; pass < MAX_PASSES_PER_DRAIN && !this.stopped; pass += 1) {
        const step = await this.sessions.transaction({ instanceIds: [], messageIds: [] }, (session, { queries }) =>
          this.fillOne(session, queries),
        );
        if (step === null) {
          break;
        }
        sent += step;
      }
    } while (this.again && !this.stopped);
    return sent;
  }

  /** One waiting operation gets what free slots it can use; null when no slot is free or nobody waits. */
  private async fillOne(session: OperationSession, queries: SupervisionQueries): Promise<number | null> {
    await queries.lockSlots();
    const free = this.config.maxParallelElements! - (await queries.slotsInUse());
    if (free <= 0) {
      return null;
    }
    const [waiting] = await queries.slotWaiting(1);
    if (!waiting || waiting.targetKind !== 'INSTANCE') {
      return null;
    }
    const found = await session.lockInstance(waiting.targetId);
    const definition = found ? await session.definition(found.value.compositionId) : null;
    if (!found || !definition) {
      // Its instance is gone: it can send nothing, so it waits for nothing.
      session.saveOperations([
        { operation: { ...waiting, control: { ...waiting.control, slotWait: null } }, isNew: false },
      ]);
      return 0;
    }
    // Read again under the instance's lock: an ACK may have committed since it was listed.
    const running = asInstanceOperation(await session.running(waiting.targetId));
    if (running?.operationId !== waiting.operationId) {
      return 0;
    }
    const dispatched = await this.steps.dispatchedIn(session, running);
    const target = { found, definition: definition.value, running, order: running.order };
    const step = await this.steps.instance(session, target, { kind: 'SLOTS', dispatched }, free);
    return step.effects.reduce((sum, effect) => sum + (effect.kind === 'SEND_PHASE' ? effect.dispatched.length : 0), 0);
  }
}
