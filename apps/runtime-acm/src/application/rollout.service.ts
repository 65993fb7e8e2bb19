import {
  Clock,
  DomainError,
  IdGenerator,
  ObservationStore,
  ROLLBACK_ORDERS,
  ReadModels,
  RolloutStore,
  bakeHealthVerdict,
  checkOrderMayStart,
  decideRollout,
  healthGateOf,
  isDomainError,
  metadataMatches,
  isRefusal,
  isHealthyPerGates,
  isRolloutFinished,
  newRollout,
  orderAvailability,
  parseRolloutRequest,
  planRollout,
  refusalError,
  rolloutEvents,
  upgradeRollout,
} from '@acm/domain';
import type {
  AutomationComposition,
  BatchGate,
  BakedElement,
  CompositionDefinition,
  InstanceStateUpdate,
  JsonObject,
  RefusedInstance,
  Rollout,
  RolloutActor,
  RolloutEvent,
  RolloutFilter,
  RolloutInput,
  RolloutOperation,
  RolloutOrder,
  RolloutRequest,
  RolloutTracking,
  SelectedInstance,
  StoredRollout,
} from '@acm/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { requestActor } from '../observability/request-context';
import { TemplateReader } from '../engine/template-reader';
import { InstantiationService } from './instantiation.service';
import { ParticipantProtocolService } from './participant-protocol.service';
import { WindowsService, isoOf } from './windows.service';
import type { InstanceRequest } from './instantiation.service';

