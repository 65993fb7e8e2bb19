import type { InstanceElement, JsonObject } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { ElementReference, ReferencedElements, ResolvedReference } from '../instance/element-references';
import {
  KNOWN_AFTER_DEPLOY,
  SELF_REFERENCE,
  anyHasReferences,
  hasReferences,
  referencedElementsOf,
  resolveReferences,
} from '../instance/element-references';
import { isElementTransitional } from '../planners/phase-planner';
import type { OperationEffect, SendPhaseEffect } from './effects';
import { recordEvent } from './effects';
import { runtimeAnswer } from './ack-input';
import type { ElementTemplate } from './topology';
import type { InstanceStep, InstanceStepContext, ReportedElement } from './instance-types';
import { chained } from './step-parts';
import { MASKED_VALUE } from '../plan/instance-diff';

/**
 * The orders whose participants act on the properties they receive: a reference that cannot be resolved when one
 * of their elements is dispatched fails that element. The other orders carry the properties too (ONAP's messages
 * always do) but act on none of them, so what is not known yet goes as null.
 */
const RESOLVING_ORDERS: ReadonlySet<InstanceOrder> = new Set(['DEPLOY', 'UPDATE']);

/**
 * How an element the runtime fails for an unresolved reference is left, as a participant reports a failed order: a
 * failed deploy leaves it undeployed, a failed update leaves it deployed with its lock state unchanged (ONAP's
 * participants answer so).
 */
function failedStateOf(
  order: InstanceOrder,
  element: InstanceElement,
): Pick<ReportedElement, 'deployState' | 'lockState'> {
  return order === 'UPDATE'
    ? { deployState: 'DEPLOYED', lockState: element.lockState }
    : { deployState: 'UNDEPLOYED', lockState: 'NONE' };
}

/** What resolving one dispatched element gave: its resolved references, or why it cannot go. */
type ElementResolution =
  | { readonly ok: true; readonly resolved: readonly ResolvedReference[] }
  | { readonly ok: false; readonly message: string };

function segmentsOf(at: string): string[] {
  return at.split(/[.[\]]/).filter((segment) => segment !== '');
}

function isSensitiveReference(
  resolved: ResolvedReference,
  own: ElementTemplate | undefined,
  templateOf: (name: string) => ElementTemplate | undefined,
  selfName: string,
): boolean {
  const referenced = templateOf(resolved.reference.element === SELF_REFERENCE ? selfName : resolved.reference.element);
  const ownSensitive = new Set(own?.sensitive ?? []);
  const readSensitive = new Set(referenced?.sensitive ?? []);
  const read: ElementReference = resolved.reference;
  return (
    segmentsOf(resolved.at).some((segment) => ownSensitive.has(segment)) ||
    [read.name, ...read.path].some((segment) => readSensitive.has(String(segment)))
  );
}

/** The values references gave, by where each is written, as the history and the plan show them (sensitive masked). */
function shownValues(
  resolved: readonly ResolvedReference[],
  selfName: string,
  templateOf: (name: string) => ElementTemplate | undefined,
): JsonObject {
  const own = templateOf(selfName);
  return Object.fromEntries(
    resolved.map((entry) => [
      entry.at,
      isSensitiveReference(entry, own, templateOf, selfName) ? MASKED_VALUE : entry.value,
    ]),
  );
}

/**
 * What the references of an element read from the instance as it is, by where each is written, for a plan: a value
 * not reported yet is shown as "(known after deploy)". Null when the element holds no reference.
 */
export function plannedReferenceValues(
  element: InstanceElement,
  instanceElements: Readonly<Record<string, InstanceElement>>,
  templates: readonly ElementTemplate[],
): JsonObject | null {
  const byName = new Map(templates.map((template) => [template.name, template]));
  const templateOf = (name: string): ElementTemplate | undefined => byName.get(name);
  const resolution = resolveElement(element, instanceElements, templateOf, () => KNOWN_AFTER_DEPLOY);
  return resolution.ok && resolution.resolved.length > 0
    ? shownValues(resolution.resolved, element.definition.name, templateOf)
    : null;
}

