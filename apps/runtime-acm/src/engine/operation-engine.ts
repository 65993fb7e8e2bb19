import type { AutomationCompositionDeployAck, ParticipantPrimeAck } from '@acm/contracts';
import type {
  AutomationComposition,
  CompositionDefinition,
  DefinitionOrder,
  InstanceInput,
  InstanceOperation,
  InstanceOrder,
  LostReplicas,
  Operation,
  ParticipantReplica,
  Store,
  Versioned,
} from '@acm/domain';
import {
  Clock,
  UnitOfWork,
  cancelDefinitionOperation,
  hasUnfinishedWorkOf,
  ignore,
  needsSupervision,
  operationOfAck,
} from '@acm/domain';
import { metadataTimeoutMs } from '@acm/tosca';
import { Injectable } from '@nestjs/common';
import { EffectWriter } from './effect-writer';
import { OperationSteps } from './operation-steps';
import type { OrderExtras } from './order-context';
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
    private readonly unitOfWork: UnitOfWork,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly steps: OperationSteps,
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
    const target = { found, definition, running, order, extras };
    return (await this.steps.instance(store, target, { kind: 'ORDER', order })).target;
  }

  /** Starts a prime or deprime inside the caller's transaction. */
  async startDefinitionOrder(store: Store, definition: CompositionDefinition, order: DefinitionOrder): Promise<void> {
    const metadata = this.templates.readDefinition(definition).metadata;
    const timeoutMs = metadataTimeoutMs(metadata, order === 'PRIME' ? 'primeTimeoutMs' : 'deprimeTimeoutMs') ?? null;
    const running = await store.operations.findRunning(definition.compositionId);
    // The caller already wrote the definition's PRIMING/DEPRIMING: the step leaves it as it is.
    await this.steps.definition(store, definition, null, running, { kind: 'ORDER', order, timeoutMs });
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
    await this.unitOfWork.transaction((store) => this.applyBatchIn(store, inputs));
  }

  /** As `applyBatch`, inside the caller's transaction (a batch of participant messages that also holds reports). */
  async applyBatchIn(store: Store, inputs: readonly EngineInput[]): Promise<void> {
    const ordered = inputs
      .map((input, index) => ({ input, index }))
      .sort((a, b) => targetOf(a.input).localeCompare(targetOf(b.input)) || a.index - b.index);
    for (const { input } of ordered) {
      await (input.kind === 'INSTANCE_ACK'
        ? this.applyInstanceAckIn(store, input.ack)
        : this.applyPrimeAckIn(store, input.ack));
    }
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
          const target = { found: instance, definition: composition.value, running: operation, order: null };
          flagged += (await this.steps.instance(store, target, { kind: 'TICK' })).operations.length;
        } else if (operation?.targetKind === 'DEFINITION' && definition) {
          const step = await this.steps.definition(store, definition.value, definition, operation, { kind: 'TICK' });
          flagged += step.operations.length;
        } else if (operation && (await this.steps.timeOutAlone(store, operation))) {
          flagged += 1;
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

  /**
   * The broker came back as a new, empty cluster: orders it held that no participant had read yet, and the ACKs
   * it held that this runtime had not applied, are gone. Every open phase message of every participant goes out
   * again under its original messageId: a replica that already ran an element repeats its ACK, one that never saw
   * the order runs it.
   */
  async resendAfterBrokerLoss(): Promise<number> {
    const participantIds = await this.unitOfWork.transaction(async (store) =>
      (await store.participants.list()).map((participant) => participant.participantId),
    );
    return this.resendAfterRestart(participantIds);
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
    const target = { found, definition, running, order: running?.order ?? null };
    return (await this.steps.instance(store, target, input)).target;
  }

  /** Pauses the running operation of an instance: nothing new is dispatched, its deadlines stop. */
  async pauseInstance(store: Store, found: Versioned<AutomationComposition>, definition: CompositionDefinition) {
    const running = asInstanceOperation(await store.operations.findRunning(found.value.instanceId));
    const target = { found, definition, running, order: running?.order ?? null };
    await this.steps.instance(store, target, { kind: 'PAUSE' });
  }

  /** Resumes a paused operation where it stopped. */
  async resumeInstance(
    store: Store,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
  ): Promise<void> {
    const running = asInstanceOperation(await store.operations.findRunning(found.value.instanceId));
    const dispatched = running ? await this.steps.dispatchedIn(store, running) : new Set<string>();
    const input: InstanceInput = { kind: 'RESUME', dispatched };
    const target = { found, definition, running, order: running?.order ?? null };
    await this.steps.instance(store, target, input);
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
        if (!needsSupervision(found.value, operation, now, this.steps.controlSettings(found.value, definition.value))) {
          return 0;
        }
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
        const target = { found, definition: definition.value, running: operation, order: operation.order };
        const step = await this.steps.instance(store, target, input);
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
    const target = { found, definition: definition.value, running, concerned: acked, order: acked?.order ?? null };
    await this.steps.instance(store, target, { kind: 'ACK', ack, answered, dispatched: null });
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
    const running = await store.operations.findRunning(wire.compositionId);
    await this.steps.definition(store, found.value, found, running, { kind: 'ACK', ack, answered });
  }

  /** Sends again, for one participant, the open phase messages its lost replicas may have taken. */
  private async handOver(store: Store, participantId: string, lost: LostReplicas): Promise<number> {
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
      const target = { found, definition: definition.value, running: operation, order: operation.order };
      const step = await this.steps.instance(store, target, { kind: 'REPLICA_LOST', participantId, lost, messages });
      resent += step.effects.filter((effect) => effect.kind === 'SEND_PHASE').length;
    }
    return resent;
  }
}
