import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOperation } from '../ports/engine.port';
import type { GateExpression, GateObservation, GateState, HealthGateRules } from '../control/health-gate';
import {
  DEFAULT_GATE_POLL_MS,
  gateDueAt,
  gateWaitingReason,
  healthGateOf,
  observeGate,
  parseGateCondition,
  startGate,
} from '../control/health-gate';
import type { OperationEffect } from './effects';
import { recordEvent } from './effects';
import type { OperationTemplates } from './topology';
import type { InputOf, InstanceStep, InstanceStepContext, ReportedElement } from './instance-types';
import { applyInstanceAck, operationOfAck, runtimeAnswer } from './ack-input';
import { chained, withOperation } from './step-parts';

/**
 * Health gates in a running deploy (control/health-gate.ts has the rules). A participant's DEPLOYED answer for an
 * element with a gate is applied as "still deploying" and the gate starts on the operation; the element stays in
 * transition, so its dependants and the next phase wait by the usual rules. Supervision evaluates the gate at its due
 * times, asks the participant for fresh reports while it waits, and answers for the element through the ACK rules:
 * DEPLOYED once the gate passes, a failure once it missed its deadline (retry and failure rules then apply).
 */

/** A gate with its condition parsed, by element node template name. */
export interface CompiledGate {
  readonly rules: HealthGateRules;
  readonly expression: GateExpression;
}

/** The gates of the own composition's element templates; a template without one (or an invalid one) has none. */
export function healthGatesOf(templates: OperationTemplates): ReadonlyMap<string, CompiledGate> {
  const gates = new Map<string, CompiledGate>();
  for (const template of templates.own) {
    const gate = template.gateMetadata === undefined ? undefined : healthGateOf(template.gateMetadata).gate;
    const parsed = gate === undefined ? null : parseGateCondition(gate.condition);
    if (gate !== undefined && parsed !== null && 'expression' in parsed) {
      gates.set(template.name, { rules: gate, expression: parsed.expression });
    }
  }
  return gates;
}

/** What an element's participant reported about it, as a gate reads it. */
export function observationOf(
  element: Pick<InstanceElement, 'outProperties' | 'operationalState' | 'useState'>,
): GateObservation {
  return {
    outProperties: element.outProperties,
    operationalState: element.operationalState,
    useState: element.useState,
  };
}

function pollMsOf(context: Pick<InstanceStepContext, 'gatePollMs'>): number {
  return context.gatePollMs ?? DEFAULT_GATE_POLL_MS;
}

/** The gates an operation holds, by element id. */
export function gatesOf(operation: InstanceOperation): Readonly<Record<string, GateState>> {
  return operation.control.gates ?? {};
}

/**
 * ACK, with gates: a participant's DEPLOYED answer for a gated element of a running deploy is applied as DEPLOYING
 * (the gate starts, unless its condition already holds with no bake time); everything else as ever.
 */
export function applyGatedAck(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'ACK'>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const operation = operationOfAck(input.answered, running);
  const gates = healthGatesOf(context.templates);
  const ack = input.ack;
  // A plan answers for every element at once: it shows the gates (plan/order-plan.ts), it does not wait on them.
  if (
    gates.size === 0 ||
    context.planning === true ||
    operation?.targetKind !== 'INSTANCE' ||
    operation.state !== 'RUNNING' ||
    operation.order !== 'DEPLOY' ||
    running?.operationId !== operation.operationId ||
    ack.participantId === null ||
    ack.stateChangeResult === 'FAILED'
  ) {
    return applyInstanceAck(target, running, input, now, context);
  }
  const held = new Map<string, GateState>();
  const effects: OperationEffect[] = [];
  const reports = ack.reports.map((report): ReportedElement => {
    const element = target.elements[report.elementId];
    const gate = element === undefined ? undefined : gates.get(element.definition.name);
    if (
      element === undefined ||
      gate === undefined ||
      report.result === false ||
      report.deployState !== 'DEPLOYED' ||
      element.deployState !== 'DEPLOYING'
    ) {
      return report;
    }
    const observation = observationOf({
      outProperties: report.outProperties ?? element.outProperties,
      operationalState: report.operationalState ?? element.operationalState,
      useState: report.useState ?? element.useState,
    });
    // A redelivered answer keeps the gate it started: its clock does not start again.
    const started = gatesOf(running)[element.id];
    const first = observeGate(gate.rules, gate.expression, started ?? startGate(now), observation, now);
    if (first.verdict === 'PASS' && started === undefined) {
      effects.push(recordEvent('GATE_PASSED', { elementId: element.id, observed: first.state.observed, waitedMs: 0 }));
      return report;
    }
    held.set(element.id, first.state);
    if (started === undefined) {
      effects.push(
        recordEvent('GATE_STARTED', {
          elementId: element.id,
          condition: gate.rules.condition,
          bakeMs: gate.rules.bakeMs,
          deadlineMs: gate.rules.deadlineMs,
          observed: first.state.observed,
        }),
      );
    }
    return { ...report, deployState: 'DEPLOYING', lockState: 'NONE' };
  });
  const step = applyInstanceAck(target, running, { ...input, ack: { ...ack, reports } }, now, context);
  const after = step.operation;
  if (held.size === 0 || after?.operationId !== running.operationId || after.state !== 'RUNNING') {
    return effects.length === 0 ? step : { ...step, effects: [...effects, ...step.effects] };
  }
  let deadlineAt = after.deadlineAt;
  for (const [elementId] of held) {
    const gate = gates.get(target.elements[elementId]!.definition.name)!;
    if (gate.rules.deadlineMs !== null) {
      // The gate's own deadline fails the element first; the operation's timeout stays the net behind it.
      deadlineAt = Math.max(deadlineAt, now + gate.rules.deadlineMs + pollMsOf(context));
    }
  }
  const withGates: InstanceOperation = {
    ...after,
    deadlineAt,
    control: { ...after.control, gates: { ...gatesOf(after), ...Object.fromEntries(held) } },
  };
  const written = withOperation(step, withGates);
  return { ...written, effects: [...effects, ...written.effects] };
}

