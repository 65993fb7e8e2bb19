import {
  Clock,
  CronCalendar,
  DomainError,
  IdGenerator,
  UnitOfWork,
  WindowStore,
  describeHold,
  judgeWindows,
  parseWindowRequest,
  windowsFor,
} from '@acm/domain';
import type {
  WindowKind,
  WindowOutside,
  BatchGate,
  MaintenanceWindow,
  OperationEvent,
  Rollout,
  WindowTarget,
  WindowVerdict,
  WindowWait,
} from '@acm/domain';
import { Injectable, Logger } from '@nestjs/common';
import { requestActor } from '../observability/request-context';

/** An order to one instance, as the windows judge it. */
export interface WindowedOrder extends WindowTarget {
  readonly instanceId: string;
  readonly order: string;
}

/** A window as REST shows it: its duration in seconds, times as ISO 8601, whether it is open now. */
export interface WindowView {
  readonly windowId: string;
  readonly name: string;
  readonly cron: string;
  readonly durationSeconds: number;
  readonly timeZone: string;
  readonly kind: WindowKind;
  readonly outside: WindowOutside;
  readonly scope: { readonly compositionIds: readonly string[]; readonly metadata: Readonly<Record<string, string>> };
  readonly createdAt: string;
  readonly openNow: boolean;
  readonly nextStart: string | null;
}

/** Longest override reason kept: it is the caller's text. */
const MAX_REASON = 500;

/** A verdict with its times as ISO 8601, for answers and views. */
export function isoOf(at: number | null): string | null {
  return at === null ? null : new Date(at).toISOString();
}

/** The sentence for a held order, with the time of the next opening. */
export function holdMessage(verdict: Extract<WindowVerdict, { open: false }>): string {
  const next = isoOf(verdict.nextOpening);
  return `${describeHold(verdict)}; ${next === null ? 'no opening found within a year' : `next opening ${next}`}`;
}

/**
 * Maintenance windows: create, list and delete them, and judge orders against them. An order to an instance that the
 * windows hold is refused (409, with the next opening) unless it carries an override, which is recorded in the
 * instance's history with its actor. Rollouts ask for the verdict and wait for the opening instead.
 */
@Injectable()
export class WindowsService {
  private readonly logger = new Logger('Windows');

  constructor(
    private readonly windows: WindowStore,
    private readonly calendar: CronCalendar,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async create(body: unknown): Promise<MaintenanceWindow> {
    const request = parseWindowRequest(body, this.calendar);
    const window: MaintenanceWindow = { windowId: this.ids.uuid(), ...request, createdAt: this.clock.now() };
    if (!(await this.windows.create(window))) {
      throw new DomainError('ALREADY_EXISTS', `name: a window named ${JSON.stringify(window.name)} already exists`, {
        name: window.name,
      });
    }
    this.logger.log(`Window ${window.name} (${window.kind}, ${window.cron} ${window.timeZone}) created`);
    return window;
  }

  list(): Promise<MaintenanceWindow[]> {
    return this.windows.list();
  }

  async get(windowId: string): Promise<MaintenanceWindow> {
    const window = await this.windows.find(windowId);
    if (window === null) {
      throw new DomainError('NOT_FOUND', `Window ${windowId} not found`, { windowId });
    }
    return window;
  }

  async delete(windowId: string): Promise<void> {
    if (!(await this.windows.delete(windowId))) {
      throw new DomainError('NOT_FOUND', `Window ${windowId} not found`, { windowId });
    }
  }

  /** The windows that apply to any of the targets, and their verdict at `at` (now by default). */
  async verdict(targets: readonly WindowTarget[], at: number = this.clock.now()): Promise<WindowVerdict> {
    const applying = windowsFor(await this.windows.list(), targets);
    return judgeWindows(applying, at, this.calendar);
  }

  /**
   * Whether windows hold each batch of a rollout, as the rollout rules ask it; null when no window exists. The
   * metadata of the instances not ordered yet is read only when a window's scope names metadata.
   */
  async batchGate(
    rollout: Rollout,
    metadataOf: (instanceIds: string[]) => Promise<ReadonlyMap<string, WindowTarget['metadata']>>,
  ): Promise<BatchGate | null> {
    const windows = await this.windows.list();
    if (windows.length === 0) {
      return null;
    }
    const pending = rollout.instances.filter((item) => item.state === 'PENDING');
    const byMetadata = windows.some((window) => Object.keys(window.scope.metadata).length > 0);
    const metadata = byMetadata && pending.length > 0 ? await metadataOf(pending.map((item) => item.instanceId)) : null;
    // One step asks about the same batch at the same time several times: each answer is computed once.
    const answers = new Map<string, WindowWait | null>();
    return (batch, at) => {
      const key = `${batch}@${at}`;
      if (!answers.has(key)) {
        const targets = rollout.instances
          .filter((item) => item.batch === batch)
          .map((item) => ({ compositionId: rollout.compositionId, metadata: metadata?.get(item.instanceId) ?? null }));
        const verdict = judgeWindows(windowsFor(windows, targets), at, this.calendar);
        answers.set(key, verdict.open ? null : { windows: verdict.blockedBy, until: verdict.nextOpening });
      }
      return answers.get(key) ?? null;
    };
  }

  /**
   * Lets an order through the windows, or refuses it (OUTSIDE_WINDOW, naming the windows and the next opening); the
   * order's target is read only when some window exists. With an override, an order the windows hold goes through and the override is recorded in the instance's history.
   */
  async admit(orderOf: () => Promise<WindowedOrder>, override: string | null): Promise<void> {
    const windows = await this.windows.list();
    if (windows.length === 0) {
      // The common case: no window exists, so the instance need not be read to be judged.
      return;
    }
    const order = await orderOf();
    const verdict = judgeWindows(windowsFor(windows, [order]), this.clock.now(), this.calendar);
    if (verdict.open) {
      return;
    }
    if (override === null) {
      throw new DomainError(
        'OUTSIDE_WINDOW',
        `${order.order} of instance ${order.instanceId} is held: ${holdMessage(verdict)}; ` +
          'give ?override=<reason> (role approver) to order it anyway',
        {
          instanceId: order.instanceId,
          windows: verdict.blockedBy,
          nextOpening: isoOf(verdict.nextOpening),
        },
      );
    }
    const event: OperationEvent = {
      subjectId: order.instanceId,
      operationId: null,
      event: 'WINDOW_OVERRIDDEN',
      detail: { order: order.order, reason: override.slice(0, MAX_REASON), windows: verdict.blockedBy },
      actor: requestActor() ?? { kind: 'request', user: null, requestId: null },
      at: this.clock.now(),
    };
    await this.unitOfWork.transaction((store) => store.events.append([event]));
    this.logger.log(`${order.order} of instance ${order.instanceId} overrode windows ${verdict.blockedBy.join(', ')}`);
  }
}
