import type { AutomationCompositionDeployAck, ParticipantPrimeAck, ParticipantTopics } from '@acm/contracts';
import type {
  AutomationComposition,
  CompositionDefinition,
  DefinitionOrder,
  InstanceElement,
  InstanceOrder,
  NodeTemplateState,
  Operation,
  OperationEvent,
  OutboxRecord,
  ParticipantReplica,
  Store,
  Versioned,
} from '@acm/domain';
import {
  Clock,
  DEFINITION_ORDER_EFFECT,
  DomainError,
  IdGenerator,
  UnitOfWork,
  applyAck,
  assertDefinitionRuns,
  assertSomethingRuns,
  cancelledInstance,
  cascadeOrder,
  decideResend,
  decideRetry,
  effectiveRetryPolicy,
  noProgressTimeoutOf,
  parseRetryPolicy,
  planCancelRollback,
  resendSettingsOf,
  stuckElements,
  completedStateOf,
  decideNextPhase,
  dependencyWaits,
  describedAtPhaseStart,
  elementsInPhase,
  firstPhase,
  freshControl,
  phaseDeadline,
  isElementTransitional,
  isStagedOrder,
  needsHandOver,
  newlyReady,
  stagePhaseOf,
  transitionalStateFor,
} from '@acm/domain';
import type { StageSets, StartPhaseOf } from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';
import { metadataTimeoutMs } from '@acm/tosca';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { TemplateReader } from './template-reader';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { EngineMetrics } from './engine-metrics';
import {
  definitionSyncMessage,
  instanceSyncMessage,
  phaseMessage,
  primeMessage,
  toOutbox,
} from './participant-messages';
import type { CompositionSide } from './participant-messages';

const PHASED_ORDERS: ReadonlySet<InstanceOrder> = new Set(['DEPLOY', 'UNDEPLOY', 'DELETE', 'LOCK', 'UNLOCK']);

/** What an order's messages need beyond the instance and its own definition. */
interface OrderContext {
  /** Migration target (MIGRATE, MIGRATE_PRECHECK) or the composition a migration rollback leaves (MIGRATION_REVERT). */
  readonly other?: CompositionSide;
  /** The rollback snapshot: the elements before the update, migration or rollback. */
  readonly before?: Record<string, InstanceElement>;
  /** MIGRATE_PRECHECK only: the elements the migration would produce. */
  readonly planned?: Record<string, InstanceElement>;
}

/** Extra input of orders that carry more than the instance: a precheck's target and planned elements. */
export interface OrderExtras {
  readonly target?: CompositionDefinition;
  readonly planned?: Record<string, InstanceElement>;
  /** The elements as the order starts them, when not ONAP's cascade (a cancel's rollback). */
  readonly elements?: Record<string, InstanceElement>;
}

/** What one supervision pass over the running operations did (issue 12). */
export interface SupervisionOutcome {
  resent: number;
  retried: number;
  stuck: number;
}

/**
 * Runs transitions: opens an operation with its first phase, applies each ACK in one transaction and,
 * when the ACK closes a phase, queues the next phase's message in that same transaction. Advancing is
 * driven by ACKs only; supervision merely flags timeouts.
 */
