import type {
  AutomationComposition,
  CompositionDefinition,
  ControlSettings,
  DefinitionInput,
  DefinitionOperation,
  DefinitionStep,
  InstanceInput,
  InstanceOperation,
  InstanceOrder,
  InstanceStep,
  Operation,
  OperationSession,
  ResendSettings,
  SupervisionContext,
  Versioned,
} from '@acm/domain';
import {
  Clock,
  IdGenerator,
  actorOfInput,
  decideDefinition,
  decideInstance,
  effectiveRetryPolicy,
  isRefusal,
  parallelismLimit,
  parseRetryPolicy,
  refusalError,
  resendSettingsOf,
  runtimeSlotsFor,
  runtimeActor,
  timeOutOperation,
  withDefinitionDueTimes,
  withInstanceDueTimes,
} from '@acm/domain';
import { Inject, Injectable } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { requestActor } from '../observability/request-context';
import { EffectWriter } from './effect-writer';
import { loadOrderContext, templatesOf } from './order-context';
import type { OrderExtras } from './order-context';
import { TemplateReader } from './template-reader';

/** The operation an instance step concerns, and the order whose context (snapshot, other side) it needs. */
export interface InstanceStepTarget {
  readonly found: Versioned<AutomationComposition>;
  readonly definition: CompositionDefinition;
  /** The instance's running operation. */
  readonly running: InstanceOperation | null;
  /** The operation the input belongs to (an ACK's may be a failed one); the running one by default. */
  readonly concerned?: InstanceOperation | null;
  readonly order: InstanceOrder | null;
  readonly extras?: OrderExtras;
}

/**
 * One step for one locked target: reads what the decision needs (templates, order context, the elements in flight
 * when a parallelism limit applies), calls the domain's decide function and has the step saved. No rule here.
 */
@Injectable()
export class OperationSteps {
  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly writer: EffectWriter,
  ) {}

  /**
   * `slots`: the runtime-wide slots free for this step (the pass that fills them); every other step has none, so
   * under MAX_PARALLEL_ELEMENTS elements wait for that pass, in their stable order across operations.
   */
  async instance(
    session: OperationSession,
    target: InstanceStepTarget,
    input: InstanceInput,
    slots = 0,
  ): Promise<InstanceStep> {
    const now = this.clock.now();
    const { found, definition, running, order } = target;
    const concerned = target.concerned === undefined ? running : target.concerned;
    const context =
      order === null ? {} : await loadOrderContext(session, this.templates, found.value, order, target.extras ?? {});
    const info = this.templates.readDefinition(definition);
    const maxParallelElements = parallelismLimit(found.value.metadata, info.metadata, this.config.maxParallelElements);
    const decided =
      input.kind === 'ACK' && maxParallelElements !== null && concerned !== null
        ? { ...input, dispatched: await this.dispatchedIn(session, concerned) }
        : input;
    const stepContext = {
      templates: templatesOf(info, context),
      defaultTimeoutMs: this.config.maxOperationWaitMs,
      maxParallelElements,
      runtimeSlots: runtimeSlotsFor(this.config.maxParallelElements, order, slots),
      newId: () => this.ids.uuid(),
      control: this.controlSettings(found.value, definition),
    };
    const decision = decideInstance(found.value, running, decided, now, stepContext);
    if (isRefusal(decision)) {
      throw refusalError(decision);
    }
    const step = withInstanceDueTimes(decision, running, decided, now, stepContext);
    await this.writer.saveInstance(
      session,
      found,
      step,
      { definition, info, context },
      now,
      actorOfInput(input, requestActor()),
    );
    return step;
  }

  /** `found` is null when the caller already wrote the definition (an order). */
  async definition(
    session: OperationSession,
    definition: CompositionDefinition,
    found: Versioned<CompositionDefinition> | null,
    running: Operation | null,
    input: DefinitionInput,
  ): Promise<DefinitionStep> {
    const now = this.clock.now();
    const own = running?.targetKind === 'DEFINITION' ? running : null;
    const decided = decideDefinition(definition, own, input, now, {
      defaultTimeoutMs: this.config.maxOperationWaitMs,
      newId: () => this.ids.uuid(),
    });
    const step = withDefinitionDueTimes(decided, own, now, this.resendSettings(definition));
    const actor = actorOfInput(input, requestActor());
    await this.writer.saveDefinition(session, found, step, this.templates.readDefinition(definition), now, actor);
    return step;
  }

  /** The timeout rule for an operation whose target is gone: only the operation is flagged. */
  timeOutAlone(session: OperationSession, operation: InstanceOperation | DefinitionOperation): boolean {
    const alone = timeOutOperation(operation, this.clock.now());
    if (alone) {
      const step = { ...alone, operations: [{ operation: alone.operation, isNew: false }] };
      this.writer.saveOperations(session, operation.targetId, step, this.clock.now(), runtimeActor('timeout'));
    }
    return alone !== null;
  }

  /** The control settings of one instance: its retry policy over its definition's, resends, no-progress. */
  controlSettings(instance: AutomationComposition, definition: CompositionDefinition): ControlSettings {
    const metadata = this.templates.readDefinition(definition).metadata;
    const policyOf = (from: Readonly<Record<string, unknown>> | null) =>
      parseRetryPolicy(from?.['retryPolicy'], 'metadata.retryPolicy').policy;
    return {
      retryPolicy: effectiveRetryPolicy(policyOf(instance.metadata), policyOf(metadata)),
      resend: resendSettingsOf(metadata, {
        maxWaitMs: this.config.maxWaitMs,
        maxRetryCount: this.config.maxRetryCount,
      }).settings,
      noProgressTimeoutMs: this.config.noProgressTimeoutMs,
    };
  }

  /** What `needsSupervision` reads besides the instance: the same templates and settings a step decides with. */
  supervisionContext(instance: AutomationComposition, definition: CompositionDefinition): SupervisionContext {
    return {
      templates: templatesOf(this.templates.readDefinition(definition), {}),
      control: this.controlSettings(instance, definition),
    };
  }

  /** MAX_WAIT_MS / MAX_RETRY_COUNT, or the definition's own `maxWaitMs` / `maxRetryCount` metadata. */
  resendSettings(definition: CompositionDefinition): ResendSettings {
    return resendSettingsOf(this.templates.readDefinition(definition).metadata, {
      maxWaitMs: this.config.maxWaitMs,
      maxRetryCount: this.config.maxRetryCount,
    }).settings;
  }

  /** The elements the messages of the operation's open phase set going so far. */
  async dispatchedIn(session: OperationSession, operation: InstanceOperation): Promise<ReadonlySet<string>> {
    const messages = await session.phaseMessages(operation.operationId, operation.phase);
    return new Set(messages.flatMap((message) => message.elementIds ?? []));
  }
}
