import type { StageSets } from '../planners/stage-planner';
import type { InstanceElement } from '../model';
import { SELF_REFERENCE, hasReferences, referencesIn } from '../instance/element-references';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { StartPhaseOf } from '../planners/phase-planner';
import { dependencyWaits } from '../planners/dependency-planner';
import { isStagedOrder, stagePhaseOf } from '../planners/stage-planner';
import type { WaitConditionSettings } from '../control/wait-condition';
import { WAIT_CONDITION_TYPE, waitConditionSettingsOf } from '../control/wait-condition';
import { updatePhaseOf } from './replace-steps';
import { removedMemberWaits } from '../instance/groups';
import type { ElementTemplate, OperationTemplates } from './element-template';

export type { ElementTemplate, OperationTemplates } from './element-template';

/** Orders that walk start phases; the others are staged (see isStagedOrder) or single-message. */
const PHASED_ORDERS: ReadonlySet<InstanceOrder> = new Set(['DEPLOY', 'UNDEPLOY', 'DELETE', 'LOCK', 'UNLOCK']);

const FALLBACK_STAGES: StageSets = { prepare: [0], migrate: [0] };

function keyOf(name: string, version: string): string {
  return `${name}|${version}`;
}

/**
 * The phase of an element in an order: its start phase for deploy-like orders, its stage for migrate,
 * migration rollback and prepare (ONAP's StageScanner), 0 for the single-message orders.
 */
export function phaseLookup(order: InstanceOrder, templates: OperationTemplates): StartPhaseOf {
  if (PHASED_ORDERS.has(order)) {
    const phases = new Map(
      templates.own.map((template) => [keyOf(template.name, template.version), template.startPhase]),
    );
    return (element) => phases.get(keyOf(element.definition.name, element.definition.version)) ?? 0;
  }
  if (order === 'UPDATE') {
    // ONAP's UPDATE is one message (phase 0); the steps of a replace have phases of their own (replace-steps.ts).
    const templatesByKey = new Map(templates.own.map((template) => [keyOf(template.name, template.version), template]));
    return (element) =>
      updatePhaseOf(element, templatesByKey.get(keyOf(element.definition.name, element.definition.version)));
  }
  if (!isStagedOrder(order)) {
    return () => 0;
  }
  const stagesIn = (side: readonly ElementTemplate[] | null): Map<string, StageSets> =>
    new Map((side ?? []).map((template) => [keyOf(template.name, template.version), template.stage]));
  const own = stagesIn(templates.own);
  const other = stagesIn(templates.other);
  // Where an element's stages come from: the composition it is going to; a REMOVED one's from the one it leaves.
  const [going, leaving] = order === 'MIGRATE' ? [other, own] : [own, other];
  return stagePhaseOf(order, (element) => {
    const id = keyOf(element.definition.name, element.definition.version);
    const [first, second] = element.migrationState === 'REMOVED' ? [leaving, going] : [going, leaving];
    return first.get(id) ?? second.get(id) ?? FALLBACK_STAGES;
  });
}

/** Who waits for whom in this order, from the own composition's `dependsOn` (see dependencyWaits). */
export function waitsOf(
  order: InstanceOrder,
  elements: Readonly<Record<string, InstanceElement>>,
  templates: OperationTemplates,
): ReadonlyMap<string, readonly string[]> {
  const dependsOn = new Map(templates.own.map((template) => [template.name, template.dependsOn]));
  // A reference in an instance's element properties is an edge of that instance's graph only.
  for (const element of Object.values(elements)) {
    if (!hasReferences(element.properties)) {
      continue;
    }
    const referenced = referencesIn(element.properties)
      .map((reference) => reference.element)
      .filter((name) => name !== SELF_REFERENCE && name !== element.definition.name);
    if (referenced.length > 0) {
      const name = element.definition.name;
      dependsOn.set(name, [...new Set([...(dependsOn.get(name) ?? []), ...referenced])]);
    }
  }
  const dependsOnOf = (name: string): readonly string[] => dependsOn.get(name) ?? [];
  return order === 'UPDATE'
    ? replaceWaits(elements, templates, dependsOnOf)
    : dependencyWaits(order, elements, dependsOnOf);
}

/**
 * The waits of a replacing UPDATE: a create waits for what it depends on, a destroy for what depends on it, each
 * only for elements of the same step (the same phase); ONAP's in-place update waits for nothing.
 */
function replaceWaits(
  elements: Readonly<Record<string, InstanceElement>>,
  templates: OperationTemplates,
  dependsOnOf: (name: string) => readonly string[],
): ReadonlyMap<string, readonly string[]> {
  const phaseOf = phaseLookup('UPDATE', templates);
  const forward = dependencyWaits('DEPLOY', elements, dependsOnOf);
  const reverse = dependencyWaits('UNDEPLOY', elements, dependsOnOf);
  const removedMembers = removedMemberWaits(elements, templates.own);
  const waits = new Map<string, readonly string[]>();
  for (const element of Object.values(elements)) {
    const phase = phaseOf(element);
    if (phase >= 0) {
      continue;
    }
    const awaited = [
      ...((element.deployState === 'DEPLOYING' ? forward : reverse).get(element.id) ?? []),
      ...(removedMembers.get(element.id) ?? []),
    ];
    const sameStep = awaited.filter((id) => {
      const other = elements[id];
      return other !== undefined && phaseOf(other) === phase;
    });
    if (sameStep.length > 0) {
      waits.set(element.id, sameStep);
    }
  }
  return waits;
}

/** The wait conditions of the own composition, by element node template name, with their settings. */
export function waitConditionsOf(templates: OperationTemplates): ReadonlyMap<string, WaitConditionSettings> {
  return new Map(
    templates.own
      .filter(isWaitConditionTemplate)
      .map((template) => [template.name, waitConditionSettingsOf(template.properties ?? {}).settings]),
  );
}

/** Whether an element node template is a wait condition: its type is, or derives from, the wait-condition type. */
export function isWaitConditionTemplate(template: Pick<ElementTemplate, 'types'>): boolean {
  return template.types?.includes(WAIT_CONDITION_TYPE) ?? false;
}