@Injectable()
export class OperationEngine {
  private readonly logger = new Logger('Engine');
  private readonly topics: ParticipantTopics;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly unitOfWork: UnitOfWork,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly metrics: EngineMetrics,
  ) {
    this.topics = { operation: config.operationTopic, sync: config.syncTopic };
  }

  /**
   * Starts an instance order inside the caller's transaction. On a retry of the same order, elements
   * already at its target keep their state, so it only redoes what did not finish (`cascadeOrder`).
   */
  async startInstanceOrder(
    store: Store,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    order: InstanceOrder,
    extras: OrderExtras = {},
  ): Promise<AutomationComposition> {
    const now = this.clock.now();
    const instance = found.value;
    const info = this.templates.readDefinition(definition);
    const during = transitionalStateFor(order);
    const elements = extras.elements ?? cascadeOrder(instance, order);
    const context = await this.contextOf(store, instance, order, extras);
    const startPhaseOf = this.startPhaseLookup(info, order, context);
    const pendingPhases = Object.values(elements).filter(isElementTransitional).map(startPhaseOf);
    const phase = firstPhase(order, pendingPhases);
    const previous = await store.operations.findRunning(instance.instanceId);
    if (previous) {
      await store.operations.update({ ...previous, state: 'SUPERSEDED', finishedAt: now });
    }
    const operation: Operation = {
      operationId: this.ids.uuid(),
      targetKind: 'INSTANCE',
      targetId: instance.instanceId,
      order,
      state: 'RUNNING',
      timedOut: false,
      phase,
      startedAt: now,
      deadlineAt: phaseDeadline({ deployState: during.deployState, elements }, now, this.config.maxOperationWaitMs),
      finishedAt: null,
      control: freshControl(now),
    };
    const started: AutomationComposition = {
      ...instance,
      ...during,
      stateChangeResult: 'NO_ERROR',
      phase,
      precheck: order === 'MIGRATE_PRECHECK' ? true : instance.precheck,
      elements,
      lastMsg: now,
    };
    // The versioned write comes first: of two concurrent orders, the loser fails here with 409.
    await store.instances.update(started, found.version);
    await store.operations.insert(operation);
    const events: OperationEvent[] = [this.event(instance.instanceId, operation, 'ORDERED', { order }, now)];
    if (pendingPhases.length === 0) {
      await this.complete(store, started, found.version + 1, definition, operation, events, now);
      return started;
    }
    const waits = this.dependencyWaitsOf(info, order, elements);
    await this.sendPhase(store, started, definition, info, context, operation, phase, true, events, now, {
      describe: describedAtPhaseStart(elements, phase, startPhaseOf, waits),
    });
    await store.events.append(events);
    return started;
  }

  /** Starts a prime or deprime inside the caller's transaction. */
  async startDefinitionOrder(store: Store, definition: CompositionDefinition, order: DefinitionOrder): Promise<void> {
    const now = this.clock.now();
    const info = this.templates.readDefinition(definition);
    const timeout =
      metadataTimeoutMs(info.metadata, order === 'PRIME' ? 'primeTimeoutMs' : 'deprimeTimeoutMs') ??
      this.config.maxOperationWaitMs;
    const previous = await store.operations.findRunning(definition.compositionId);
    if (previous) {
      await store.operations.update({ ...previous, state: 'SUPERSEDED', finishedAt: now });
    }
    const operation: Operation = {
      operationId: this.ids.uuid(),
      targetKind: 'DEFINITION',
      targetId: definition.compositionId,
      order,
      state: 'RUNNING',
      timedOut: false,
      phase: null,
      startedAt: now,
      deadlineAt: now + timeout,
      finishedAt: null,
      control: freshControl(now),
    };
    await store.operations.insert(operation);
    const messageId = this.ids.uuid();
    await store.operations.recordMessage(messageId, operation.operationId, null);
    await store.outbox.add([
      toOutbox(primeMessage(messageId, new Date(now).toISOString(), definition, info, order), this.topics),
    ]);
    await store.events.append([this.event(definition.compositionId, operation, 'ORDERED', { order }, now)]);
  }

  /** Applies a deploy/state-change ACK; a stale or foreign one changes nothing. */
  async applyInstanceAck(ack: AutomationCompositionDeployAck): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      const now = this.clock.now();
      const instanceId = ack.automationCompositionId;
      const matched = ack.responseTo ? await store.operations.findByMessage(ack.responseTo) : null;
      if (ack.responseTo && (!matched || matched.operation.targetId !== instanceId)) {
        this.ignored('UNKNOWN_MESSAGE', `ACK answers unknown message ${ack.responseTo}`);
        return;
      }
      const found = await store.instances.findForUpdate(instanceId);
      if (!found) {
        this.ignored('UNKNOWN_INSTANCE', `ACK for unknown instance ${instanceId}`);
        return;
      }
      const operation = matched ? matched.operation : await store.operations.findRunning(instanceId);
      // A FAILED or CANCELLED operation still records the results of its elements in flight (as ONAP does for
      // FAILED); it never advances.
      const recordsOnly = operation?.state === 'FAILED' || operation?.state === 'CANCELLED';
      if (!operation || (operation.state !== 'RUNNING' && !recordsOnly)) {
        this.ignored('STALE', `ACK for instance ${instanceId} answers an operation that is no longer running`);
        return;
      }
      // ...but only while no newer order (a retry, a rollback) runs: then its late answers are stale.
      if (recordsOnly) {
        const running = await store.operations.findRunning(instanceId);
        if (running && running.operationId !== operation.operationId) {
          this.ignored('STALE', `ACK for instance ${instanceId} answers a failed operation a newer order replaced`);
          return;
        }
      }
      if (matched && ack.responseTo && ack.replicaId) {
        await store.operations.recordAnswer(ack.responseTo, ack.participantId, ack.replicaId);
      }
      const definition = await store.definitions.find(found.value.compositionId);
      if (!definition) {
        return;
      }
      const info = this.templates.readDefinition(definition.value);
      const order = operation.order as InstanceOrder;
      const instance = found.value;
      const context = await this.contextOf(store, instance, order, {});
      const startPhaseOf = this.startPhaseLookup(info, order, context);
      const phase = matched?.phase ?? operation.phase ?? 0;
      const application = applyAck(
        instance.elements,
        {
          participantId: ack.participantId,
          phase,
          stateChangeResult: ack.stateChangeResult,
          message: ack.message ?? null,
          ...(ack.stage !== undefined && isStagedOrder(order) ? { stage: ack.stage } : {}),
          reports: Object.entries(ack.automationCompositionResultMap).map(([elementId, report]) => ({
            elementId,
            deployState: report.deployState,
            lockState: report.lockState,
            operationalState: report.operationalState ?? null,
            useState: report.useState ?? null,
            outProperties: report.outProperties ?? null,
            message: report.message ?? null,
            result: report.result ?? ack.stateChangeResult !== 'FAILED',
          })),
        },
        startPhaseOf,
      );
      for (const { elementId, reason } of application.ignored) {
        this.ignored(reason, `ACK from ${ack.participantId} for element ${elementId} of ${instanceId}: ${reason}`);
      }
      // A precheck also asks about elements the instance does not have yet (NEW ones): their failure counts.
      const precheckFailed = order === 'MIGRATE_PRECHECK' && ack.stateChangeResult === 'FAILED';
      if (application.applied.length === 0 && !precheckFailed) {
        return;
      }
      const events: OperationEvent[] = application.applied.map((elementId) => {
        const element = application.elements[elementId];
        const removed = element === undefined;
        return this.event(
          instanceId,
          operation,
          'ELEMENT_RESULT',
          {
            elementId,
            participantId: ack.participantId,
            phase,
            deployState: removed ? 'DELETED' : element.deployState,
            lockState: removed ? 'NONE' : element.lockState,
            ...(removed ? { removed: true } : {}),
            ...(element?.stage !== null && element?.stage !== undefined && ack.stage !== undefined
              ? { nextStage: element.stage }
              : {}),
            result: !application.failed,
            message: removed ? (ack.message ?? null) : element.message,
          },
          now,
        );
      });
      const updated: AutomationComposition = { ...instance, elements: application.elements, lastMsg: now };
      const failedElementIds = application.applied.filter(
        (elementId) =>
          application.elements[elementId] !== undefined &&
          (ack.stateChangeResult === 'FAILED' || ack.automationCompositionResultMap[elementId]?.result === false),
      );
      if (
        application.failed &&
        !precheckFailed &&
        operation.state === 'RUNNING' &&
        instance.stateChangeResult !== 'FAILED' &&
        (await this.scheduleRetry(store, found.version, updated, info, operation, failedElementIds, events, now))
      ) {
        return;
      }
      if (application.failed || precheckFailed || instance.stateChangeResult === 'FAILED') {
        const failed = { ...updated, stateChangeResult: 'FAILED' as const };
        await store.instances.update(failed, found.version);
        if (operation.state === 'RUNNING' && instance.stateChangeResult !== 'FAILED') {
          await store.operations.update({ ...operation, state: 'FAILED', finishedAt: now });
          events.push(this.event(instanceId, operation, 'FAILED', { message: ack.message ?? null }, now));
          await store.outbox.add([
            toOutbox(
              instanceSyncMessage(this.ids.uuid(), new Date(now).toISOString(), failed, definition.value, false),
              this.topics,
            ),
          ]);
          this.metrics.operationsFinished.inc({ order: operation.order, result: 'FAILED' });
        }
        await store.events.append(events);
        return;
      }
      const decision = decideNextPhase(order, operation.phase ?? phase, application.elements, startPhaseOf);
      const waits = this.dependencyWaitsOf(info, order, application.elements);
      // A paused operation records answers but dispatches nothing new; resume picks up from here.
      const paused = operation.control.pausedAt !== null;
      switch (decision.kind) {
        case 'WAIT': {
          await store.instances.update(updated, found.version);
          // dependsOn: what this ACK completed may unblock elements of the open phase; they go out at once.
          const openPhase = operation.phase ?? phase;
          const unblocked = newlyReady(instance.elements, application.elements, openPhase, startPhaseOf, waits);
          if (unblocked.length > 0 && !paused) {
            await this.sendPhase(
              store,
              updated,
              definition.value,
              info,
              context,
              operation,
              openPhase,
              false,
              events,
              now,
              { describe: new Set(unblocked.map((element) => element.id)), event: 'ELEMENTS_DISPATCHED' },
            );
          }
          break;
        }
        case 'ADVANCE': {
          if (paused) {
            await store.instances.update(updated, found.version);
            break;
          }
          await this.advancePhase(store, updated, found.version, definition.value, info, context, operation, {
            phase: decision.phase,
            events,
            now,
          });
          break;
        }
        case 'COMPLETE':
          events.push(this.event(instanceId, operation, 'PHASE_COMPLETED', { phase: operation.phase }, now));
          await this.complete(store, updated, found.version, definition.value, operation, events, now, context);
          return;
      }
      await store.events.append(events);
    });
  }

  /** Applies a PRIME_ACK: the sender's node templates take the reported state; all done ⇒ PRIMED/COMMISSIONED. */
  async applyPrimeAck(ack: ParticipantPrimeAck): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      const now = this.clock.now();
      const matched = ack.responseTo ? await store.operations.findByMessage(ack.responseTo) : null;
      const found = await store.definitions.findForUpdate(ack.compositionId);
      if (!found) {
        this.ignored('UNKNOWN_DEFINITION', `PRIME_ACK for unknown composition ${ack.compositionId}`);
        return;
      }
      const operation = matched?.operation ?? (await store.operations.findRunning(ack.compositionId));
      // A cancelled prime still records the answers in flight, until a newer order runs; it never completes.
      const cancelled =
        operation?.state === 'CANCELLED' && (await store.operations.findRunning(ack.compositionId)) === null;
      if (!operation || (operation.state !== 'RUNNING' && !cancelled) || operation.targetId !== ack.compositionId) {
        this.ignored('STALE', `PRIME_ACK for ${ack.compositionId} answers an operation that is no longer running`);
        return;
      }
      if (matched && ack.responseTo && ack.replicaId) {
        // A replica that answered a prime did work: its loss may leave work behind (needsHandOver).
        await store.operations.recordAnswer(ack.responseTo, ack.participantId, ack.replicaId);
      }
      const definition = found.value;
      const outByName = new Map(
        (ack.outPropertiesList ?? []).map((entry) => [entry.elementDefinitionId.name, entry.outProperties ?? {}]),
      );
      let owned = 0;
      const elementStateMap = Object.fromEntries(
        Object.entries(definition.elementStateMap).map(([name, state]): [string, NodeTemplateState] => {
          if (state.participantId !== ack.participantId) {
            return [name, state];
          }
          owned += 1;
          return [
            name,
            {
              ...state,
              state: ack.compositionState,
              message: ack.message?.slice(0, 255) ?? null,
              outProperties: outByName.get(name) ?? state.outProperties,
            },
          ];
        }),
      );
      if (owned === 0) {
        this.ignored('NOT_OWNER', `PRIME_ACK from ${ack.participantId} which owns nothing in ${ack.compositionId}`);
        return;
      }
      const events: OperationEvent[] = [
        this.event(
          definition.compositionId,
          operation,
          'PARTICIPANT_RESULT',
          { participantId: ack.participantId, state: ack.compositionState, result: ack.stateChangeResult },
          now,
        ),
      ];
      const order = operation.order as DefinitionOrder;
      const done = DEFINITION_ORDER_EFFECT[order].done;
      let updated: CompositionDefinition = { ...definition, elementStateMap, lastMsg: now };
      if (cancelled) {
        // Recorded only: the definition stays FAILED, from where PRIME and DEPRIME apply.
      } else if (ack.stateChangeResult === 'FAILED') {
        updated = { ...updated, stateChangeResult: 'FAILED' };
        await store.operations.update({ ...operation, state: 'FAILED', finishedAt: now });
        events.push(this.event(definition.compositionId, operation, 'FAILED', { message: ack.message ?? null }, now));
        this.metrics.operationsFinished.inc({ order, result: 'FAILED' });
      } else if (Object.values(elementStateMap).every((state) => state.state === done)) {
        updated = { ...updated, state: done, stateChangeResult: 'NO_ERROR', revisionId: this.ids.uuid() };
        await store.operations.update({ ...operation, state: 'COMPLETED', finishedAt: now });
        const info = this.templates.readDefinition(definition);
        await store.outbox.add([
          toOutbox(definitionSyncMessage(this.ids.uuid(), new Date(now).toISOString(), updated, info), this.topics),
        ]);
        events.push(this.event(definition.compositionId, operation, 'COMPLETED', { state: done }, now));
        this.metrics.operationsFinished.inc({ order, result: 'COMPLETED' });
        this.metrics.operationSeconds.observe({ order }, (now - operation.startedAt) / 1000);
      }
      await store.definitions.update(updated, found.version);
      await store.events.append(events);
    });
  }

  /**
   * Flags operations past their deadline as TIMEOUT (ONAP keeps the transitional state; a late
   * success still completes). Each target is locked before its operation, in the order an ACK takes
   * them, so a timeout never deadlocks with an ACK (which would lose the ACK); the operation is read
   * again under that lock, so of several replicas only one flags it.
   */
  async timeOutOverdue(limit = 100): Promise<number> {
    return this.unitOfWork.transaction(async (store) => {
      const now = this.clock.now();
      let flagged = 0;
      for (const candidate of await store.operations.findOverdue(now, limit)) {
        const instance =
          candidate.targetKind === 'INSTANCE' ? await store.instances.findForUpdate(candidate.targetId) : null;
        const definition =
          candidate.targetKind === 'DEFINITION' ? await store.definitions.findForUpdate(candidate.targetId) : null;
        const operation = await store.operations.find(candidate.operationId);
        if (!operation || operation.state !== 'RUNNING' || operation.timedOut || operation.deadlineAt >= now) {
          continue;
        }
        flagged += 1;
        await store.operations.update({ ...operation, timedOut: true });
        await store.events.append([this.event(operation.targetId, operation, 'TIMEOUT', {}, now)]);
        this.metrics.operationsFinished.inc({ order: operation.order, result: 'TIMEOUT' });
        if (instance && instance.value.stateChangeResult === 'NO_ERROR') {
          const timedOut = { ...instance.value, stateChangeResult: 'TIMEOUT' as const, lastMsg: now };
          await store.instances.update(timedOut, instance.version);
          const composition = await store.definitions.find(timedOut.compositionId);
          if (composition) {
            await store.outbox.add([
              toOutbox(
                instanceSyncMessage(this.ids.uuid(), new Date(now).toISOString(), timedOut, composition.value, false),
                this.topics,
              ),
            ]);
          }
        }
        if (definition && definition.value.stateChangeResult === 'NO_ERROR') {
          await store.definitions.update(
            { ...definition.value, stateChangeResult: 'TIMEOUT', lastMsg: now },
            definition.version,
          );
        }
      }
      return flagged;
    });
  }

  private async complete(
    store: Store,
    instance: AutomationComposition,
    version: number,
    definition: CompositionDefinition,
    operation: Operation,
    events: OperationEvent[],
    now: number,
    context: OrderContext = {},
  ): Promise<void> {
    const done = completedStateOf(instance) ?? instance;
    const migrated = operation.order === 'MIGRATE';
    const reverted = operation.order === 'MIGRATION_REVERT';
    // After a migration or its rollback: NEW elements are plain elements, REMOVED ones are gone (ONAP §2.5).
    const elements =
      migrated || reverted
        ? Object.fromEntries(
            Object.entries(instance.elements)
              .filter(([, element]) => element.migrationState !== 'REMOVED')
              .map(([id, element]): [string, InstanceElement] => [id, { ...element, migrationState: 'DEFAULT' }]),
          )
        : instance.elements;
    const finalDefinition = migrated && context.other ? context.other.definition : definition;
    const completed: AutomationComposition = {
      ...instance,
      compositionId: migrated ? (instance.compositionTargetId ?? instance.compositionId) : instance.compositionId,
      compositionTargetId: migrated || reverted ? null : instance.compositionTargetId,
      elements,
      deployState: done.deployState,
      lockState: done.lockState,
      subState: done.subState,
      stateChangeResult: 'NO_ERROR',
      phase: null,
      precheck: null,
      revisionId: this.ids.uuid(),
      lastMsg: now,
    };
    const deleted = completed.deployState === 'DELETED';
    if (deleted) {
      await store.instances.delete(instance.instanceId, version);
    } else {
      await store.instances.update(completed, version);
    }
    await store.operations.update({ ...operation, state: 'COMPLETED', finishedAt: now });
    await store.outbox.add([
      toOutbox(
        instanceSyncMessage(this.ids.uuid(), new Date(now).toISOString(), completed, finalDefinition, deleted, [
          ...(migrated || reverted ? [definition] : []),
          ...(context.other ? [context.other.definition] : []),
        ]),
        this.topics,
      ),
    ]);
    events.push(
      this.event(
        instance.instanceId,
        operation,
        'COMPLETED',
        { deployState: completed.deployState, lockState: completed.lockState },
        now,
      ),
    );
    await store.events.append(events);
    this.metrics.operationsFinished.inc({ order: operation.order, result: 'COMPLETED' });
    this.metrics.operationSeconds.observe({ order: operation.order }, (now - operation.startedAt) / 1000);
  }

  /** Closes the open phase and opens the next one with the elements ready in it. */
  private async advancePhase(
    store: Store,
    updated: AutomationComposition,
    version: number,
    definition: CompositionDefinition,
    info: CompositionTemplateInfo,
    context: OrderContext,
    operation: Operation,
    next: { phase: number; events: OperationEvent[]; now: number },
  ): Promise<void> {
    const { phase, events, now } = next;
    const order = operation.order as InstanceOrder;
    const startPhaseOf = this.startPhaseLookup(info, order, context);
    const waits = this.dependencyWaitsOf(info, order, updated.elements);
    events.push(this.event(updated.instanceId, operation, 'PHASE_COMPLETED', { phase: operation.phase }, now));
    const advanced = { ...updated, phase };
    await store.instances.update(advanced, version);
    // ONAP restarts the clock of an operation at every phase and stage.
    const moved: Operation = {
      ...operation,
      phase,
      deadlineAt: phaseDeadline(advanced, now, this.config.maxOperationWaitMs),
      control: { ...operation.control, progressAt: now, resent: 0 },
    };
    await store.operations.update(moved);
    await this.sendPhase(store, advanced, definition, info, context, moved, phase, false, events, now, {
      describe: describedAtPhaseStart(advanced.elements, phase, startPhaseOf, waits),
    });
  }

  private async sendPhase(
    store: Store,
    instance: AutomationComposition,
    definition: CompositionDefinition,
    info: CompositionTemplateInfo,
    context: OrderContext,
    operation: Operation,
    phase: number,
    first: boolean,
    events: OperationEvent[],
    now: number,
    options: {
      describe?: ReadonlySet<string>;
      event?: 'PHASE_STARTED' | 'ELEMENTS_DISPATCHED' | 'RETRY_STARTED';
      /** A hand-over: the message goes out again under its original id, so a participant never acts twice. */
      resentMessageId?: string;
    } = {},
  ): Promise<void> {
    const { describe, resentMessageId } = options;
    const messageId = resentMessageId ?? this.ids.uuid();
    if (resentMessageId === undefined) {
      await store.operations.recordMessage(messageId, operation.operationId, phase);
    }
    const message = phaseMessage({
      messageId,
      timestamp: new Date(now).toISOString(),
      order: operation.order as InstanceOrder,
      instance,
      definition,
      info,
      phase,
      firstPhase: first,
      ...context,
      ...(describe ? { describe } : {}),
    });
    await store.outbox.add([toOutbox(message, this.topics)]);
    const event = resentMessageId === undefined ? (options.event ?? 'PHASE_STARTED') : 'PHASE_RESENT';
    const detail: Record<string, unknown> = { phase, messageId };
    if (describe) {
      // Which elements of the open phase this message set going (dependsOn dispatch order in the history).
      const startPhaseOf = this.startPhaseLookup(info, operation.order as InstanceOrder, context);
      detail['elementIds'] = Object.values(instance.elements)
        .filter((element) => describe.has(element.id) && startPhaseOf(element) === phase)
        .map((element) => element.id);
    }
    events.push(this.event(instance.instanceId, operation, event, detail, now));
  }

  /**
   * Some replicas of a participant are silent (OFF_LINE, or they did not answer a STATUS request): the
   * work they took may be lost with them (their consumer committed the order's offset when they took it).
   * Each open phase message whose taker is silent (`needsHandOver`) is sent again with its original
   * messageId, to that participant only and describing only its unfinished elements: a replica that
   * already took it just repeats its ACKs, another one does the work, and nothing runs twice.
   */
  async handOverLostWork(participantId: string, isSilent: (replica: ParticipantReplica) => boolean): Promise<number> {
    return this.unitOfWork.transaction(async (store) => {
      const participant = await store.participants.find(participantId);
      const silent = new Set(
        Object.values(participant?.replicas ?? {})
          .filter(isSilent)
          .map((replica) => replica.replicaId),
      );
      if (silent.size === 0) {
        return 0;
      }
      const workers = await store.operations.workers([...silent]);
      return this.resendOpenPhaseMessages(store, participantId, (answeredBy) =>
        needsHandOver({ answeredBy, silent, workers }),
      );
    });
  }

  /**
   * The embedded default restarted: its in-process bus lost every message it held, and the replicas of the
   * earlier run died with their work. Every open phase message of these participants goes out again under
   * its original messageId, describing only unfinished elements.
   */
  async resendAfterRestart(participantIds: readonly string[]): Promise<number> {
    let resent = 0;
    for (const participantId of participantIds) {
      resent += await this.unitOfWork.transaction((store) =>
        this.resendOpenPhaseMessages(store, participantId, () => true),
      );
    }
    return resent;
  }

  /** Sends again, for one participant, the open phase messages `shouldResend` picks by who answered them. */
  private async resendOpenPhaseMessages(
    store: Store,
    participantId: string,
    shouldResend: (answeredBy: string[]) => boolean,
  ): Promise<number> {
    const now = this.clock.now();
    let resent = 0;
    for (const listed of await store.instances.list({ participantId })) {
      const unfinishedHere = Object.values(listed.elements).some(
        (element) => element.participantId === participantId && isElementTransitional(element),
      );
      const operation = unfinishedHere ? await store.operations.findRunning(listed.instanceId) : null;
      // A precheck's target lives only in its messages; it is re-ordered by the user after a TIMEOUT.
      // A paused operation dispatches nothing; its resume sends what is due.
      if (!operation || operation.order === 'MIGRATE_PRECHECK' || operation.control.pausedAt !== null) {
        continue;
      }
      const found = await store.instances.findForUpdate(listed.instanceId);
      const definition = found ? await store.definitions.find(found.value.compositionId) : null;
      if (!found || !definition) {
        continue;
      }
      const events: OperationEvent[] = [];
      await this.resendShare(store, found.value, definition.value, operation, participantId, shouldResend, events, now);
      if (events.length > 0) {
        // The replica that takes the work over starts it now: the phase's clock restarts.
        await store.operations.update({
          ...operation,
          deadlineAt: phaseDeadline(found.value, now, this.config.maxOperationWaitMs),
        });
        await store.events.append(events);
        resent += events.length;
      }
    }
    return resent;
  }

  /**
   * Queues again, under their original messageIds, the open phase messages of one participant's share of an
   * instance, each describing only that participant's unfinished elements it had set going. Returns the
   * elements described; the PHASE_RESENT events go to `events`.
   */
  private async resendShare(
    store: Store,
    instance: AutomationComposition,
    definition: CompositionDefinition,
    operation: Operation,
    participantId: string,
    shouldResend: (answeredBy: string[]) => boolean,
    events: OperationEvent[],
    now: number,
  ): Promise<string[]> {
    const order = operation.order as InstanceOrder;
    const info = this.templates.readDefinition(definition);
    const context = await this.contextOf(store, instance, order, {});
    const phase = operation.phase ?? 0;
    const startPhaseOf = this.startPhaseLookup(info, order, context);
    const mine = elementsInPhase(instance.elements, phase, startPhaseOf).filter(
      (element) => element.participantId === participantId,
    );
    if (mine.length === 0) {
      return [];
    }
    // The participant's share only: other participants' replicas are not concerned by this loss.
    const share: AutomationComposition = {
      ...instance,
      elements: Object.fromEntries(
        Object.entries(instance.elements).filter(([, element]) => element.participantId === participantId),
      ),
    };
    // dependsOn: a phase may have gone out in several messages; each is resent for the elements it set going.
    const ready = describedAtPhaseStart(
      share.elements,
      phase,
      startPhaseOf,
      this.dependencyWaitsOf(info, order, instance.elements),
    );
    const dispatchedBy = await this.elementsDispatchedBy(store, instance.instanceId, operation.operationId);
    const described = new Set<string>();
    for (const message of await store.operations.phaseMessages(operation.operationId, operation.phase)) {
      const answeredBy = message.answeredBy
        .filter((answer) => answer.participantId === participantId)
        .map((answer) => answer.replicaId);
      if (!shouldResend(answeredBy)) {
        continue;
      }
      const covered = dispatchedBy.get(message.messageId);
      const describe = new Set(
        [...ready].filter(
          (id) => covered === undefined || covered.has(id) || startPhaseOf(share.elements[id]!) !== phase,
        ),
      );
      const inPhase = [...describe].filter((id) => startPhaseOf(share.elements[id]!) === phase);
      if (inPhase.length === 0) {
        continue;
      }
      inPhase.forEach((id) => described.add(id));
      await this.sendPhase(store, share, definition, info, context, operation, phase, false, events, now, {
        describe,
        resentMessageId: message.messageId,
      });
    }
    return [...described];
  }

  /**
   * Probes a new replica's registration started: the participant's replicas that have not been heard
   * from since are silent, and their work is handed over at once (not after MAX_STATUS_WAIT).
   */
  async handOverAfterProbes(minimumAgeMs: number): Promise<number> {
    const probes = await this.unitOfWork.transaction((store) =>
      store.operations.takeProbes(this.clock.now() - minimumAgeMs),
    );
    let resent = 0;
    for (const { participantId, probedAt } of probes) {
      resent += await this.handOverLostWork(
        participantId,
        (replica) => replica.participantState === 'OFF_LINE' || replica.lastMsg < probedAt,
      );
    }
    return resent;
  }

  // ---- Control of running work (issue 12): the rules are in libs/domain/src/control ----

  /**
   * Cancels the running operation of an instance inside the caller's transaction: nothing new is dispatched,
   * answers in flight are still recorded, and the instance keeps its transitional state with FAILED (what
   * ONAP's tables accept a retry or the way back from). With `rollback`, the reverse order then runs for the
   * elements the cancelled operation completed or had in flight.
   */
  async cancelInstance(
    store: Store,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    rollback: boolean,
  ): Promise<AutomationComposition> {
    const now = this.clock.now();
    const instance = found.value;
    const operation = await store.operations.findRunning(instance.instanceId);
    assertSomethingRuns('cancel', instance, operation !== null);
    const running = operation!;
    const order = running.order as InstanceOrder;
    const plan = rollback
      ? planCancelRollback(instance, order, await this.dispatchedElements(store, instance.instanceId, running))
      : null;
    if (rollback && plan === null) {
      throw new DomainError(
        'ORDER_NOT_ALLOWED',
        `Cannot cancel ${order} with rollback=true: ${order} has no reverse order; cancel without rollback ` +
          '(the instance is then left FAILED, from where ONAP orders apply)',
        { order, rollback },
      );
    }
    await store.operations.update({ ...running, state: 'CANCELLED', finishedAt: now });
    const cancelled = cancelledInstance(instance, now);
    await store.instances.update(cancelled, found.version);
    await store.events.append([
      this.event(instance.instanceId, running, 'CANCELLED', { order, phase: running.phase, rollback }, now),
    ]);
    this.metrics.cancels.inc({ target: 'INSTANCE', rollback: String(rollback) });
    this.metrics.operationsFinished.inc({ order, result: 'CANCELLED' });
    if (plan === null) {
      await store.outbox.add([
        toOutbox(
          instanceSyncMessage(this.ids.uuid(), new Date(now).toISOString(), cancelled, definition, false),
          this.topics,
        ),
      ]);
      return cancelled;
    }
    return this.startInstanceOrder(store, { value: cancelled, version: found.version + 1 }, definition, plan.order, {
      elements: plan.elements,
    });
  }

  /** Cancels a running prime or deprime: the definition is left PRIMING/DEPRIMING with FAILED (ONAP's retry state). */
  async cancelDefinition(store: Store, found: Versioned<CompositionDefinition>): Promise<CompositionDefinition> {
    const now = this.clock.now();
    const definition = found.value;
    const operation = await store.operations.findRunning(definition.compositionId);
    assertDefinitionRuns('cancel', definition, operation !== null);
    const running = operation!;
    await store.operations.update({ ...running, state: 'CANCELLED', finishedAt: now });
    const cancelled: CompositionDefinition = { ...definition, stateChangeResult: 'FAILED', lastMsg: now };
    await store.definitions.update(cancelled, found.version);
    await store.events.append([
      this.event(definition.compositionId, running, 'CANCELLED', { order: running.order }, now),
    ]);
    this.metrics.cancels.inc({ target: 'DEFINITION', rollback: 'false' });
    this.metrics.operationsFinished.inc({ order: running.order, result: 'CANCELLED' });
    return cancelled;
  }

  /** Pauses the running operation: answers are still recorded, nothing new leaves, its deadlines stop. */
  async pauseInstance(store: Store, found: Versioned<AutomationComposition>): Promise<Operation> {
    const now = this.clock.now();
    const operation = await store.operations.findRunning(found.value.instanceId);
    assertSomethingRuns('pause', found.value, operation !== null);
    const running = operation!;
    if (running.control.pausedAt !== null) {
      return running;
    }
    const paused: Operation = { ...running, control: { ...running.control, pausedAt: now } };
    await store.operations.update(paused);
    await store.events.append([this.event(found.value.instanceId, running, 'PAUSED', { phase: running.phase }, now)]);
    this.metrics.pauses.inc({ action: 'pause' });
    return paused;
  }

  /**
   * Resumes a paused operation exactly where it stopped: its deadline moves by the time spent paused, and what
   * the answers recorded meanwhile made due (the next phase, elements whose dependencies are done, completion)
   * goes out now.
   */
  async resumeInstance(
    store: Store,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
  ): Promise<void> {
    const now = this.clock.now();
    const instance = found.value;
    const operation = await store.operations.findRunning(instance.instanceId);
    assertSomethingRuns('resume', instance, operation !== null);
    const running = operation!;
    if (running.control.pausedAt === null) {
      throw new DomainError(
        'NOTHING_RUNNING',
        `Cannot resume the instance: its ${running.order} is running, not paused; allowed now: pause, cancel`,
        { action: 'resume', order: running.order, allowedNow: ['pause', 'cancel'] },
      );
    }
    const shiftMs = Math.max(0, now - running.control.pausedAt);
    const resumed: Operation = {
      ...running,
      deadlineAt: running.deadlineAt + shiftMs,
      control: {
        ...running.control,
        pausedAt: null,
        pausedMs: running.control.pausedMs + shiftMs,
        progressAt: now,
        retryAt: running.control.retryAt === null ? null : running.control.retryAt + shiftMs,
      },
    };
    await store.operations.update(resumed);
    this.metrics.pauses.inc({ action: 'resume' });
    const events: OperationEvent[] = [
      this.event(instance.instanceId, running, 'RESUMED', { phase: running.phase, pausedMs: shiftMs }, now),
    ];
    const order = running.order as InstanceOrder;
    const info = this.templates.readDefinition(definition);
    const context = await this.contextOf(store, instance, order, {});
    const startPhaseOf = this.startPhaseLookup(info, order, context);
    const openPhase = running.phase ?? 0;
    const decision = decideNextPhase(order, openPhase, instance.elements, startPhaseOf);
    if (decision.kind === 'COMPLETE') {
      events.push(this.event(instance.instanceId, running, 'PHASE_COMPLETED', { phase: running.phase }, now));
      await this.complete(store, instance, found.version, definition, resumed, events, now, context);
      return;
    }
    if (decision.kind === 'ADVANCE') {
      await this.advancePhase(store, instance, found.version, definition, info, context, resumed, {
        phase: decision.phase,
        events,
        now,
      });
      await store.events.append(events);
      return;
    }
    // WAIT: the elements of the open phase that became ready while paused and were never dispatched.
    const waits = this.dependencyWaitsOf(info, order, instance.elements);
    const dispatched = await this.dispatchedElements(store, instance.instanceId, running);
    const ready = describedAtPhaseStart(instance.elements, openPhase, startPhaseOf, waits);
    const due = [...ready].filter(
      (id) =>
        !dispatched.has(id) &&
        instance.elements[id] !== undefined &&
        isElementTransitional(instance.elements[id]) &&
        startPhaseOf(instance.elements[id]) === openPhase,
    );
    if (due.length > 0) {
      await this.sendPhase(store, instance, definition, info, context, resumed, openPhase, false, events, now, {
        describe: new Set(due),
        event: 'ELEMENTS_DISPATCHED',
      });
    }
    await store.events.append(events);
  }

  /**
   * A FAILED element result under a retry policy (instance metadata over the definition's, Argo CD's shape):
   * instead of failing the operation, the failed elements go back into transition and are sent again, alone,
   * after the backoff. False when no retry applies (no policy, limit reached, an order that is not phased).
   */
  private async scheduleRetry(
    store: Store,
    version: number,
    updated: AutomationComposition,
    info: CompositionTemplateInfo,
    operation: Operation,
    failedElementIds: readonly string[],
    events: OperationEvent[],
    now: number,
  ): Promise<boolean> {
    const order = operation.order as InstanceOrder;
    if (!PHASED_ORDERS.has(order) || failedElementIds.length === 0) {
      return false;
    }
    const policy = effectiveRetryPolicy(
      parseRetryPolicy(updated.metadata?.['retryPolicy'], 'metadata.retryPolicy').policy,
      parseRetryPolicy(info.metadata['retryPolicy'], 'metadata.retryPolicy').policy,
    );
    const pending = operation.control.retryAt;
    // Failures while a retry is already scheduled join it: one attempt covers every element failed meanwhile.
    const decision =
      pending !== null
        ? { kind: 'RETRY' as const, attempt: operation.control.retried, delayMs: pending - now, dueAt: pending }
        : decideRetry(policy, operation.control.retried, now);
    if (decision.kind === 'GIVE_UP') {
      return false;
    }
    const during = transitionalStateFor(order);
    const elements = { ...updated.elements };
    for (const elementId of failedElementIds) {
      elements[elementId] = { ...elements[elementId]!, ...during };
    }
    await store.instances.update({ ...updated, elements }, version);
    await store.operations.update({
      ...operation,
      control: { ...operation.control, retried: decision.attempt, retryAt: decision.dueAt },
    });
    events.push(
      this.event(
        updated.instanceId,
        operation,
        'RETRY_SCHEDULED',
        {
          attempt: decision.attempt,
          delayMs: decision.delayMs,
          elementIds: [...failedElementIds],
          message: updated.elements[failedElementIds[0]!]?.message ?? null,
        },
        now,
      ),
    );
    await store.events.append(events);
    if (pending === null) {
      this.metrics.retries.inc({ order });
    }
    return true;
  }

  /**
   * One supervision pass over the running instance operations: a due retry leaves; an open phase silent for
   * maxWaitMs is sent again (original messageIds, unfinished elements only, backoff doubling, up to
   * maxRetryCount); elements silent past their no-progress timeout are reported. Paused operations are left alone.
   */
  async superviseRunning(limit = 100): Promise<SupervisionOutcome> {
    const outcome: SupervisionOutcome = { resent: 0, retried: 0, stuck: 0 };
    const running = await this.unitOfWork.read((store) => store.operations.listRunning(limit));
    for (const candidate of running) {
      if (candidate.targetKind !== 'INSTANCE' || candidate.control.pausedAt !== null || candidate.timedOut) {
        continue;
      }
      await this.unitOfWork.transaction(async (store) => {
        const found = await store.instances.findForUpdate(candidate.targetId);
        const operation = await store.operations.find(candidate.operationId);
        if (!found || !operation || operation.state !== 'RUNNING' || operation.control.pausedAt !== null) {
          return;
        }
        if (operation.timedOut || operation.order === 'MIGRATE_PRECHECK') {
          return;
        }
        const definition = await store.definitions.find(found.value.compositionId);
        if (!definition) {
          return;
        }
        const now = this.clock.now();
        if (operation.control.retryAt !== null) {
          if (operation.control.retryAt <= now) {
            await this.startRetry(store, found.value, definition.value, operation, now);
            outcome.retried += 1;
          }
          return;
        }
        outcome.resent += await this.resendIfSilent(store, found.value, definition.value, operation, now);
        outcome.stuck += await this.reportStuck(store, found.value, operation, now);
      });
    }
    return outcome;
  }

  private async startRetry(
    store: Store,
    instance: AutomationComposition,
    definition: CompositionDefinition,
    operation: Operation,
    now: number,
  ): Promise<void> {
    const order = operation.order as InstanceOrder;
    const info = this.templates.readDefinition(definition);
    const context = await this.contextOf(store, instance, order, {});
    const retrying = new Set<string>();
    for (const event of await store.events.list(instance.instanceId, 10000)) {
      const { attempt, elementIds } = event.detail;
      if (
        event.operationId === operation.operationId &&
        event.event === 'RETRY_SCHEDULED' &&
        attempt === operation.control.retried &&
        Array.isArray(elementIds)
      ) {
        elementIds.filter((id): id is string => typeof id === 'string').forEach((id) => retrying.add(id));
      }
    }
    const startPhaseOf = this.startPhaseLookup(info, order, context);
    const phase = operation.phase ?? 0;
    const again = [...retrying].filter(
      (id) => instance.elements[id] !== undefined && isElementTransitional(instance.elements[id]),
    );
    // Elements of later phases are described as every phase message describes them (the participant's cache).
    const later = Object.values(instance.elements)
      .filter((element) => isElementTransitional(element) && startPhaseOf(element) !== phase)
      .map((element) => element.id);
    const describe = new Set([...again, ...later]);
    // The attempt starts now: the phase's clock restarts, as for any phase ONAP opens.
    const moved: Operation = {
      ...operation,
      deadlineAt: phaseDeadline(instance, now, this.config.maxOperationWaitMs),
      control: { ...operation.control, retryAt: null, progressAt: now, resent: 0 },
    };
    await store.operations.update(moved);
    const events: OperationEvent[] = [];
    if (describe.size > 0) {
      await this.sendPhase(
        store,
        instance,
        definition,
        info,
        context,
        moved,
        operation.phase ?? 0,
        false,
        events,
        now,
        {
          describe,
          event: 'RETRY_STARTED',
        },
      );
      const started = events[events.length - 1];
      if (started) {
        events[events.length - 1] = { ...started, detail: { ...started.detail, attempt: operation.control.retried } };
      }
    }
    await store.events.append(events);
  }

  private async resendIfSilent(
    store: Store,
    instance: AutomationComposition,
    definition: CompositionDefinition,
    operation: Operation,
    now: number,
  ): Promise<number> {
    const info = this.templates.readDefinition(definition);
    const { settings } = resendSettingsOf(info.metadata, {
      maxWaitMs: this.config.maxWaitMs,
      maxRetryCount: this.config.maxRetryCount,
    });
    // An answer since the last resend is progress: the count of resends starts again.
    const answered = instance.lastMsg > operation.control.progressAt;
    const lastProgressAt = Math.max(operation.control.progressAt, instance.lastMsg);
    const resentSoFar = answered ? 0 : operation.control.resent;
    const decision = decideResend(settings, { lastProgressAt, resentSoFar }, now);
    if (decision.kind !== 'RESEND') {
      return 0;
    }
    const order = operation.order as InstanceOrder;
    const context = await this.contextOf(store, instance, order, {});
    const startPhaseOf = this.startPhaseLookup(info, order, context);
    const silent = elementsInPhase(instance.elements, operation.phase ?? 0, startPhaseOf);
    const participants = [...new Set(silent.map((element) => element.participantId))].filter(
      (id): id is string => id !== null,
    );
    const events: OperationEvent[] = [];
    const described: string[] = [];
    for (const participantId of participants) {
      described.push(
        ...(await this.resendShare(store, instance, definition, operation, participantId, () => true, events, now)),
      );
    }
    // The deadline stays: after the last resend, the operation's usual TIMEOUT.
    await store.operations.update({
      ...operation,
      control: { ...operation.control, resent: decision.attempt, progressAt: now },
    });
    events.push(
      this.event(
        instance.instanceId,
        operation,
        'RESENT',
        { phase: operation.phase, attempt: decision.attempt, elementIds: described, nextDueAt: decision.nextDueAt },
        now,
      ),
    );
    await store.events.append(events);
    this.metrics.resends.inc({ order });
    return 1;
  }

  /** Reports (once per silence) the elements of the open phase silent past their no-progress timeout. */
  private async reportStuck(
    store: Store,
    instance: AutomationComposition,
    operation: Operation,
    now: number,
  ): Promise<number> {
    const lastProgressAt = Math.max(operation.control.progressAt, instance.lastMsg);
    const candidates = Object.values(instance.elements)
      .filter(isElementTransitional)
      .map((element) => ({
        elementId: element.id,
        lastProgressAt,
        timeoutMs: noProgressTimeoutOf(element.properties, this.config.noProgressTimeoutMs),
        reported: false,
      }))
      .filter((element) => element.timeoutMs !== null);
    const stuck = stuckElements(candidates, now, this.config.noProgressTimeoutMs);
    if (stuck.length === 0) {
      return 0;
    }
    const reported = new Set<string>();
    for (const event of await store.events.list(instance.instanceId, 10000)) {
      const { elementIds } = event.detail;
      if (
        event.operationId === operation.operationId &&
        event.event === 'NO_PROGRESS' &&
        event.at >= lastProgressAt &&
        Array.isArray(elementIds)
      ) {
        elementIds.filter((id): id is string => typeof id === 'string').forEach((id) => reported.add(id));
      }
    }
    const fresh = stuck.filter((element) => !reported.has(element.elementId));
    if (fresh.length === 0) {
      return 0;
    }
    await store.events.append([
      this.event(
        instance.instanceId,
        operation,
        'NO_PROGRESS',
        {
          phase: operation.phase,
          elementIds: fresh.map((element) => element.elementId),
          silentForMs: Math.max(...fresh.map((element) => element.silentForMs)),
        },
        now,
      ),
    ]);
    this.metrics.stuck.inc(fresh.length);
    return fresh.length;
  }

  /** Every element a phase message of the operation set going (from the history's dispatch events). */
  private async dispatchedElements(store: Store, instanceId: string, operation: Operation): Promise<Set<string>> {
    const dispatched = new Set<string>();
    for (const ids of (await this.elementsDispatchedBy(store, instanceId, operation.operationId)).values()) {
      ids.forEach((id) => dispatched.add(id));
    }
    return dispatched;
  }

  /** The snapshot, the other composition and the precheck plan an order's messages need. */
  private async contextOf(
    store: Store,
    instance: AutomationComposition,
    order: InstanceOrder,
    extras: OrderExtras,
  ): Promise<OrderContext> {
    const side = async (compositionId: string | null): Promise<CompositionSide | undefined> => {
      if (compositionId === null) {
        return undefined;
      }
      const found = await store.definitions.find(compositionId);
      return found ? { definition: found.value, info: this.templates.readDefinition(found.value) } : undefined;
    };
    switch (order) {
      case 'UPDATE':
      case 'UPDATE_REVERT': {
        const snapshot = await store.rollbacks.find(instance.instanceId);
        return snapshot ? { before: snapshot.elements } : {};
      }
      case 'MIGRATE':
      case 'MIGRATION_REVERT': {
        const snapshot = await store.rollbacks.find(instance.instanceId);
        const other = extras.target
          ? { definition: extras.target, info: this.templates.readDefinition(extras.target) }
          : await side(instance.compositionTargetId);
        return { ...(other ? { other } : {}), ...(snapshot ? { before: snapshot.elements } : {}) };
      }
      case 'MIGRATE_PRECHECK': {
        const other = extras.target
          ? { definition: extras.target, info: this.templates.readDefinition(extras.target) }
          : undefined;
        return {
          ...(other ? { other } : {}),
          before: instance.elements,
          ...(extras.planned ? { planned: extras.planned } : {}),
        };
      }
      default:
        return {};
    }
  }

  /**
   * The phase of an element in an order: its start phase for deploy-like orders, its stage for migrate,
   * migration rollback and prepare (ONAP's StageScanner), 0 for the single-message orders.
   */
  private startPhaseLookup(info: CompositionTemplateInfo, order: InstanceOrder, context: OrderContext): StartPhaseOf {
    const key = (name: string, version: string): string => `${name}|${version}`;
    if (PHASED_ORDERS.has(order)) {
      const phases = new Map(info.elements.map((element) => [key(element.name, element.version), element.startPhase]));
      return (element) => phases.get(key(element.definition.name, element.definition.version)) ?? 0;
    }
    if (!isStagedOrder(order)) {
      return () => 0;
    }
    const stagesIn = (side: CompositionTemplateInfo | undefined): Map<string, StageSets> =>
      new Map((side?.elements ?? []).map((element) => [key(element.name, element.version), element.stage]));
    const own = stagesIn(info);
    const other = stagesIn(context.other?.info);
    // Where an element's stages come from: the composition it is going to; a REMOVED one's from the one it leaves.
    const [going, leaving] = order === 'MIGRATE' ? [other, own] : [own, other];
    const fallback: StageSets = { prepare: [0], migrate: [0] };
    return stagePhaseOf(order, (element) => {
      const id = key(element.definition.name, element.definition.version);
      const [first, second] = element.migrationState === 'REMOVED' ? [leaving, going] : [going, leaving];
      return first.get(id) ?? second.get(id) ?? fallback;
    });
  }

  /** Per phase message of an operation, the elements of its phase it set going (recorded in the history). */
  private async elementsDispatchedBy(
    store: Store,
    instanceId: string,
    operationId: string,
  ): Promise<Map<string, Set<string>>> {
    const dispatched = new Map<string, Set<string>>();
    for (const event of await store.events.list(instanceId, 10000)) {
      const { messageId, elementIds } = event.detail;
      if (event.operationId === operationId && typeof messageId === 'string' && Array.isArray(elementIds)) {
        dispatched.set(messageId, new Set(elementIds.filter((id): id is string => typeof id === 'string')));
      }
    }
    return dispatched;
  }

  /** Who waits for whom in this order, from the node templates' `dependsOn` (see dependencyWaits). */
  private dependencyWaitsOf(
    info: CompositionTemplateInfo,
    order: InstanceOrder,
    elements: Readonly<Record<string, InstanceElement>>,
  ): ReadonlyMap<string, readonly string[]> {
    const dependsOn = new Map(info.elements.map((element) => [element.name, element.dependsOn]));
    return dependencyWaits(order, elements, (name) => dependsOn.get(name) ?? []);
  }

  private event(
    subjectId: string,
    operation: Operation,
    event: string,
    detail: Record<string, unknown>,
    at: number,
  ): OperationEvent {
    return { subjectId, operationId: operation.operationId, event, detail, at };
  }

  private ignored(reason: string, message: string): void {
    this.metrics.messagesIgnored.inc({ reason });
    this.logger.debug(message);
  }
}

export type { OutboxRecord };
