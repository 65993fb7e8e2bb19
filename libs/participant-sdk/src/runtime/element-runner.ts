/**
 * Runs one element operation: marks the cached element transitional, calls the handler outside the record
 * handler, and answers one STATECHANGE_ACK for the element when it reports (at once or later). A newer
 * order for the element replaces (aborts) the running one; a resent order for the same step does not (see
 * finished-elements.ts).
 */
import type { AcElementDeployAck, Uuid } from '@acm/contracts';
import { describeError, traceHeaders } from '@acm/messaging';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';

import { copy } from '../cache';
import { ELEMENT_OPERATIONS } from '../operations';
import type {
  CompositionElement,
  ElementContext,
  ElementOperation,
  ElementOutcome,
  ElementReporter,
  ElementResult,
  InstanceElement,
} from '../types';
import { asResult } from './core';
import type { HandledOrder, ParticipantCore } from './core';
import { fingerprintOf } from './finished-elements';
import type { StepIdentity } from './finished-elements';
import { deployAck } from './outbound';
import { applyInfo, sendElementInfo } from './pushes';
import { isTimedOutByRuntime } from './orders/sync';

export type ElementInvoker = (ctx: ElementContext) => Promise<ElementOutcome> | ElementOutcome;

/** One element operation to run. */
export interface ElementJob {
  order: HandledOrder;
  messageId: Uuid;
  operation: ElementOperation;
  instanceId: Uuid;
  /** The cached element's state before the order (handed to the handler as a copy). */
  element: InstanceElement;
  compositionElement: CompositionElement;
  phase: number;
  /** The order's `revisionIdInstance`: part of what makes a resent order the same step. */
  revision?: Uuid;
  /** What the element is asked to become when that is data (update, migrate): part of the step too. */
  target?: unknown;
  /** Undefined when the handler does not implement the operation. */
  invoke: ElementInvoker | undefined;
  /** Staged operations: success with `nextStage !== stage` sends a stage ack instead of a final one. */
  staged?: { stage: number; nextStage: number };
  /** A migration-REMOVED element: success means DELETED. */
  removed?: boolean;
  /** Cache adjustments after a final (non-stage) report. */
  onFinal?: (ok: boolean) => void;
}

function stepOf(job: ElementJob): StepIdentity {
  return {
    operation: job.operation,
    phase: job.phase,
    ...(job.revision === undefined ? {} : { revision: job.revision }),
    ...(job.target === undefined ? {} : { target: job.target }),
  };
}

function runningKey(instanceId: Uuid, elementId: Uuid): string {
  return `element:${instanceId}:${elementId}`;
}

/**
 * Answers a resent step without acting: the recorded result again when the element finished it, nothing
 * when it is still running it (the running handler answers). True when the job is answered that way.
 */
export async function answerResend(
  core: ParticipantCore,
  order: HandledOrder,
  messageId: Uuid,
  instanceId: Uuid,
  elementId: Uuid,
  step: StepIdentity,
): Promise<boolean> {
  const fingerprint = fingerprintOf(step);
  if (core.runningOperation(runningKey(instanceId, elementId))?.fingerprint === fingerprint) {
    core.logger('info', 'Resent order for an element still running it: the running operation answers', {
      messageId,
      instanceId,
      elementId,
      operation: step.operation,
    });
    return true;
  }
  const cached = core.cache.instances.get(instanceId)?.elements.get(elementId);
  const finished = core.finished.find(instanceId, elementId, fingerprint, cached);
  if (finished === undefined) {
    return false;
  }
  core.logger('info', 'Resent order for an element that already finished it: recorded result sent again', {
    messageId,
    instanceId,
    elementId,
    operation: step.operation,
  });
  const ack = { ...copy(finished.ack), responseTo: messageId, timestamp: core.now() };
  order.acks.set(elementId, ack);
  await core.publish(ack);
  return true;
}