/** When the operation's waiting gates next fall due (each gate's `gateDueAt`). */
export function gateDueTimes(
  target: AutomationComposition,
  running: InstanceOperation,
  context: Pick<InstanceStepContext, 'templates' | 'gatePollMs'>,
): number[] {
  const waiting = Object.entries(gatesOf(running));
  if (waiting.length === 0) {
    return [];
  }
  const gates = healthGatesOf(context.templates);
  return waiting.flatMap(([elementId, state]) => {
    const element = target.elements[elementId];
    const gate = element === undefined ? undefined : gates.get(element.definition.name);
    return gate === undefined ? [state.requestedAt] : [gateDueAt(gate.rules, state, pollMsOf(context))];
  });
}

/** The ids of the elements whose gate waits: supervision neither resends them nor reports them stuck. */
export function gatedElementIds(running: InstanceOperation): ReadonlySet<string> {
  return new Set(Object.keys(gatesOf(running)));
}

/**
 * A supervision pass over the waiting gates: each is evaluated on what its participant last reported; one that
 * passed answers DEPLOYED for its element, one past its deadline answers a failure (the element stays DEPLOYED at
 * its participant, so an undeploy or a retry reaches it), one that waits asks its participant for a fresh report at
 * most once per poll interval. Null when the operation holds no gate.
 */
export function superviseGates(
  target: AutomationComposition,
  running: InstanceOperation,
  now: number,
  context: InstanceStepContext,
): InstanceStep | null {
  const waiting = Object.entries(gatesOf(running));
  if (waiting.length === 0) {
    return null;
  }
  const gates = healthGatesOf(context.templates);
  const pollMs = pollMsOf(context);
  const remaining: Record<string, GateState> = {};
  const effects: OperationEffect[] = [];
  const passed: ReportedElement[] = [];
  const failed: ReportedElement[] = [];
  const asked = new Set<string>();
  for (const [elementId, state] of waiting) {
    const element = target.elements[elementId];
    const gate = element === undefined ? undefined : gates.get(element.definition.name);
    if (element === undefined || gate === undefined || element.deployState !== 'DEPLOYING') {
      continue;
    }
    const { state: next, verdict } = observeGate(gate.rules, gate.expression, state, observationOf(element), now);
    const reason = gateWaitingReason(element.definition.name, gate.rules, next);
    if (verdict === 'PASS') {
      effects.push(recordEvent('GATE_PASSED', { elementId, observed: next.observed, waitedMs: now - state.startedAt }));
      passed.push({
        elementId,
        deployState: 'DEPLOYED',
        lockState: 'LOCKED',
        message: element.message,
        result: true,
      });
      continue;
    }
    if (verdict === 'FAIL') {
      const why = `health gate missed its deadline (${gate.rules.deadlineMs ?? 0} ms): ${reason}`;
      effects.push(recordEvent('GATE_FAILED', { elementId, observed: next.observed, reason: why }));
      failed.push({ elementId, deployState: 'DEPLOYED', lockState: 'LOCKED', message: why, result: false });
      continue;
    }
    if (next.observed !== state.observed || (next.holdingSince === null) !== (state.holdingSince === null)) {
      effects.push(
        recordEvent('GATE_OBSERVED', {
          elementId,
          holds: next.holdingSince !== null,
          observed: next.observed,
          reason,
        }),
      );
    }
    let kept = next;
    if (now >= state.requestedAt + pollMs && element.participantId !== null) {
      kept = { ...next, requestedAt: now };
      if (!asked.has(element.participantId)) {
        asked.add(element.participantId);
        effects.push({ kind: 'REQUEST_STATUS', participantId: element.participantId });
      }
    }
    remaining[elementId] = kept;
  }
  const operation: InstanceOperation = { ...running, control: { ...running.control, gates: remaining } };
  let step: InstanceStep = { target, removed: false, operation, operations: [{ operation, isNew: false }], effects };
  const phase = running.phase ?? 0;
  if (passed.length > 0) {
    step = chained(step, runtimeAnswer(step.target, operation, phase, passed, false, null, now, context));
  }
  const current = step.operation;
  if (failed.length > 0 && current?.state === 'RUNNING') {
    const message = failed[0]?.message ?? null;
    step = chained(step, runtimeAnswer(step.target, current, phase, failed, true, message, now, context));
  }
  return step;
}
