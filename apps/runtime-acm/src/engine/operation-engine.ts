import type { AutomationCompositionDeployAck, ParticipantPrimeAck } from '@acm/contracts';
import type {
  AutomationComposition,
  CompositionDefinition,
  DefinitionOrder,
  InstanceInput,
  InstanceOperation,
  InstanceOrder,
  ControlSettings,
  InstanceStepContext,
  LostReplicas,
  Operation,
  ParticipantReplica,
  Store,
  Versioned,
} from '@acm/domain';
import {
  Clock,
  IdGenerator,
  UnitOfWork,
  cancelDefinitionOperation,
  decideDefinition,
  decideInstance,
  effectiveRetryPolicy,
  needsSupervision,
  parseRetryPolicy,
  resendSettingsOf,
  hasUnfinishedWorkOf,
  ignore,
  operationOfAck,
  parallelismLimit,
  timeOutOperation,
} from '@acm/domain';
import { metadataTimeoutMs } from '@acm/tosca';
import { Inject, Injectable } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { EffectWriter } from './effect-writer';
import type { InstanceSide } from './effect-writer';
import { loadOrderContext, templatesOf } from './order-context';
import type { OrderContext, OrderExtras } from './order-context';
import { instanceAckOf, primeAckOf } from './participant-answers';
import { TemplateReader } from './template-reader';

export type { OrderExtras } from './order-context';

/** A participant answer the engine applies; a batch of them is applied in one transaction. */
export type EngineInput =
  | { readonly kind: 'INSTANCE_ACK'; readonly ack: AutomationCompositionDeployAck }
  | { readonly kind: 'PRIME_ACK'; readonly ack: ParticipantPrimeAck };

function asInstanceOperation(operation: Operation | null): InstanceOperation | null {
  return operation?.targetKind === 'INSTANCE' ? operation : null;
}

function targetOf(input: EngineInput): string {
  return input.kind === 'INSTANCE_ACK' ? input.ack.automationCompositionId : input.ack.compositionId;
}

/**
 * The engine's shell: lock and load → decide (the domain's `decideInstance` / `decideDefinition`) → save and turn
 * effects into rows (`EffectWriter`). It holds no rule of its own. Advancing is driven by ACKs only; supervision
 * flags timeouts and hands lost work over.
 */
