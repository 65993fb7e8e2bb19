import type { AutomationCompositionDeployAck, ParticipantPrimeAck } from '@acm/contracts';
import type {
  AutomationComposition,
  CompositionDefinition,
  DefinitionOrder,
  InstanceOrder,
  Store,
  Versioned,
} from '@acm/domain';
import { Clock, UnitOfWork, ackForAnotherTarget, definitionTimeoutKey, ignore, operationOfAck } from '@acm/domain';
import { metadataTimeoutMs } from '@acm/tosca';
import { Injectable } from '@nestjs/common';
import { BatchStore } from './batch-store';
import { EffectWriter } from './effect-writer';
import { OperationSteps } from './operation-steps';
import type { OrderExtras } from './order-context';
import { instanceAckOf, primeAckOf } from './participant-answers';
import { asInstanceOperation } from './running-operation';
import { TemplateReader } from './template-reader';

export type { OrderExtras } from './order-context';

/** A participant answer the engine applies; a batch of them is applied in one transaction. */
export type EngineInput =
  | { readonly kind: 'INSTANCE_ACK'; readonly ack: AutomationCompositionDeployAck }
  | { readonly kind: 'PRIME_ACK'; readonly ack: ParticipantPrimeAck };

function targetOf(input: EngineInput): string {
  return input.kind === 'INSTANCE_ACK' ? input.ack.automationCompositionId : input.ack.compositionId;
}

/**
 * The engine's shell: lock and load → decide (the domain's `decideInstance` / `decideDefinition`) → save and turn
 * effects into rows (`EffectWriter`), for orders and participant answers. It holds no rule of its own. Advancing
 * is driven by ACKs only; `OperationSupervisor` flags timeouts and hands lost work over, `OperationInterventions`
 * cancels, pauses and resumes.
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

  /**
   * Runs an order's work in one transaction on a `BatchStore`: the instance is locked and loaded, and its running
   * operation, definitions and the participants read, in two statements; the work's writes (the instance, the
   * operation, message record, outbox row and history) go out in one more before the commit.
   */
  orderTransaction<T>(instanceId: string, work: (store: Store) => Promise<T>): Promise<T> {
    return this.unitOfWork.transaction(async (store) => {
      const batch = await BatchStore.open(store, { instanceIds: [instanceId], messageIds: [], participants: true });
      const result = await work(batch);
      await batch.flush();
      return result;
    });
  }

  /**
   * Starts an instance order inside the caller's transaction; resolves with the instance as the order left it. On a
   * plain store the order's writes are collected and written together before this resolves, as on a `BatchStore`
   * (`orderTransaction`), whose caller flushes.
   */
  async startInstanceOrder(
    store: Store,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    order: InstanceOrder,
    extras: OrderExtras = {},
  ): Promise<AutomationComposition> {
    const batch = store instanceof BatchStore ? store : BatchStore.over(store, [found]);
    const running = asInstanceOperation(await batch.operations.findRunning(found.value.instanceId));
    const target = { found, definition, running, order, extras };
    const step = await this.steps.instance(batch, target, { kind: 'ORDER', order });
    if (batch !== store) {
      await batch.flush();
    }
    return step.target;
  }

  /** Starts a prime or deprime inside the caller's transaction. */
  async startDefinitionOrder(store: Store, definition: CompositionDefinition, order: DefinitionOrder): Promise<void> {
    const metadata = this.templates.readDefinition(definition).metadata;
    const timeoutMs = metadataTimeoutMs(metadata, definitionTimeoutKey(order)) ?? null;
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

  /**
   * A store for a batch of answers over the caller's transaction (`BatchStore`): the instances the ACKs answer for
   * are locked and loaded up front, with their running operations and the answered messages, and the writes of the
   * whole batch go out as set statements on `flush`.
   */
  openBatch(store: Store, inputs: readonly EngineInput[]): Promise<BatchStore> {
    const acks = inputs.flatMap((input) => (input.kind === 'INSTANCE_ACK' ? [input.ack] : []));
    return BatchStore.open(store, {
      instanceIds: acks.map((ack) => ack.automationCompositionId),
      messageIds: acks.flatMap((ack) => (ack.responseTo ? [ack.responseTo] : [])),
    });
  }

  /**
   * As `applyBatch`, inside the caller's transaction (a batch of participant messages that also holds reports).
   * On a plain store the batch gets a `BatchStore` of its own, flushed before this resolves; on a `BatchStore` the
   * caller flushes.
   */
  async applyBatchIn(store: Store, inputs: readonly EngineInput[]): Promise<void> {
    const batch = store instanceof BatchStore ? store : await this.openBatch(store, inputs);
    const ordered = inputs
      .map((input, index) => ({ input, index }))
      .sort((a, b) => targetOf(a.input).localeCompare(targetOf(b.input)) || a.index - b.index);
    // Definitions are read once per batch: its ACKs write no definition.
    const definitions = new Map<string, Promise<Versioned<CompositionDefinition> | null>>();
    const definitionOf = (compositionId: string): Promise<Versioned<CompositionDefinition> | null> => {
      const known = definitions.get(compositionId) ?? batch.definitions.find(compositionId);
      definitions.set(compositionId, known);
      return known;
    };
    for (const { input } of ordered) {
      await (input.kind === 'INSTANCE_ACK'
        ? this.applyInstanceAckIn(batch, input.ack, definitionOf)
        : this.applyPrimeAckIn(batch, input.ack));
    }
    if (batch !== store) {
      await batch.flush();
    }
  }

  private async applyInstanceAckIn(
    store: Store,
    wire: AutomationCompositionDeployAck,
    definitionOf: (compositionId: string) => Promise<Versioned<CompositionDefinition> | null>,
  ): Promise<void> {
    const ack = instanceAckOf(wire);
    const instanceId = wire.automationCompositionId;
    // The answered message is read under the instance's lock, so its operation is as the last commit left it.
    const found = await store.instances.findForUpdate(instanceId);
    const answered = ack.responseTo !== null ? await store.operations.findByMessage(ack.responseTo) : null;
    const foreign = ackForAnotherTarget(ack.responseTo, answered, instanceId);
    if (foreign !== null) {
      return this.writer.ignored([foreign]);
    }
    const definition = found ? await definitionOf(found.value.compositionId) : null;
    if (!found || !definition) {
      return this.writer.ignored([ignore('UNKNOWN_INSTANCE', `ACK for unknown instance ${instanceId}`)]);
    }
    // A target has one running operation at most: a running answered one is it, with no second read.
    const running = asInstanceOperation(
      answered?.operation.state === 'RUNNING' ? answered.operation : await store.operations.findRunning(instanceId),
    );
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
}
