import {
  Clock,
  DomainError,
  IdGenerator,
  RolloutStore,
  decideRollout,
  isDomainError,
  isRefusal,
  isRolloutFinished,
  newRollout,
  orderAvailability,
  parseRolloutRequest,
  refusalError,
} from '@acm/domain';
import type {
  InstanceStateUpdate,
  Rollout,
  RolloutInput,
  RolloutOperation,
  RolloutOrder,
  RolloutTracking,
  StoredRollout,
} from '@acm/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { InstantiationService } from './instantiation.service';

/** The instance order each rollout order is given as: ONAP's AcInstanceStateUpdate. */
const STATE_UPDATES: Readonly<Record<RolloutOrder, InstanceStateUpdate>> = {
  DEPLOY: { deployOrder: 'DEPLOY', lockOrder: 'NONE', subOrder: 'NONE' },
  UNDEPLOY: { deployOrder: 'UNDEPLOY', lockOrder: 'NONE', subOrder: 'NONE' },
  LOCK: { deployOrder: 'NONE', lockOrder: 'LOCK', subOrder: 'NONE' },
  UNLOCK: { deployOrder: 'NONE', lockOrder: 'UNLOCK', subOrder: 'NONE' },
};

/** Instances one rollout may select: the selection is resolved once, in one page. */
const MAX_SELECTION = 10_000;
/** Control requests wait this long for another driver of the same rollout to finish its step. */
const CONTROL_ATTEMPTS = 100;
const CONTROL_RETRY_MS = 50;
/** A nudge waits this many times for a lease another replica holds, then leaves the rollout to the sweep. */
const NUDGE_ATTEMPTS = 20;