export async function runElement(core: ParticipantCore, job: ElementJob): Promise<void> {
  const elementId = job.element.id;
  const step = stepOf(job);
  if (await answerResend(core, job.order, job.messageId, job.instanceId, elementId, step)) {
    return;
  }
  core.finished.forget(job.instanceId, elementId);
  const key = runningKey(job.instanceId, elementId);
  const controller = new AbortController();
  const previous = core.beginOperation(key, {
    controller,
    instanceId: job.instanceId,
    fingerprint: fingerprintOf(step),
  });
  if (previous !== undefined) {
    core.logger('info', 'A newer order replaces the running operation of an element', {
      instanceId: job.instanceId,
      elementId,
    });
  }
  const snapshot = copy(job.element);
  const running = ELEMENT_OPERATIONS[job.operation].running;
  const cached = core.cache.instances.get(job.instanceId)?.elements.get(elementId);
  if (cached !== undefined) {
    if (running.deployState !== undefined) {
      cached.deployState = running.deployState;
    }
    if (running.lockState !== undefined) {
      cached.lockState = running.lockState;
    }
  }
  let reported = false;
  // A child of the order's context (inbound.ts): it lasts from the handler's call to the element's report, and the
  // element's ACK carries it back, so the runtime's applying of the ACK continues the same trace.
  const span = tracer().startSpan(`element ${job.operation}`, {
    kind: SpanKind.CONSUMER,
    attributes: {
      'acm.instance_id': job.instanceId,
      'acm.element_id': elementId,
      'acm.message_id': job.messageId,
      'acm.phase': job.phase,
      'acm.operation': job.operation,
    },
  });

  const finish = async (result: ElementResult): Promise<void> => {
    if (reported) {
      core.logger('warn', `${job.operation} of an element reported twice; later report ignored`, {
        instanceId: job.instanceId,
        elementId,
      });
      return;
    }
    reported = true;
    if (controller.signal.aborted && !isTimedOutByRuntime(controller.signal)) {
      core.logger('info', `${job.operation} report dropped: the operation was cancelled or replaced`, {
        instanceId: job.instanceId,
        elementId,
      });
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'cancelled or replaced' });
      span.end();
      return;
    }
    core.endOperation(key, controller);
    span.setAttribute('acm.result', result.ok);
    if (!result.ok) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(result.message === undefined ? {} : { message: result.message }),
      });
    }
    try {
      await finishElement(core, job, result, span);
    } finally {
      span.end();
    }
  };
  const report: ElementReporter = {
    done: (result) => finish({ ...result, ok: true }),
    failed: (text, info) => finish({ ...info, ok: false, message: text }),
    info: async (info) => {
      await sendElementInfo(core, job.instanceId, elementId, info, 'queued');
    },
    get reported() {
      return reported;
    },
  };
  const ctx: ElementContext = {
    messageId: job.messageId,
    instanceId: job.instanceId,
    compositionId: job.compositionElement.compositionId,
    compositionElement: copy(job.compositionElement),
    instanceElement: snapshot,
    phase: job.phase,
    report,
    signal: controller.signal,
  };

  core.track(async () => {
    if (job.invoke === undefined) {
      await finish(core.unsupported());
      return;
    }
    job.order.invocations.set(elementId, (job.order.invocations.get(elementId) ?? 0) + 1);
    let outcome: ElementOutcome;
    try {
      const invoke = job.invoke;
      outcome = await context.with(trace.setSpan(context.active(), span), () => invoke(ctx));
    } catch (error) {
      core.logger('warn', `${job.operation} handler threw`, {
        instanceId: job.instanceId,
        elementId,
        error: describeError(error),
      });
      await finish({ ok: false, message: `${job.operation} failed: ${describeError(error)}` });
      return;
    }
    if (outcome === 'pending') {
      return;
    }
    await finish(asResult<ElementResult>(outcome, { ok: true }));
  });
}

/** The SDK's tracer: OpenTelemetry's no-op one unless the participant's process registered an SDK. */
function tracer() {
  return trace.getTracer('acm-participant-sdk');
}

async function finishElement(core: ParticipantCore, job: ElementJob, result: ElementResult, span: Span): Promise<void> {
  const spec = ELEMENT_OPERATIONS[job.operation];
  const elementId = job.element.id;
  const instance = core.cache.instances.get(job.instanceId);
  const cached = instance?.elements.get(elementId);
  const intermediate =
    result.ok && job.staged !== undefined && job.staged.nextStage !== job.staged.stage
      ? job.staged.nextStage
      : undefined;
  const states =
    intermediate !== undefined
      ? spec.running
      : result.ok && job.removed === true
        ? ({ deployState: 'DELETED', lockState: 'NONE' } as const)
        : result.ok
          ? spec.success
          : spec.failure;
  const element: InstanceElement = cached ?? copy(job.element);
  element.deployState = states.deployState ?? element.deployState;
  element.lockState = states.lockState ?? element.lockState;
  applyInfo(element, result);
  if (instance !== undefined && intermediate === undefined) {
    instance.stateChangeResult = result.ok ? 'NO_ERROR' : 'FAILED';
  }
  const message =
    result.message ??
    (intermediate !== undefined
      ? `stage ${job.staged?.stage ?? 0} ${spec.doneMessage}`
      : job.removed === true
        ? 'Deleted'
        : spec.doneMessage);
  const elementAck: AcElementDeployAck = {
    deployState: element.deployState,
    lockState: element.lockState,
    outProperties: copy(element.outProperties),
    result: result.ok,
    message,
  };
  if (element.operationalState !== undefined) {
    elementAck.operationalState = element.operationalState;
  }
  if (element.useState !== undefined) {
    elementAck.useState = element.useState;
  }
  if (element.deployState === 'DELETED') {
    core.cache.removeElement(job.instanceId, elementId);
  }
  if (intermediate === undefined) {
    job.onFinal?.(result.ok);
  }
  const ack = deployAck(core, job.messageId, job.instanceId, result.ok, message, { [elementId]: elementAck });
  ack.outPropertiesUpdated = result.outProperties !== undefined;
  if (intermediate !== undefined) {
    ack.stage = intermediate;
  }
  job.order.acks.set(elementId, ack);
  if (result.ok) {
    // The state the element is left in, read after onFinal (a migration moves it to its target).
    const after = core.cache.instances.get(job.instanceId)?.elements.get(elementId);
    core.finished.record(job.instanceId, elementId, {
      fingerprint: fingerprintOf(stepOf(job)),
      ack,
      deployState: after?.deployState ?? element.deployState,
      lockState: after?.lockState ?? element.lockState,
    });
  }
  await core.publish(ack, traceHeaders(span));
}
