import type {
  InputOf,
  AutomationComposition,
  CompositionDefinition,
  CountSignalEffect,
  InstanceInput,
  OperationSession,
  Signal,
  Versioned,
} from '@acm/domain';
import {
  Clock,
  cancelDefinitionOperation,
  dispatchOf,
  isRefusal,
  isWaitConditionTemplate,
  refusalError,
  requestedBy,
} from '@acm/domain';
import { Injectable } from '@nestjs/common';
import { requestActor } from '../observability/request-context';
import { EffectWriter } from './effect-writer';
import { OperationSteps } from './operation-steps';
import { asInstanceOperation } from './running-operation';
import { TemplateReader } from './template-reader';

/**
 * Control of running work (cancel, pause, resume): each is an input of the domain's state machine, applied inside
 * the caller's transaction under the target's lock.
 */
@Injectable()
export class OperationInterventions {
  constructor(
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly steps: OperationSteps,
    private readonly writer: EffectWriter,
  ) {}

  /**
   * Cancels the running operation of an instance inside the caller's transaction (with `rollback`, the reverse
   * order then starts); resolves with the instance as the cancel left it.
   */
  async cancelInstance(
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    rollback: boolean,
  ): Promise<AutomationComposition> {
    const running = asInstanceOperation(await session.running(found.value.instanceId));
    const dispatched = running
      ? await this.dispatchedByOperation(session, found.value.instanceId, running.operationId)
      : new Set<string>();
    const input: InstanceInput = { kind: 'CANCEL', rollback, dispatched };
    const target = { found, definition, running, order: running?.order ?? null };
    return (await this.steps.instance(session, target, input)).target;
  }

  /** Pauses the running operation of an instance: nothing new is dispatched, its deadlines stop. */
  async pauseInstance(
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
  ) {
    const running = asInstanceOperation(await session.running(found.value.instanceId));
    const target = { found, definition, running, order: running?.order ?? null };
    await this.steps.instance(session, target, { kind: 'PAUSE' });
  }

  /** Resumes a paused operation where it stopped. */
  async resumeInstance(
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
  ): Promise<void> {
    const running = asInstanceOperation(await session.running(found.value.instanceId));
    const dispatched = running ? await this.steps.dispatchedIn(session, running) : new Set<string>();
    const input: InstanceInput = { kind: 'RESUME', dispatched };
    const target = { found, definition, running, order: running?.order ?? null };
    await this.steps.instance(session, target, input);
  }

  /**
   * A signal for a wait-condition element, inside the caller's transaction under the instance's lock (two
   * identical signals serialise on it, so the second is a duplicate); resolves with what it did.
   */
  async signalInstance(
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    elementId: string,
    signal: Signal,
  ): Promise<{ instance: AutomationComposition; effect: CountSignalEffect['effect'] }> {
    const running = asInstanceOperation(await session.running(found.value.instanceId));
    const target = { found, definition, running, order: running?.order ?? null };
    const step = await this.steps.instance(session, target, { kind: 'SIGNAL', elementId, signal });
    const counted = step.effects.find((effect): effect is CountSignalEffect => effect.kind === 'COUNT_SIGNAL');
    return { instance: step.target, effect: counted?.effect ?? 'DUPLICATE' };
  }

  /**
   * The child of a nested-composition element ended its order: inside the caller's transaction under the parent's
   * lock, the domain completes or fails the element (an end that no longer matters changes nothing).
   */
  async childEnded(
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    input: InputOf<'CHILD_ENDED'>,
  ): Promise<AutomationComposition> {
    const running = asInstanceOperation(await session.running(found.value.instanceId));
    const target = { found, definition, running, order: running?.order ?? null };
    const step = await this.steps.instance(session, target, input);
    return step.target;
  }

  /** Whether an element node template of the definition is a wait condition (signals apply to it). */
  isWaitCondition(definition: CompositionDefinition, name: string): boolean {
    return this.templates
      .readDefinition(definition)
      .elements.some((element) => element.name === name && isWaitConditionTemplate(element));
  }

  /** Cancels a running prime or deprime inside the caller's transaction. */
  async cancelDefinition(
    session: OperationSession,
    found: Versioned<CompositionDefinition>,
  ): Promise<CompositionDefinition> {
    const now = this.clock.now();
    const running = await session.running(found.value.compositionId);
    const step = cancelDefinitionOperation(found.value, running?.targetKind === 'DEFINITION' ? running : null, now);
    if (isRefusal(step)) {
      throw refusalError(step);
    }
    const actor = requestedBy(requestActor());
    await this.writer.saveDefinition(session, found, step, this.templates.readDefinition(found.value), now, actor);
    return step.target;
  }

  /** Every element the messages of an operation set going, over all its phases (what a rollback reverses). */
  private async dispatchedByOperation(
    session: OperationSession,
    instanceId: string,
    operationId: string,
  ): Promise<Set<string>> {
    const dispatched = new Set<string>();
    for (const event of await session.history(instanceId, 10000)) {
      const sent = dispatchOf(event);
      if (event.operationId === operationId && sent !== null) {
        sent.elementIds.forEach((id) => dispatched.add(id));
      }
    }
    return dispatched;
  }
}