/** The instance order each state-changing rollout order is given as: ONAP's AcInstanceStateUpdate. */
const STATE_UPDATES: Readonly<Partial<Record<RolloutOrder, InstanceStateUpdate>>> = {
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
const RULES_ACTOR: RolloutActor = { kind: 'runtime', rule: 'rollout' };

/** What a dry run answers: the batches, the instances left out with the reason, and whether it would start. */
export interface RolloutPlanResult {
  readonly order: RolloutOrder;
  readonly compositionId: string;
  readonly batches: ReadonlyArray<{ readonly batch: number; readonly instanceIds: readonly string[] }>;
  readonly refused: readonly RefusedInstance[];
  /** Unfinished rollouts already holding some selected instances (a creation would answer 409). */
  readonly heldBy: readonly string[];
  readonly wouldStart: boolean;
  /** The windows that apply to the selection, whether they let a batch start now, and when they next do. */
  readonly windows: {
    readonly applying: readonly string[];
    readonly openNow: boolean;
    readonly heldBy: readonly string[];
    readonly nextOpening: string | null;
  };
}

/** The version of each node template in a definition's service template, by name. */
function templateVersions(definition: CompositionDefinition): Map<string, string> {
  const topology = definition.serviceTemplate['topology_template'] as
    { node_templates?: Record<string, { version?: unknown }> } | undefined;
  return new Map(
    Object.entries(topology?.node_templates ?? {}).flatMap(([name, template]) =>
      typeof template.version === 'string' ? [[name, template.version] as const] : [],
    ),
  );
}

/** Whether an instance passes the rollout's filter: the filters of GET /v2/instances, and metadata values. */
function matchesFilter(filter: RolloutFilter | null, instance: AutomationComposition): boolean {
  if (filter === null) {
    return true;
  }
  const elements = Object.values(instance.elements);
  return (
    (filter.participantId === null || elements.some((element) => element.participantId === filter.participantId)) &&
    (filter.deployStates.length === 0 || filter.deployStates.includes(instance.deployState)) &&
    (filter.stateChangeResults.length === 0 || filter.stateChangeResults.includes(instance.stateChangeResult)) &&
    metadataMatches(filter, instance.metadata)
  );
}

/** Why an instance refuses the rollout's order now; null when it allows it. */
function refusalOf(request: RolloutRequest, instance: AutomationComposition): string | null {
  const stateUpdate = STATE_UPDATES[request.order];
  if (stateUpdate !== undefined) {
    return orderAvailability(instance).refusedOrders.find((item) => item.order === request.order)?.reason ?? null;
  }
  try {
    const operates = checkOrderMayStart(request.order === 'UPDATE' ? 'UPDATE' : 'MIGRATE', instance);
    if (request.order === 'UPDATE' && !operates) {
      return `UPDATE in a rollout needs a deployed instance; it is ${instance.deployState} (its elements would be replaced without an operation)`;
    }
  } catch (error) {
    if (isDomainError(error)) {
      return error.message;
    }
    throw error;
  }
  if (request.patch !== null) {
    const names = new Set(Object.values(instance.elements).map((element) => element.definition.name));
    const unknown = Object.keys(request.patch).filter((name) => !names.has(name));
    if (unknown.length > 0) {
      return `update.elements: the instance has no element of ${unknown.join(', ')}`;
    }
  }
  return null;
}

/** An instance's current body as an update or migration request, with these elements' properties. */
function bodyOf(
  instance: AutomationComposition,
  elementIds: readonly string[],
  propertiesOf: (elementId: string) => JsonObject,
  versionOf: (name: string, current: string) => string = (_, current) => current,
  compositionTargetId?: string,
): InstanceRequest & { instanceId: string } {
  return {
    instanceId: instance.instanceId,
    compositionId: instance.compositionId,
    ...(compositionTargetId === undefined ? {} : { compositionTargetId }),
    name: instance.name,
    version: instance.version,
    description: instance.description,
    derivedFrom: instance.derivedFrom,
    metadata: instance.metadata,
    elements: elementIds.flatMap((id) => {
      const element = instance.elements[id];
      return element === undefined
        ? []
        : [
            {
              id,
              definition: {
                name: element.definition.name,
                version: versionOf(element.definition.name, element.definition.version),
              },
              description: element.description,
              properties: propertiesOf(id),
            },
          ];
    }),
  };
}

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
  /** By rollout: the timer that steps it when its pause between batches ends. */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;
  private readonly batchListeners: Array<(order: RolloutOrder, seconds: number) => void> = [];

  constructor(
    private readonly rollouts: RolloutStore,
    private readonly instantiation: InstantiationService,
    private readonly reads: ReadModels,
    private readonly observations: ObservationStore,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
    private readonly windows: WindowsService,
    private readonly participants: ParticipantProtocolService,
  ) {
    this.driverId = ids.uuid();
    this.leaseMs = Math.max(30_000, config.heartBeatMs * 3);
  }

  /** The request and its selection resolved: every selected instance with its metadata and refusal. */
  private async resolve(body: unknown): Promise<{ request: RolloutRequest; selection: SelectedInstance[] }> {
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
    const missing = (request.instanceIds ?? []).filter((id) => !found.has(id));
    const instanceIds = (request.instanceIds ?? selected.map((instance) => instance.instanceId)).filter((id) => {
      const instance = found.get(id);
      return instance === undefined || matchesFilter(request.filter, instance);
    });
    if (missing.length > 0) {
      throw new DomainError(
        'VALIDATION_FAILED',
        `instanceIds: ${missing.join(', ')} ${missing.length === 1 ? 'is not an instance' : 'are not instances'} of composition ${request.compositionId}`,
        { missing },
      );
    }
    if (request.compositionTargetId !== null) {
      const target = await this.reads.read((model) => model.definitions.find(request.compositionTargetId!));
      if (target === null) {
        throw new DomainError(
          'VALIDATION_FAILED',
          `compositionTargetId: composition ${request.compositionTargetId} does not exist`,
          { compositionTargetId: request.compositionTargetId },
        );
      }
    }
    const selection = instanceIds.map((instanceId): SelectedInstance => {
      const instance = found.get(instanceId)!;
      return { instanceId, metadata: instance.metadata, refusal: refusalOf(request, instance) };
    });
    return { request, selection };
  }

  /** POST ?dryRun=true: the batches the rollout would run and the instances it would leave out; writes nothing. */
  async plan(body: unknown): Promise<RolloutPlanResult> {
    const { request, selection } = await this.resolve(body);
    // The same checks as a creation (thresholds, an empty selection), refused instances aside.
    newRollout('dry-run', { ...request, strategy: { ...request.strategy, skipRefused: true } }, selection, 0);
    const plan = planRollout(request, selection);
    return {
      order: request.order,
      compositionId: request.compositionId,
      batches: plan.batches.map((instanceIds, index) => ({ batch: index + 1, instanceIds })),
      refused: plan.refused,
      heldBy: await this.rollouts.holding(selection.map((item) => item.instanceId)),
      wouldStart: plan.refused.length === 0 || request.strategy.skipRefused,
      windows: await this.windowsOf(request, selection),
    };
  }

  private async windowsOf(
    request: RolloutRequest,
    selection: readonly SelectedInstance[],
  ): Promise<RolloutPlanResult['windows']> {
    const now = this.clock.now();
    const verdict = await this.windows.verdict(
      selection.map((item) => ({ compositionId: request.compositionId, metadata: item.metadata })),
      now,
    );
    return verdict.open
      ? { applying: verdict.windows, openNow: true, heldBy: [], nextOpening: isoOf(now) }
      : {
          applying: verdict.windows,
          openNow: false,
          heldBy: verdict.blockedBy,
          nextOpening: isoOf(verdict.nextOpening),
        };
  }

  async create(body: unknown): Promise<Rollout> {
    const { request, selection } = await this.resolve(body);
    const now = this.clock.now();
    const rollout = newRollout(this.ids.uuid(), request, selection, now);
    this.creations += 1;
    this.unfinishedKnown = true;
    const conflict = await this.rollouts.create(
      { rollout, tracking: {} },
      rolloutEvents(null, rollout, now, requestActor() ?? RULES_ACTOR),
    );
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

  /** The runtime's time (epoch ms), as the rules are given it. */
  now(): number {
    return this.clock.now();
  }

  /** Calls `listener` with each batch this process saw end: the rollout's order and the batch's duration. */
  onBatchEnded(listener: (order: RolloutOrder, seconds: number) => void): void {
    this.batchListeners.push(listener);
  }

  /** The rollout's own history, oldest first. */
  async history(rolloutId: string): Promise<readonly RolloutEvent[]> {
    await this.get(rolloutId);
    return this.rollouts.history(rolloutId);
  }

  async get(rolloutId: string): Promise<Rollout> {
    const stored = await this.rollouts.find(rolloutId);
    if (stored === null) {
      throw new DomainError('NOT_FOUND', `Rollout ${rolloutId} not found`, { rolloutId });
    }
    return upgradeRollout(stored.rollout);
  }

  /** The definition a rollout orders the instances of (its project is the rollout's), null for an unknown rollout. */
  async compositionOf(rolloutId: string): Promise<string | null> {
    const stored = await this.rollouts.find(rolloutId);
    return stored === null ? null : stored.rollout.compositionId;
  }

  async list(limit: number): Promise<Rollout[]> {
    return (await this.rollouts.list(limit)).map(upgradeRollout);
  }

  /** Pause, resume, promote or cancel: applied under the lease, waiting briefly for a step of another driver. */
  async control(
    rolloutId: string,
    input: Extract<RolloutInput, { kind: 'PAUSE' | 'RESUME' | 'PROMOTE' | 'CANCEL' }>,
  ): Promise<Rollout> {
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
    let stored: StoredRollout = { ...leased, rollout: upgradeRollout(leased.rollout) };
    try {
      const gate = isRolloutFinished(stored.rollout.state) ? null : await this.gateOf(stored.rollout);
      if (input !== null) {
        const decision = decideRollout(stored.rollout, input, now, gate);
        if (isRefusal(decision)) {
          throw refusalError(decision);
        }
        const actor = input.kind === 'START' || input.kind === 'TICK' ? RULES_ACTOR : (requestActor() ?? RULES_ACTOR);
        stored = await this.saveStep(stored, decision.rollout, decision.orders, decision.rollbacks, actor, now, stored);
      }
      for (;;) {
        const { next, pendingOrders } = await this.settle(stored, gate);
        stored = next;
        if (!pendingOrders) {
          break;
        }
      }
    } finally {
      await this.rollouts.release(rolloutId, this.driverId);
    }
    const { nextBatchAt, bakingUntil } = stored.rollout;
    const dues = [nextBatchAt, bakingUntil].filter((due): due is number => due !== null);
    this.wakeAt(rolloutId, isRolloutFinished(stored.rollout.state) || dues.length === 0 ? null : Math.min(...dues));
    return true;
  }

  /** Whether maintenance windows hold a batch of the rollout: from the windows that apply to its instances. */
  private gateOf(rollout: Rollout): Promise<BatchGate | null> {
    return this.windows.batchGate(rollout, async (instanceIds) => {
      const instances = await this.instantiation.list({
        compositionId: rollout.compositionId,
        instanceIds,
        sort: 'instanceId',
        sortOrder: 'ASC',
        page: 0,
        size: instanceIds.length,
      });
      return new Map(instances.map((instance) => [instance.instanceId, instance.metadata]));
    });
  }

  /** Windows were created or deleted: step every unfinished rollout, so one held by them looks again now. */
  windowsChanged(): void {
    this.sweep().catch((error: unknown) =>
      this.logger.warn(
        `Rollouts not stepped after a window change: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }

  /** A pause between batches ends at `dueAt`: step the rollout then (the sweep is the safety net). */
  private wakeAt(rolloutId: string, dueAt: number | null): void {
    const previous = this.timers.get(rolloutId);
    if (previous !== undefined) {
      clearTimeout(previous);
      this.timers.delete(rolloutId);
    }
    if (dueAt === null || this.stopped) {
      return;
    }
    const timer = setTimeout(
      () => {
        this.timers.delete(rolloutId);
        this.nudge(rolloutId);
      },
      Math.max(0, dueAt - this.clock.now()),
    );
    timer.unref();
    this.timers.set(rolloutId, timer);
  }

  /** Stops the timers of pauses between batches and waits for the steps in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) {
      clearTimeout(timer);
    }
    this.timers.clear();
    await this.idle();
  }

  /**
   * Gives the orders (and rollback orders) not given yet, reads the operations of the instances in flight, and feeds
   * each outcome to the rules, then the time; answers whether the rules ordered more instances (another round gives
   * their orders).
   */
  private async settle(
    stored: StoredRollout,
    gate: BatchGate | null,
  ): Promise<{ next: StoredRollout; pendingOrders: boolean }> {
    const now = this.clock.now();
    const tracking: Record<string, RolloutTracking> = { ...stored.tracking };
    const flying = stored.rollout.instances.filter((item) => item.state === 'ORDERED' || item.state === 'ROLLING_BACK');
    const unknown = flying.filter((item) => (tracking[item.instanceId]?.operationId ?? null) === null);
    const inputs: RolloutInput[] = [];
    if (unknown.length > 0) {
      const latest = await this.rollouts.latestOperations(unknown.map((item) => item.instanceId));
      for (const { instanceId, state } of unknown) {
        const known = tracking[instanceId];
        const baseline = known?.baselineOperationId ?? null;
        const current = latest.get(instanceId)?.operationId ?? null;
        if (current !== null && current !== baseline) {
          tracking[instanceId] = { ...known, baselineOperationId: baseline, operationId: current };
          continue;
        }
        const given = await this.giveOrder(stored.rollout, instanceId, baseline, state === 'ROLLING_BACK', known);
        if (typeof given === 'string') {
          tracking[instanceId] = { ...known, baselineOperationId: baseline, operationId: given };
        } else {
          inputs.push(given);
        }
      }
    }
    const operationIds = flying.flatMap((item) => tracking[item.instanceId]?.operationId ?? []);
    const operations =
      operationIds.length === 0 ? new Map<string, RolloutOperation>() : await this.rollouts.operations(operationIds);
    for (const item of flying) {
      const operationId = tracking[item.instanceId]?.operationId ?? null;
      const operation = operationId === null ? undefined : operations.get(operationId);
      const outcome = operation === undefined ? null : outcomeOf(operation);
      if (outcome !== null) {
        inputs.push({ kind: 'OPERATION_ENDED', instanceId: item.instanceId, ...outcome });
      }
    }
    // While the batch bakes, its instances' health first: a bake that ends now ends on the latest health.
    inputs.push(...(await this.unhealthyDuringBake(stored.rollout, now)), { kind: 'TICK' });
    let rollout = stored.rollout;
    const orders: string[] = [];
    const rollbacks: string[] = [];
    for (const input of inputs) {
      const decision = decideRollout(rollout, input, now, gate);
      if (!isRefusal(decision)) {
        rollout = decision.rollout;
        orders.push(...decision.orders);
        rollbacks.push(...decision.rollbacks);
      }
    }
    const next = await this.saveStep({ ...stored, tracking }, rollout, orders, rollbacks, RULES_ACTOR, now, stored);
    return { next, pendingOrders: orders.length > 0 || rollbacks.length > 0 };
  }

  /**
   * Saves a step and its history; instances it ordered (or rolls back) get their baseline first, and an UPDATE's
   * instances their properties before it, so a crash after the save loses nothing. What the rules decided at
   * `decidedAt` is saved with the history of the step stamped with that time: the rules' own times (a pause between
   * batches is due at the end of the batch plus the pause) and the history's then agree. `saved` is the rollout as
   * the store holds it: only the instances that differ from it are written.
   */
  private async saveStep(
    stored: StoredRollout,
    rollout: Rollout,
    orders: readonly string[],
    rollbacks: readonly string[],
    actor: RolloutActor,
    decidedAt: number,
    saved: StoredRollout,
  ): Promise<StoredRollout> {
    const before = stored.rollout;
    const tracking: Record<string, RolloutTracking> = { ...stored.tracking };
    const started = [...orders, ...rollbacks];
    if (started.length > 0) {
      const latest = await this.rollouts.latestOperations(started);
      const previous =
        rollout.order === 'UPDATE' && orders.length > 0 ? await this.propertiesOf(rollout, orders) : null;
      for (const instanceId of started) {
        const properties = previous?.get(instanceId) ?? tracking[instanceId]?.previousProperties;
        tracking[instanceId] = {
          baselineOperationId: latest.get(instanceId)?.operationId ?? null,
          operationId: null,
          ...(properties === undefined ? {} : { previousProperties: properties }),
        };
      }
    }
    const events = rolloutEvents(before, rollout, decidedAt, actor);
    const next: StoredRollout = { rollout: { ...rollout, updatedAt: decidedAt }, tracking };
    if (!(await this.rollouts.save(next, this.driverId, events, saved))) {
      throw new DomainError('CONCURRENT_MODIFICATION', `Rollout ${rollout.rolloutId}: another replica took it over`, {
        rolloutId: rollout.rolloutId,
      });
    }
    if (events.some((event) => event.kind === 'BAKE_STARTED')) {
      await this.askForFreshHealth(next.rollout);
    }
    const endedBatches = events.filter((event) => event.kind === 'BATCH_ENDED');
    if (endedBatches.length > 0 && this.batchListeners.length > 0) {
      const history = await this.rollouts.history(rollout.rolloutId);
      for (const ended of endedBatches) {
        const started = history.find((event) => event.kind === 'BATCH_STARTED' && event.batch === ended.batch);
        if (started !== undefined) {
          this.batchListeners.forEach((listener) => listener(rollout.order, (ended.at - started.at) / 1000));
        }
      }
    }
    if (isRolloutFinished(next.rollout.state) && !isRolloutFinished(before.state)) {
      this.logger.log(
        `Rollout ${rollout.rolloutId} ${next.rollout.state}${next.rollout.reason === null ? '' : `: ${next.rollout.reason}`}`,
      );
    }
    return next;
  }

  /**
   * Asks the participants of the batch that starts to bake for a status report now (PARTICIPANT_STATUS_REQ), so the
   * bake judges what they observe after the order ended rather than waiting for their own schedule. A request lost
   * (the runtime stopped before it was sent) costs nothing but freshness: the bake still ends on its time.
   */
  private async askForFreshHealth(rollout: Rollout): Promise<void> {
    const baking = rollout.instances.filter((item) => item.batch === rollout.currentBatch && item.state === 'DONE');
    if (baking.length === 0) {
      return;
    }
    const compositionId = rollout.order === 'MIGRATE' ? rollout.compositionTargetId! : rollout.compositionId;
    const instances = await this.instantiation.list({
      compositionId,
      instanceIds: baking.map((item) => item.instanceId),
      sort: 'instanceId',
      sortOrder: 'ASC',
      page: 0,
      size: baking.length,
    });
    const participants = new Set(
      instances.flatMap((instance) =>
        Object.values(instance.elements).flatMap((element) => element.participantId ?? []),
      ),
    );
    for (const participantId of participants) {
      await this.participants.requestStatus(participantId).catch((error: Error) => {
        this.logger.warn(`Rollout ${rollout.rolloutId}: asking ${participantId} for a status failed: ${error.message}`);
      });
    }
  }

  /**
   * The DONE instances of the batch that bakes that are unhealthy now, as the rules' inputs: an element (deployed)
   * observed Degraded or Missing since the instance was done, or whose health gate no longer holds on what its
   * participant last reported (`bakeHealthVerdict`).
   */
  private async unhealthyDuringBake(rollout: Rollout, now: number): Promise<RolloutInput[]> {
    if (rollout.state !== 'RUNNING' || rollout.bakingUntil === null) {
      return [];
    }
    const ends = now >= rollout.bakingUntil;
    const done = rollout.instances.filter((item) => item.batch === rollout.currentBatch && item.state === 'DONE');
    if (done.length === 0) {
      return [];
    }
    // A migrated instance belongs to the target composition.
    const compositionId = rollout.order === 'MIGRATE' ? rollout.compositionTargetId! : rollout.compositionId;
    const instances = await this.instantiation.list({
      compositionId,
      instanceIds: done.map((item) => item.instanceId),
      sort: 'instanceId',
      sortOrder: 'ASC',
      page: 0,
      size: done.length,
    });
    const definition = await this.reads.read((model) => model.definitions.find(compositionId));
    const templates = definition === null ? [] : this.templates.readDefinition(definition.value).elements;
    const gateOf = (name: string) =>
      healthGateOf(templates.find((template) => template.name === name)?.gateMetadata ?? {}).gate;
    const doneAt = new Map(done.map((item) => [item.instanceId, item.doneAt ?? rollout.updatedAt]));
    const inputs: RolloutInput[] = [];
    for (const instance of instances) {
      const observed = await this.observations.ofInstance(instance.instanceId);
      const elements = Object.values(instance.elements)
        .filter((element) => element.deployState === 'DEPLOYED')
        .map((element): BakedElement => {
          const health = observed[element.id]?.health ?? null;
          const gate = gateOf(element.definition.name);
          return {
            name: element.definition.name,
            health,
            gateHolds: isHealthyPerGates([
              {
                gate,
                observation: {
                  outProperties: element.outProperties,
                  operationalState: element.operationalState,
                  useState: element.useState,
                },
              },
            ]),
          };
        });
      const reason = bakeHealthVerdict(doneAt.get(instance.instanceId) ?? rollout.updatedAt, elements, ends);
      if (reason !== null) {
        inputs.push({ kind: 'INSTANCE_UNHEALTHY', instanceId: instance.instanceId, reason });
      }
    }
    return inputs;
  }

  /** The properties of each element of these instances now, by instance and element id. */
  private async propertiesOf(
    rollout: Rollout,
    instanceIds: readonly string[],
  ): Promise<Map<string, Record<string, JsonObject>>> {
    const instances = await this.instantiation.list({
      compositionId: rollout.compositionId,
      instanceIds,
      sort: 'instanceId',
      sortOrder: 'ASC',
      page: 0,
      size: instanceIds.length,
    });
    return new Map(
      instances.map((instance) => [
        instance.instanceId,
        Object.fromEntries(Object.entries(instance.elements).map(([id, element]) => [id, element.properties])),
      ]),
    );
  }

  /**
   * Gives the rollout's order (or, rolling back, its reverse) to one instance: the operation it started, or the
   * refusal as the rules' input.
   */
  private async giveOrder(
    rollout: Rollout,
    instanceId: string,
    baseline: string | null,
    rollback: boolean,
    tracking: RolloutTracking | undefined,
  ): Promise<string | RolloutInput> {
    const order = rollback ? ROLLBACK_ORDERS[rollout.order] : rollout.order;
    try {
      const stateUpdate = STATE_UPDATES[order];
      if (stateUpdate !== undefined) {
        await this.instantiation.changeState(rollout.compositionId, instanceId, stateUpdate);
      } else if (rollout.order === 'UPDATE') {
        await this.giveUpdate(rollout, instanceId, rollback, tracking);
      } else {
        await this.giveMigration(rollout, instanceId, rollback);
      }
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

  /** UPDATE: the patch merged into the elements it names; its rollback gives those properties their values before. */
  private async giveUpdate(
    rollout: Rollout,
    instanceId: string,
    rollback: boolean,
    tracking: RolloutTracking | undefined,
  ): Promise<void> {
    const patch = rollout.patch ?? {};
    const instance = await this.instantiation.get(rollout.compositionId, instanceId);
    const patched = Object.entries(instance.elements)
      .filter(([, element]) => patch[element.definition.name] !== undefined)
      .map(([id]) => id);
    const previous = tracking?.previousProperties;
    if (rollback && previous === undefined) {
      throw new DomainError(
        'ORDER_NOT_ALLOWED',
        `no properties were saved for instance ${instanceId} before its UPDATE`,
      );
    }
    const propertiesOf = (elementId: string): JsonObject => {
      const changed = patch[instance.elements[elementId]!.definition.name] ?? {};
      if (!rollback) {
        return { ...changed };
      }
      const before = previous?.[elementId] ?? {};
      return Object.fromEntries(Object.keys(changed).flatMap((key) => (key in before ? [[key, before[key]]] : [])));
    };
    await this.instantiation.update(rollout.compositionId, bodyOf(instance, patched, propertiesOf));
  }

  /** MIGRATE to the target composition; its rollback migrates back to the source, where ONAP's rules allow. */
  private async giveMigration(rollout: Rollout, instanceId: string, rollback: boolean): Promise<void> {
    const source = rollout.compositionId;
    const target = rollout.compositionTargetId!;
    const [from, to] = rollback ? [target, source] : [source, target];
    const instance = await this.instantiation.get(from, instanceId);
    const definition = await this.reads.read((model) => model.definitions.find(to));
    if (definition === null) {
      throw new DomainError('ORDER_NOT_ALLOWED', `composition ${to} no longer exists`);
    }
    const versions = templateVersions(definition.value);
    await this.instantiation.update(
      from,
      bodyOf(
        instance,
        Object.keys(instance.elements),
        (elementId) => instance.elements[elementId]!.properties,
        (name, current) => versions.get(name) ?? current,
        to,
      ),
    );
  }
}