/** What ended an operation the rollout started, as the rules take it; null while it runs. */
function outcomeOf(operation: RolloutOperation): { outcome: 'DONE' | 'FAILED'; reason?: string } | null {
  switch (operation.state) {
    case 'COMPLETED':
      return { outcome: 'DONE' };
    case 'RUNNING':
      return operation.timedOut ? { outcome: 'FAILED', reason: `operation ${operation.operationId} timed out` } : null;
    default:
      return { outcome: 'FAILED', reason: `operation ${operation.operationId} ended ${operation.state}` };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Rollouts: create, read and control them, and drive them. The rules are the domain's (`decideRollout`); this
 * service holds the rollout's lease while it steps, gives each order through `InstantiationService` (the path a
 * REST order takes), and judges each ordered instance by the operation its order started, read by id.
 *
 * Durable: an instance is marked ORDERED with the id of its latest operation (the baseline) before its order is
 * given; after a crash, an instance whose latest operation is still the baseline was never ordered and is ordered
 * now, any other was, and its operation is adopted. So no instance is ordered twice.
 */
@Injectable()
export class RolloutService {
  private readonly logger = new Logger('Rollouts');
  /** This process's name as a lease holder. */
  private readonly driverId: string;
  private readonly leaseMs: number;
  /** The last step queued in this process, by rollout, and the rollouts with a nudge not started yet. */
  private readonly driving = new Map<string, Promise<void>>();
  private readonly queued = new Set<string>();
  /**
   * Whether an unfinished rollout may exist (this process created one, or the last sweep found one): without any,
   * an ending operation costs no query. A rollout another replica creates is seen by the next sweep.
   */
  private unfinishedKnown = true;
  /** Creations started by this process: a sweep that overlapped one keeps `unfinishedKnown`. */
  private creations = 0;

  constructor(
    private readonly rollouts: RolloutStore,
    private readonly instantiation: InstantiationService,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
  ) {
    this.driverId = ids.uuid();
    this.leaseMs = Math.max(30_000, config.heartBeatMs * 3);
  }

  async create(body: unknown): Promise<Rollout> {
    const request = parseRolloutRequest(body);
    const selected = await this.instantiation.list({
      compositionId: request.compositionId,
      ...(request.instanceIds === null ? {} : { instanceIds: request.instanceIds }),
      sort: 'instanceId',
      sortOrder: 'ASC',
      page: 0,
      size: MAX_SELECTION,
    });
    const found = new Map(selected.map((instance) => [instance.instanceId, instance]));
    const instanceIds = request.instanceIds ?? selected.map((instance) => instance.instanceId);
    const missing = instanceIds.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new DomainError(
        'VALIDATION_FAILED',
        `instanceIds: ${missing.join(', ')} ${missing.length === 1 ? 'is not an instance' : 'are not instances'} of composition ${request.compositionId}`,
        { missing },
      );
    }
    const refused = instanceIds.flatMap((instanceId) => {
      const reason = orderAvailability(found.get(instanceId)!).refusedOrders.find(
        (item) => item.order === request.order,
      )?.reason;
      return reason === undefined ? [] : [{ instanceId, reason }];
    });
    if (refused.length > 0) {
      throw new DomainError(
        'ORDER_NOT_ALLOWED',
        `order: ${request.order} is refused for ${refused.length} selected instance(s): ` +
          refused.map((item) => `${item.instanceId}: ${item.reason}`).join('; '),
        { refused },
      );
    }
    const rollout = newRollout(this.ids.uuid(), request, instanceIds, this.clock.now());
    this.creations += 1;
    this.unfinishedKnown = true;
    const conflict = await this.rollouts.create({ rollout, tracking: {} });
    if (conflict !== null) {
      throw new DomainError(
        'SELECTION_TAKEN',
        `Rollout ${conflict.rolloutId} has not finished and already holds selected instance(s) ${conflict.instanceIds.join(', ')}`,
        { rolloutId: conflict.rolloutId, instanceIds: conflict.instanceIds },
      );
    }
    await this.drive(rollout.rolloutId, { kind: 'START' });
    return this.get(rollout.rolloutId);
  }

  async get(rolloutId: string): Promise<Rollout> {
    const stored = await this.rollouts.find(rolloutId);
    if (stored === null) {
      throw new DomainError('NOT_FOUND', `Rollout ${rolloutId} not found`, { rolloutId });
    }
    return stored.rollout;
  }

  list(limit: number): Promise<Rollout[]> {
    return this.rollouts.list(limit);
  }

  /** Pause, resume or cancel: applied under the lease, waiting briefly for a step of another driver. */
  async control(rolloutId: string, input: Extract<RolloutInput, { kind: 'PAUSE' | 'RESUME' | 'CANCEL' }>) {
    await this.get(rolloutId);
    for (let attempt = 0; attempt < CONTROL_ATTEMPTS; attempt += 1) {
      if (await this.drive(rolloutId, input)) {
        return this.get(rolloutId);
      }
      await sleep(CONTROL_RETRY_MS);
    }
    throw new DomainError('CONCURRENT_MODIFICATION', `Rollout ${rolloutId} is being driven; try again`, { rolloutId });
  }

  /** An operation of these instances ended: step the rollouts that hold them. */
  async operationsEnded(instanceIds: readonly string[]): Promise<void> {
    if (!this.unfinishedKnown) {
      return;
    }
    for (const rolloutId of await this.rollouts.holding(instanceIds)) {
      this.nudge(rolloutId);
    }
  }

  /** Steps every unfinished rollout (the sweep: a lost event or a restart cannot wedge one). */
  async sweep(): Promise<void> {
    const creations = this.creations;
    const unfinished = await this.rollouts.unfinished(1000);
    this.unfinishedKnown = unfinished.length > 0 || this.driving.size > 0 || this.creations !== creations;
    for (const rolloutId of unfinished) {
      this.nudge(rolloutId);
    }
    await Promise.all([...this.driving.values()]);
  }

  /** Waits for the steps this process is taking. */
  async idle(): Promise<void> {
    while (this.driving.size > 0) {
      await Promise.all([...this.driving.values()]);
    }
  }

  /**
   * Steps the rollout soon, after the steps this process has queued for it; an event that arrives while a step runs
   * queues one more, so no ending is missed. Another replica holding the lease is waited for a little, then left to
   * the sweep.
   */
  private nudge(rolloutId: string): void {
    if (this.queued.has(rolloutId)) {
      return;
    }
    this.queued.add(rolloutId);
    void this.serially(rolloutId, async () => {
      this.queued.delete(rolloutId);
      try {
        for (let attempt = 0; attempt < NUDGE_ATTEMPTS; attempt += 1) {
          if (await this.step(rolloutId, null)) {
            return;
          }
          await sleep(CONTROL_RETRY_MS);
        }
      } catch (error) {
        this.logger.warn(
          `Rollout ${rolloutId}: step failed, the sweep retries: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
  }

  /** One step with an input, after the steps queued here; false when another driver holds the lease. */
  private drive(rolloutId: string, input: RolloutInput | null): Promise<boolean> {
    return this.serially(rolloutId, () => this.step(rolloutId, input));
  }

  /** Runs `work` after every step this process queued for the rollout: one step at a time per rollout here. */
  private serially<T>(rolloutId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.driving.get(rolloutId) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.driving.set(rolloutId, tail);
    void tail.then(() => {
      if (this.driving.get(rolloutId) === tail) {
        this.driving.delete(rolloutId);
      }
    });
    return result;
  }

  private async step(rolloutId: string, input: RolloutInput | null): Promise<boolean> {
    const now = this.clock.now();
    const leased = await this.rollouts.lease(rolloutId, this.driverId, now, now + this.leaseMs);
    if (leased === null) {
      return false;
    }
    try {
      let stored = leased;
      if (input !== null) {
        const decision = decideRollout(stored.rollout, input);
        if (isRefusal(decision)) {
          throw refusalError(decision);
        }
        stored = await this.saveStep(stored, decision.rollout, decision.orders);
      }
      for (;;) {
        const { next, pendingOrders } = await this.settle(stored);
        stored = next;
        if (!pendingOrders) {
          break;
        }
      }
    } finally {
      await this.rollouts.release(rolloutId, this.driverId);
    }
    return true;
  }

  /**
   * Gives the orders not given yet, reads the operations of the ordered instances, and feeds each outcome to the
   * rules; answers whether the rules ordered more instances (another round gives their orders).
   */
  private async settle(stored: StoredRollout): Promise<{ next: StoredRollout; pendingOrders: boolean }> {
    const tracking: Record<string, RolloutTracking> = { ...stored.tracking };
    const ordered = stored.rollout.instances.filter((item) => item.state === 'ORDERED');
    const unknown = ordered.filter((item) => (tracking[item.instanceId]?.operationId ?? null) === null);
    const inputs: RolloutInput[] = [];
    if (unknown.length > 0) {
      const latest = await this.rollouts.latestOperations(unknown.map((item) => item.instanceId));
      for (const { instanceId } of unknown) {
        const baseline = tracking[instanceId]?.baselineOperationId ?? null;
        const current = latest.get(instanceId)?.operationId ?? null;
        if (current !== null && current !== baseline) {
          tracking[instanceId] = { baselineOperationId: baseline, operationId: current };
          continue;
        }
        const given = await this.giveOrder(stored.rollout, instanceId, baseline);
        if (typeof given === 'string') {
          tracking[instanceId] = { baselineOperationId: baseline, operationId: given };
        } else {
          inputs.push(given);
        }
      }
    }
    const operationIds = ordered.flatMap((item) => tracking[item.instanceId]?.operationId ?? []);
    const operations =
      operationIds.length === 0 ? new Map<string, RolloutOperation>() : await this.rollouts.operations(operationIds);
    for (const item of ordered) {
      const operationId = tracking[item.instanceId]?.operationId ?? null;
      const operation = operationId === null ? undefined : operations.get(operationId);
      const outcome = operation === undefined ? null : outcomeOf(operation);
      if (outcome !== null) {
        inputs.push({ kind: 'OPERATION_ENDED', instanceId: item.instanceId, ...outcome });
      }
    }
    let rollout = stored.rollout;
    const orders: string[] = [];
    for (const input of inputs) {
      const decision = decideRollout(rollout, input);
      if (!isRefusal(decision)) {
        rollout = decision.rollout;
        orders.push(...decision.orders);
      }
    }
    const next = await this.saveStep({ rollout: stored.rollout, tracking }, rollout, orders);
    return { next, pendingOrders: orders.length > 0 };
  }

  /** Saves a step; instances it ordered get their baseline first, so a crash after the save loses nothing. */
  private async saveStep(stored: StoredRollout, rollout: Rollout, orders: readonly string[]): Promise<StoredRollout> {
    const tracking: Record<string, RolloutTracking> = { ...stored.tracking };
    if (orders.length > 0) {
      const latest = await this.rollouts.latestOperations(orders);
      for (const instanceId of orders) {
        tracking[instanceId] = { baselineOperationId: latest.get(instanceId)?.operationId ?? null, operationId: null };
      }
    }
    const next: StoredRollout = { rollout: { ...rollout, updatedAt: this.clock.now() }, tracking };
    if (!(await this.rollouts.save(next, this.driverId))) {
      throw new DomainError('CONCURRENT_MODIFICATION', `Rollout ${rollout.rolloutId}: another replica took it over`, {
        rolloutId: rollout.rolloutId,
      });
    }
    if (isRolloutFinished(next.rollout.state) && !isRolloutFinished(stored.rollout.state)) {
      this.logger.log(
        `Rollout ${rollout.rolloutId} ${next.rollout.state}${next.rollout.reason === null ? '' : `: ${next.rollout.reason}`}`,
      );
    }
    return next;
  }

  /** Gives the rollout's order to one instance: the operation it started, or the refusal as the rules' input. */
  private async giveOrder(
    rollout: Rollout,
    instanceId: string,
    baseline: string | null,
  ): Promise<string | RolloutInput> {
    try {
      await this.instantiation.changeState(rollout.compositionId, instanceId, STATE_UPDATES[rollout.order]);
    } catch (error) {
      if (isDomainError(error) && error.code !== 'STORE_UNAVAILABLE' && error.code !== 'STORE_FULL') {
        return { kind: 'ORDER_REFUSED', instanceId, reason: error.message };
      }
      throw error;
    }
    const started = (await this.rollouts.latestOperations([instanceId])).get(instanceId)?.operationId ?? null;
    if (started === null || started === baseline) {
      return { kind: 'ORDER_REFUSED', instanceId, reason: 'the order started no operation' };
    }
    return started;
  }
}