@Injectable()
export class OperationEngine {
  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly unitOfWork: UnitOfWork,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly writer: EffectWriter,
  ) {}

  /** Starts an instance order inside the caller's transaction; resolves with the instance as the order left it. */
  async startInstanceOrder(
    store: Store,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    order: InstanceOrder,
    extras: OrderExtras = {},
  ): Promise<AutomationComposition> {
    const running = asInstanceOperation(await store.operations.findRunning(found.value.instanceId));
    return this.stepInstance(store, found, definition, running, { kind: 'ORDER', order }, order, extras);
  }

  /** Starts a prime or deprime inside the caller's transaction. */
  async startDefinitionOrder(store: Store, definition: CompositionDefinition, order: DefinitionOrder): Promise<void> {
    const now = this.clock.now();
    const info = this.templates.readDefinition(definition);
    const running = await store.operations.findRunning(definition.compositionId);
    const timeoutMs =
      metadataTimeoutMs(info.metadata, order === 'PRIME' ? 'primeTimeoutMs' : 'deprimeTimeoutMs') ?? null;
    const step = decideDefinition(
      definition,
      running?.targetKind === 'DEFINITION' ? running : null,
      { kind: 'ORDER', order, timeoutMs },
      now,
      this.definitionContext(),
    );
    // The caller already wrote the definition's PRIMING/DEPRIMING: the step leaves it as it is.
    await this.writer.saveDefinition(store, null, step, info, now);
  }

  /** Applies a deploy/state-change ACK; a stale or foreign one changes nothing. */
  async applyInstanceAck(ack: AutomationCompositionDeployAck): Promise<void> {
    await this.applyBatch([{ kind: 'INSTANCE_ACK', ack }]);
  }

  /** Applies a PRIME_ACK: the sender's node templates take the reported state; all done ⇒ PRIMED/COMMISSIONED. */
  async applyPrimeAck(ack: ParticipantPrimeAck): Promise<void> {
    await this.applyBatch([{ kind: 'PRIME_ACK', ack }]);
  }

  /**
   * Applies answers for many targets in one transaction. Targets are taken in the order of their ids (each in the
   * order of its answers), so two batches lock rows in the same order and never deadlock.
   */
  async applyBatch(inputs: readonly EngineInput[]): Promise<void> {
    const ordered = inputs
      .map((input, index) => ({ input, index }))
      .sort((a, b) => targetOf(a.input).localeCompare(targetOf(b.input)) || a.index - b.index);
    await this.unitOfWork.transaction(async (store) => {
      for (const { input } of ordered) {
        await (input.kind === 'INSTANCE_ACK'
          ? this.applyInstanceAckIn(store, input.ack)
          : this.applyPrimeAckIn(store, input.ack));
      }
    });
  }

  /**
   * Flags operations past their deadline as TIMEOUT. Each target is locked before its operation, in the order an
   * ACK takes them, so a timeout never deadlocks with an ACK; the operation is read again under that lock, so of
   * several replicas only one flags it.
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
        const composition = instance ? await store.definitions.find(instance.value.compositionId) : null;
        if (operation?.targetKind === 'INSTANCE' && instance && composition) {
          const step = decideInstance(
            instance.value,
            operation,
            { kind: 'TICK' },
            now,
            this.instanceContext(instance.value, composition.value, {}),
          );
          flagged += step.operations.length;
          await this.writer.saveInstance(store, instance, step, this.sideOf(composition.value, {}), now);
        } else if (operation?.targetKind === 'DEFINITION' && definition) {
          const step = decideDefinition(definition.value, operation, { kind: 'TICK' }, now, this.definitionContext());
          flagged += step.operations.length;
          await this.writer.saveDefinition(
            store,
            definition,
            step,
            this.templates.readDefinition(definition.value),
            now,
          );
        } else if (operation) {
          // The target is gone: only the operation is flagged.
          const alone = timeOutOperation(operation, now);
          if (alone) {
            flagged += 1;
            const writes = [{ operation: alone.operation, isNew: false }];
            await this.writer.saveOperations(store, operation.targetId, { ...alone, operations: writes }, now);
          }
        }
      }
      return flagged;
    });
  }

  /** Replicas of a participant are silent: the open phase messages they may have taken are handed over. */
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
      return this.handOver(store, participantId, { kind: 'SILENT', silent, workers });
    });
  }

  /** The embedded default restarted: every open phase message of these participants goes out again. */
  async resendAfterRestart(participantIds: readonly string[]): Promise<number> {
    let resent = 0;
    for (const participantId of participantIds) {
      resent += await this.unitOfWork.transaction((store) => this.handOver(store, participantId, { kind: 'ALL' }));
    }
    return resent;
  }

  /** Probes a new replica's registration started: replicas not heard from since are silent, their work handed over. */
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

  // ---- Control of running work (issue 12): inputs of the state machine, decided in the domain ----

  /**
   * Cancels the running operation of an instance inside the caller's transaction (with `rollback`, the reverse
   * order then starts); resolves with the instance as the cancel left it.
   */
  async cancelInstance(
    store: Store,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    rollback: boolean,
  ): Promise<AutomationComposition> {
    const running = asInstanceOperation(await store.operations.findRunning(found.value.instanceId));
    const dispatched = running
      ? await this.dispatchedByOperation(store, found.value.instanceId, running.operationId)
      : new Set<string>();
    const input: InstanceInput = { kind: 'CANCEL', rollback, dispatched };
    return this.stepInstance(store, found, definition, running, input, running?.order ?? null, {});
  }

  /** Pauses the running operation of an instance: nothing new is dispatched, its deadlines stop. */
  async pauseInstance(store: Store, found: Versioned<AutomationComposition>, definition: CompositionDefinition) {
    const running = asInstanceOperation(await store.operations.findRunning(found.value.instanceId));
    await this.stepInstance(store, found, definition, running, { kind: 'PAUSE' }, running?.order ?? null, {});
  }

  /** Resumes a paused operation where it stopped. */
  async resumeInstance(
    store: Store,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
  ): Promise<void> {
    const running = asInstanceOperation(await store.operations.findRunning(found.value.instanceId));
    const dispatched = running ? await this.dispatchedIn(store, running) : new Set<string>();
    const input: InstanceInput = { kind: 'RESUME', dispatched };
    await this.stepInstance(store, found, definition, running, input, running?.order ?? null, {});
  }

  /** Cancels a running prime or deprime inside the caller's transaction. */
  async cancelDefinition(store: Store, found: Versioned<CompositionDefinition>): Promise<CompositionDefinition> {
    const now = this.clock.now();
    const running = await store.operations.findRunning(found.value.compositionId);
    const step = cancelDefinitionOperation(found.value, running?.targetKind === 'DEFINITION' ? running : null, now);
    await this.writer.saveDefinition(store, found, step, this.templates.readDefinition(found.value), now);
    return step.target;
  }

  /**
   * One supervision pass over the running instance operations: due retries, resends of silent phases,
   * no-progress reports. Each operation is decided under its instance's lock, as an ACK is.
   */
  async superviseRunning(limit = 100): Promise<number> {
    const candidates = await this.unitOfWork.read((store) => store.operations.listRunning(limit));
    let acted = 0;
    for (const candidate of candidates) {
      if (candidate.targetKind !== 'INSTANCE' || candidate.control.pausedAt !== null || candidate.timedOut) {
        continue;
      }
      acted += await this.unitOfWork.transaction(async (store) => {
        const found = await store.instances.findForUpdate(candidate.targetId);
        const operation = asInstanceOperation(await store.operations.find(candidate.operationId));
        const definition = found ? await store.definitions.find(found.value.compositionId) : null;
        if (!found || !definition || operation?.state !== 'RUNNING') {
          return 0;
        }
        const now = this.clock.now();
        const info = this.templates.readDefinition(definition.value);
        if (!needsSupervision(found.value, operation, now, this.controlSettings(found.value, info.metadata))) {
          return 0;
        }
        const context = await loadOrderContext(store, this.templates, found.value, operation.order, {});
        const messages = (await store.operations.phaseMessages(operation.operationId, operation.phase)).map(
          (message) => ({
            messageId: message.messageId,
            answeredBy: message.answeredBy.map((answer) => answer.replicaId),
            covered: message.elementIds === null ? null : new Set(message.elementIds),
          }),
        );
        const history = (await store.events.list(found.value.instanceId, 10000)).filter(
          (event) => event.operationId === operation.operationId,
        );
        const idsOf = (value: unknown): string[] =>
          Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
        const retrying = history
          .filter((event) => event.event === 'RETRY_SCHEDULED' && event.detail['attempt'] === operation.control.retried)
          .flatMap((event) => idsOf(event.detail['elementIds']));
        const sinceProgress = Math.max(operation.control.progressAt, found.value.lastMsg);
        const reported = new Set(
          history
            .filter((event) => event.event === 'NO_PROGRESS' && event.at >= sinceProgress)
            .flatMap((event) => idsOf(event.detail['elementIds'])),
        );
        const input: InstanceInput = { kind: 'SUPERVISE', messages, retrying, reported };
        const step = decideInstance(
          found.value,
          operation,
          input,
          now,
          this.instanceContext(found.value, definition.value, context),
        );
        await this.writer.saveInstance(store, found, step, this.sideOf(definition.value, context), now);
        return step.effects.length > 0 ? 1 : 0;
      });
    }
    return acted;
  }

  /** Every element the messages of an operation set going, over all its phases (what a rollback reverses). */
  private async dispatchedByOperation(store: Store, instanceId: string, operationId: string): Promise<Set<string>> {
    const dispatched = new Set<string>();
    for (const event of await store.events.list(instanceId, 10000)) {
      const ids = event.detail['elementIds'];
      if (event.operationId === operationId && typeof event.detail['messageId'] === 'string' && Array.isArray(ids)) {
        ids.filter((id): id is string => typeof id === 'string').forEach((id) => dispatched.add(id));
      }
    }
    return dispatched;
  }

  /** The control settings of one instance: its retry policy over its definition's, resends, no-progress. */
  private controlSettings(
    instance: AutomationComposition,
    definitionMetadata: Record<string, unknown>,
  ): ControlSettings {
    const policyOf = (metadata: Readonly<Record<string, unknown>> | null) =>
      parseRetryPolicy(metadata?.['retryPolicy'], 'metadata.retryPolicy').policy;
    return {
      retryPolicy: effectiveRetryPolicy(policyOf(instance.metadata), policyOf(definitionMetadata)),
      resend: resendSettingsOf(definitionMetadata, {
        maxWaitMs: this.config.maxWaitMs,
        maxRetryCount: this.config.maxRetryCount,
      }).settings,
      noProgressTimeoutMs: this.config.noProgressTimeoutMs,
    };
  }

  private async applyInstanceAckIn(store: Store, wire: AutomationCompositionDeployAck): Promise<void> {
    const ack = instanceAckOf(wire);
    const instanceId = wire.automationCompositionId;
    const answered = ack.responseTo !== null ? await store.operations.findByMessage(ack.responseTo) : null;
    if (ack.responseTo !== null && answered?.operation.targetId !== instanceId) {
      return this.writer.ignored([ignore('UNKNOWN_MESSAGE', `ACK answers unknown message ${ack.responseTo}`)]);
    }
    const found = await store.instances.findForUpdate(instanceId);
    const definition = found ? await store.definitions.find(found.value.compositionId) : null;
    if (!found || !definition) {
      return this.writer.ignored([ignore('UNKNOWN_INSTANCE', `ACK for unknown instance ${instanceId}`)]);
    }
    const running = asInstanceOperation(await store.operations.findRunning(instanceId));
    const acked = asInstanceOperation(operationOfAck(answered, running));
    const input: InstanceInput = { kind: 'ACK', ack, answered, dispatched: null };
    await this.stepInstance(store, found, definition.value, running, input, acked?.order ?? null, {}, acked);
  }

  private async applyPrimeAckIn(store: Store, wire: ParticipantPrimeAck): Promise<void> {
    const ack = primeAckOf(wire);
    const answered = ack.responseTo !== null ? await store.operations.findByMessage(ack.responseTo) : null;
    const found = await store.definitions.findForUpdate(wire.compositionId);
    if (!found) {
      return this.writer.ignored([
        ignore('UNKNOWN_DEFINITION', `PRIME_ACK for unknown composition ${wire.compositionId}`),
      ]);
    }
    const now = this.clock.now();
    const running = await store.operations.findRunning(wire.compositionId);
    const step = decideDefinition(
      found.value,
      running?.targetKind === 'DEFINITION' ? running : null,
      { kind: 'ACK', ack, answered },
      now,
      this.definitionContext(),
    );
    await this.writer.saveDefinition(store, found, step, this.templates.readDefinition(found.value), now);
  }

  /** Loads what a step of an instance needs (templates, order context, what is in flight), decides and saves. */
  private async stepInstance(
    store: Store,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    running: InstanceOperation | null,
    input: InstanceInput,
    order: InstanceOrder | null,
    extras: OrderExtras,
    concerned: InstanceOperation | null = running,
  ): Promise<AutomationComposition> {
    const now = this.clock.now();
    const context = order === null ? {} : await loadOrderContext(store, this.templates, found.value, order, extras);
    const stepContext = this.instanceContext(found.value, definition, context);
    const decided =
      input.kind === 'ACK' && stepContext.maxParallelElements !== null && concerned !== null
        ? { ...input, dispatched: await this.dispatchedIn(store, concerned) }
        : input;
    const step = decideInstance(found.value, running, decided, now, stepContext);
    await this.writer.saveInstance(store, found, step, this.sideOf(definition, context), now);
    return step.target;
  }

  /** The elements the messages of the operation's open phase set going so far. */
  private async dispatchedIn(store: Store, operation: InstanceOperation): Promise<ReadonlySet<string>> {
    const messages = await store.operations.phaseMessages(operation.operationId, operation.phase);
    return new Set(messages.flatMap((message) => message.elementIds ?? []));
  }

  /** Sends again, for one participant, the open phase messages its lost replicas may have taken. */
  private async handOver(store: Store, participantId: string, lost: LostReplicas): Promise<number> {
    const now = this.clock.now();
    let resent = 0;
    for (const listed of await store.instances.list({ participantId })) {
      const operation = hasUnfinishedWorkOf(listed, participantId)
        ? asInstanceOperation(await store.operations.findRunning(listed.instanceId))
        : null;
      const found = operation ? await store.instances.findForUpdate(listed.instanceId) : null;
      const definition = found ? await store.definitions.find(found.value.compositionId) : null;
      if (!operation || !found || !definition) {
        continue;
      }
      const messages = (await store.operations.phaseMessages(operation.operationId, operation.phase)).map(
        (message) => ({
          messageId: message.messageId,
          answeredBy: message.answeredBy
            .filter((answer) => answer.participantId === participantId)
            .map((answer) => answer.replicaId),
          covered: message.elementIds === null ? null : new Set(message.elementIds),
        }),
      );
      const context = await loadOrderContext(store, this.templates, found.value, operation.order, {});
      const input: InstanceInput = { kind: 'REPLICA_LOST', participantId, lost, messages };
      const step = decideInstance(
        found.value,
        operation,
        input,
        now,
        this.instanceContext(found.value, definition.value, context),
      );
      await this.writer.saveInstance(store, found, step, this.sideOf(definition.value, context), now);
      resent += step.effects.filter((effect) => effect.kind === 'SEND_PHASE').length;
    }
    return resent;
  }

  private instanceContext(
    instance: AutomationComposition,
    definition: CompositionDefinition,
    context: OrderContext,
  ): InstanceStepContext {
    const info = this.templates.readDefinition(definition);
    return {
      templates: templatesOf(info, context),
      defaultTimeoutMs: this.config.maxOperationWaitMs,
      maxParallelElements: parallelismLimit(instance.metadata, info.metadata, this.config.maxParallelElements),
      newId: () => this.ids.uuid(),
      control: this.controlSettings(instance, info.metadata),
    };
  }

  private definitionContext(): { defaultTimeoutMs: number; newId: () => string } {
    return { defaultTimeoutMs: this.config.maxOperationWaitMs, newId: () => this.ids.uuid() };
  }

  private sideOf(definition: CompositionDefinition, context: OrderContext): InstanceSide {
    return { definition, info: this.templates.readDefinition(definition), context };
  }
}
