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
  IdGenerator,
  UnitOfWork,
  applyAck,
  cascadeOrder,
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
    const elements = cascadeOrder(instance, order);
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
      // A FAILED operation still records the results of its other elements (as ONAP does); it never advances.
      if (!operation || (operation.state !== 'RUNNING' && operation.state !== 'FAILED')) {
        this.ignored('STALE', `ACK for instance ${instanceId} answers an operation that is no longer running`);
        return;
      }
      // ...but only while no newer order (a retry, a rollback) runs: then its late answers are stale.
      if (operation.state === 'FAILED') {
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
      switch (decision.kind) {
        case 'WAIT': {
          await store.instances.update(updated, found.version);
          // dependsOn: what this ACK completed may unblock elements of the open phase; they go out at once.
          const openPhase = operation.phase ?? phase;
          const unblocked = newlyReady(instance.elements, application.elements, openPhase, startPhaseOf, waits);
          if (unblocked.length > 0) {
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
          events.push(this.event(instanceId, operation, 'PHASE_COMPLETED', { phase: operation.phase }, now));
          const advanced = { ...updated, phase: decision.phase };
          await store.instances.update(advanced, found.version);
          // ONAP restarts the clock of an operation at every phase and stage.
          const moved = {
            ...operation,
            phase: decision.phase,
            deadlineAt: phaseDeadline(advanced, now, this.config.maxOperationWaitMs),
          };
          await store.operations.update(moved);
          await this.sendPhase(
            store,
            advanced,
            definition.value,
            info,
            context,
            moved,
            decision.phase,
            false,
            events,
            now,
            { describe: describedAtPhaseStart(advanced.elements, decision.phase, startPhaseOf, waits) },
          );
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
      if (!operation || operation.state !== 'RUNNING' || operation.targetId !== ack.compositionId) {
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
      if (ack.stateChangeResult === 'FAILED') {
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
      event?: 'PHASE_STARTED' | 'ELEMENTS_DISPATCHED';
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
      if (!operation || operation.order === 'MIGRATE_PRECHECK') {
        continue;
      }
      const found = await store.instances.findForUpdate(listed.instanceId);
      const definition = found ? await store.definitions.find(found.value.compositionId) : null;
      if (!found || !definition) {
        continue;
      }
      const order = operation.order as InstanceOrder;
      const info = this.templates.readDefinition(definition.value);
      const context = await this.contextOf(store, found.value, order, {});
      const phase = operation.phase ?? 0;
      const startPhaseOf = this.startPhaseLookup(info, order, context);
      const mine = elementsInPhase(found.value.elements, phase, startPhaseOf).filter(
        (element) => element.participantId === participantId,
      );
      if (mine.length === 0) {
        continue;
      }
      // The participant's share only: other participants' replicas are not concerned by this loss.
      const share: AutomationComposition = {
        ...found.value,
        elements: Object.fromEntries(
          Object.entries(found.value.elements).filter(([, element]) => element.participantId === participantId),
        ),
      };
      const events: OperationEvent[] = [];
      // dependsOn: a phase may have gone out in several messages; each is resent for the elements it set going.
      const ready = describedAtPhaseStart(
        share.elements,
        phase,
        startPhaseOf,
        this.dependencyWaitsOf(info, order, found.value.elements),
      );
      const dispatchedBy = await this.elementsDispatchedBy(store, found.value.instanceId, operation.operationId);
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
        if (![...describe].some((id) => startPhaseOf(share.elements[id]!) === phase)) {
          continue;
        }
        await this.sendPhase(store, share, definition.value, info, context, operation, phase, false, events, now, {
          describe,
          resentMessageId: message.messageId,
        });
      }
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