/** The element's references resolved against the instance as the message describes it. */
function resolveElement(
  element: InstanceElement,
  instanceElements: Readonly<Record<string, InstanceElement>>,
  templateOf: (name: string) => ElementTemplate | undefined,
  placeholder?: (reference: ElementReference) => unknown,
): ElementResolution {
  const name = element.definition.name;
  const template = templateOf(name);
  const templateProperties = template?.properties ?? {};
  if (!hasReferences(templateProperties) && !hasReferences(element.properties)) {
    return { ok: true, resolved: [] };
  }
  const all = referencedElementsOf({ elements: instanceElements }, (other) => templateOf(other)?.properties);
  // SELF (and the element's own node template name, read as SELF) is this element, even as a member of a group.
  const own = {
    templateProperties: templateProperties,
    properties: element.properties,
    outProperties: element.outProperties,
  };
  const elements: ReferencedElements = (other, member) =>
    other === name && member === undefined ? own : all(other, member);
  const fromTemplate = resolveReferences(templateProperties, name, elements, placeholder);
  const fromInstance = resolveReferences(element.properties, name, elements, placeholder);
  const unresolved = [
    ...(fromTemplate.ok ? [] : fromTemplate.unresolved),
    ...(fromInstance.ok ? [] : fromInstance.unresolved),
  ];
  if (unresolved.length > 0) {
    return { ok: false, message: [...new Set(unresolved)].join('; ') };
  }
  return {
    ok: true,
    resolved: [...(fromTemplate.ok ? fromTemplate.resolved : []), ...(fromInstance.ok ? fromInstance.resolved : [])],
  };
}

/**
 * After every step: the elements a phase message of a deploy or an update sets going are resolved first. Those with
 * a reference that cannot be resolved (the element read has not reported the attribute) leave the message and fail,
 * through the ACK rules, with a message naming the reference, so the operation's failure and retry rules apply as to
 * any failed element. The values the others read are recorded in the history (REFERENCES_RESOLVED), sensitive ones
 * masked. A step whose messages set no element with references going is returned as it is.
 */
export function settleReferences(step: InstanceStep, now: number, context: InstanceStepContext): InstanceStep {
  const operation = step.operation;
  if (
    context.planning === true ||
    operation === null ||
    operation.state !== 'RUNNING' ||
    step.removed ||
    !RESOLVING_ORDERS.has(operation.order)
  ) {
    return step;
  }
  if (!anyHasReferences(context.templates.own) && !anyInstanceReference(step)) {
    return step;
  }
  const templates = new Map(context.templates.own.map((template) => [template.name, template]));
  const templateOf = (name: string): ElementTemplate | undefined => templates.get(name);
  const effects: OperationEffect[] = [];
  const failures = new Map<number, Array<{ id: string; message: string }>>();
  for (const effect of step.effects) {
    if (effect.kind !== 'SEND_PHASE') {
      effects.push(effect);
      continue;
    }
    const failed: Array<{ id: string; message: string }> = [];
    const resolvedEvents: OperationEffect[] = [];
    for (const id of effect.dispatched) {
      const element = effect.instance.elements[id];
      if (element === undefined) {
        continue;
      }
      const resolution = resolveElement(element, effect.instance.elements, templateOf);
      if (!resolution.ok) {
        failed.push({ id, message: resolution.message });
        continue;
      }
      if (resolution.resolved.length > 0) {
        const values = shownValues(resolution.resolved, element.definition.name, templateOf);
        resolvedEvents.push(recordEvent('REFERENCES_RESOLVED', { elementId: id, values }));
      }
    }
    effects.push(...resolvedEvents);
    if (failed.length === 0) {
      effects.push(effect);
      continue;
    }
    effects.push(withoutElements(effect, new Set(failed.map((entry) => entry.id))));
    failures.set(effect.phase, [...(failures.get(effect.phase) ?? []), ...failed]);
  }
  let settled: InstanceStep = { ...step, effects };
  for (const [phase, failed] of failures) {
    const current = settled.operation;
    if (current === null || current.state !== 'RUNNING' || settled.removed) {
      break;
    }
    const reports = failed.flatMap(({ id, message }): ReportedElement[] => {
      const element = settled.target.elements[id];
      return element !== undefined && isElementTransitional(element)
        ? [{ elementId: id, ...failedStateOf(current.order, element), message, result: false }]
        : [];
    });
    if (reports.length > 0) {
      const message = reports.map((report) => report.message).join('; ');
      settled = chained(settled, runtimeAnswer(settled.target, current, phase, reports, true, message, now, context));
    }
  }
  return settled;
}

function anyInstanceReference(step: InstanceStep): boolean {
  return step.effects.some(
    (effect) =>
      effect.kind === 'SEND_PHASE' &&
      effect.dispatched.some((id) => hasReferences(effect.instance.elements[id]?.properties)),
  );
}

/** The message without the elements the runtime fails instead of sending them. */
function withoutElements(effect: SendPhaseEffect, failed: ReadonlySet<string>): SendPhaseEffect {
  const described =
    effect.describe ??
    new Set(
      Object.values(effect.instance.elements)
        .filter(isElementTransitional)
        .map((element) => element.id),
    );
  const dispatched = effect.dispatched.filter((id) => !failed.has(id));
  return {
    ...effect,
    describe: new Set([...described].filter((id) => !failed.has(id))),
    dispatched,
    // Nothing left to set going: the message is recorded, not published (a first phase still opens the caches).
    ...(dispatched.length === 0 && !effect.firstPhase ? { publish: false } : {}),
  };
}
