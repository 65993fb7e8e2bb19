import type { AutomationCompositionDeployAck, ParticipantPrimeAck } from '@acm/contracts';
import type {
  AutomationComposition,
  CompositionDefinition,
  DefinitionOrder,
  InstanceOrder,
  OperationSession,
  SessionKeys,
  Versioned,
} from '@acm/domain';
import {
  Clock,
  OperationSessions,
  ackForAnotherTarget,
  definitionTimeoutKey,
  ignore,
  operationOfAck,
} from '@acm/domain';
import { metadataTimeoutMs } from '@acm/tosca';
import { Injectable } from '@nestjs/common';
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
 * What an order's session locks and loads: the instance, its running operation and definitions, and the
 * participants (an order checks that they are online), in two statements.
 */
export function orderKeys(instanceId: string): SessionKeys {
  return { instanceIds: [instanceId], messageIds: [], participants: true };
}

/**
 * What a batch of answers' session locks and loads: the instances the ACKs answer for, their running operations
 * and the answered messages, so the batch's reads are answered from memory and its writes go out as set statements.
 */
export function batchKeys(inputs: readonly EngineInput[]): SessionKeys {
  const acks = inputs.flatMap((input) => (input.kind === 'INSTANCE_ACK' ? [input.ack] : []));
  return {
    instanceIds: acks.map((ack) => ack.automationCompositionId),
    messageIds: acks.flatMap((ack) => (ack.responseTo ? [ack.responseTo] : [])),
  };
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
    private readonly sessions: OperationSessions,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly steps: OperationSteps,
    private readonly writer: EffectWriter,
  ) {}

  /**
   * Starts an instance order in the caller's session (opened with `orderKeys`, or joined to its transaction);
   * resolves with the instance as the order left it. The order's writes go out when the session commits.
   */
  async startInstanceOrder(
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    order: InstanceOrder,
    extras: OrderExtras = {},
  ): Promise<AutomationComposition> {
    const running = asInstanceOperation(await session.running(found.value.instanceId));
    const target = { found, definition, running, order, extras };
    const input = {
      order,
      ...(extras.replace === undefined ? {} : { replace: extras.replace }),
      ...(extras.heal === undefined ? {} : { heal: extras.heal }),
    };
    const step = await this.steps.instance(session, target, { kind: 'ORDER', ...input });
    return step.target;
  }

  /** Starts a prime or deprime inside the caller's transaction. */
  async startDefinitionOrder(
    session: OperationSession,
    definition: CompositionDefinition,
    order: DefinitionOrder,
  ): Promise<void> {
    const metadata = this.templates.readDefinition(definition).metadata;
    const timeoutMs = metadataTimeoutMs(metadata, definitionTimeoutKey(order)) ?? null;
    const running = await session.running(definition.compositionId);
    // The caller already wrote the definition's PRIMING/DEPRIMING: the step leaves it as it is.
    await this.steps.definition(session, definition, null, running, { kind: 'ORDER', order, timeoutMs });
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
    await this.sessions.transaction(batchKeys(inputs), (session) => this.applyIn(session, inputs));
  }

  /**
   * As `applyBatch`, in the caller's session (opened with `batchKeys` of at least these inputs; a batch of
   * participant messages that also holds reports); the writes go out when the session commits.
   */
  async applyIn(session: OperationSession, inputs: readonly EngineInput[]): Promise<void> {
    const ordered = inputs
      .map((input, index) => ({ input, index }))
      .sort((a, b) => targetOf(a.input).localeCompare(targetOf(b.input)) || a.index - b.index);
    // Definitions are read once per batch: its ACKs write no definition.
    const definitions = new Map<string, Promise<Versioned<CompositionDefinition> | null>>();
    const definitionOf = (compositionId: string): Promise<Versioned<CompositionDefinition> | null> => {
      const known = definitions.get(compositionId) ?? session.definition(compositionId);
      definitions.set(compositionId, known);
      return known;
    };
    for (const { input } of ordered) {
      await (input.kind === 'INSTANCE_ACK'
        ? this.applyInstanceAckIn(session, input.ack, definitionOf)
        : this.applyPrimeAckIn(session, input.ack));
    }
  }

  private async applyInstanceAckIn(
    session: OperationSession,
    wire: AutomationCompositionDeployAck,
    definitionOf: (compositionId: string) => Promise<Versioned<CompositionDefinition> | null>,
  ): Promise<void> {
    const ack = instanceAckOf(wire);
    const instanceId = wire.automationCompositionId;
    // The answered message is read under the instance's lock, so its operation is as the last commit left it.
    const found = await session.lockInstance(instanceId);
    const answered = ack.responseTo !== null ? await session.answered(ack.responseTo) : null;
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
      answered?.operation.state === 'RUNNING' ? answered.operation : await session.running(instanceId),
    );
    const acked = asInstanceOperation(operationOfAck(answered, running));
    const target = { found, definition: definition.value, running, concerned: acked, order: acked?.order ?? null };
    await this.steps.instance(session, target, { kind: 'ACK', ack, answered, dispatched: null });
  }

  private async applyPrimeAckIn(session: OperationSession, wire: ParticipantPrimeAck): Promise<void> {
    const ack = primeAckOf(wire);
    const answered = ack.responseTo !== null ? await session.answered(ack.responseTo) : null;
    const found = await session.lockDefinition(wire.compositionId);
    if (!found) {
      return this.writer.ignored([
        ignore('UNKNOWN_DEFINITION', `PRIME_ACK for unknown composition ${wire.compositionId}`),
      ]);
    }
    const running = await session.running(wire.compositionId);
    await this.steps.definition(session, found.value, found, running, { kind: 'ACK', ack, answered });
  }
}
