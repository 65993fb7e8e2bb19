import type { InstanceElement, JsonObject } from '../model';
import type { UpdateClassification } from '../instance/update-classification';
import { updateClassification } from '../instance/update-classification';
import { transitionalStateFor } from '../instance/instance-lifecycle';
import type { ElementTemplate } from './element-template';

const UNDEPLOYING = transitionalStateFor('UNDEPLOY');
const DELETING = transitionalStateFor('DELETE');
const DEPLOYING = transitionalStateFor('DEPLOY');
const UPDATING = transitionalStateFor('UPDATE');

/**
 * The steps of an UPDATE that replaces or removes elements, inside its one operation (OpenTofu splits a replaced
 * resource into a destroy node and a create node for the same reason: destroys run in reverse graph order, creates
 * in forward order). The operation walks its phases upwards, as every UPDATE does; the phases of these steps are
 * negative, so they all come before phase 0, the in-place PROPERTIES_UPDATE of the other changed elements (which
 * then already sees the replaced elements deployed again). In the order they run:
 *
 * 0. UNDEPLOY of the replaced elements and the orphans, start phases descending;
 * 1. DELETE of the orphans, start phases descending (the element then leaves the instance);
 * 2. DEPLOY of the replaced elements with their new properties (and of the new element of a create-before-destroy
 *    replace), start phases ascending;
 * 3. UNDEPLOY, then 4. DELETE of the old elements of a create-before-destroy type, start phases descending;
 * then phase 0: the in-place update.
 *
 * A phase is `-(SEGMENTS - segment) * STRIDE + offset`, the offset being the start phase (ascending steps) or
 * `STRIDE - 1 - startPhase` (descending ones), so the phase alone says the step and the element's start phase. An
 * element's step follows from its own state: an UPDATE of ONAP's (every element UPDATING) has all of them in phase 0
 * and runs exactly as before.
 */
export const REPLACE_PHASE_STRIDE = 1_000_000;

/** The ONAP order each step sends to the participants (ordinary messages: a participant sees nothing new). */
export type ReplaceStepOrder = 'UNDEPLOY' | 'DELETE' | 'DEPLOY';

interface ReplaceSegment {
  readonly order: ReplaceStepOrder;
  /** Start phases descending (a destroy) or ascending (a create). */
  readonly descending: boolean;
}

const SEGMENTS: readonly ReplaceSegment[] = [
  { order: 'UNDEPLOY', descending: true },
  { order: 'DELETE', descending: true },
  { order: 'DEPLOY', descending: false },
  { order: 'UNDEPLOY', descending: true },
  { order: 'DELETE', descending: true },
];

/** One step of a replacing UPDATE, as a phase encodes it. */
export interface ReplaceStep {
  readonly segment: number;
  readonly order: ReplaceStepOrder;
  /** The start phase of the elements the message is about (what the wire message carries). */
  readonly startPhase: number;
}

function phaseIn(segment: number, startPhase: number): number {
  const descending = SEGMENTS[segment]?.descending ?? false;
  const offset = descending ? REPLACE_PHASE_STRIDE - 1 - startPhase : startPhase;
  return -(SEGMENTS.length - segment) * REPLACE_PHASE_STRIDE + offset;
}

/** The step a phase of a replacing UPDATE stands for; null for phase 0 and above (the in-place update). */
export function replaceStepOf(phase: number): ReplaceStep | null {
  if (phase >= 0 || phase < -SEGMENTS.length * REPLACE_PHASE_STRIDE) {
    return null;
  }
  const segment = SEGMENTS.length + Math.floor(phase / REPLACE_PHASE_STRIDE);
  const offset = phase + (SEGMENTS.length - segment) * REPLACE_PHASE_STRIDE;
  const step = SEGMENTS[segment];
  if (step === undefined) {
    return null;
  }
  return { segment, order: step.order, startPhase: step.descending ? REPLACE_PHASE_STRIDE - 1 - offset : offset };
}

/** Whether two phases of an UPDATE belong to different steps (a new step's first message is its first phase). */
export function isNewReplaceStep(from: number | null, to: number): boolean {
  return from === null || replaceStepOf(from)?.segment !== replaceStepOf(to)?.segment;
}

/**
 * The phase of an element in an UPDATE, from its state: a replaced element or an orphan being destroyed, deleted or
 * created is in its step's phase; everything else (ONAP's UPDATING elements) in phase 0.
 */
export function updatePhaseOf(element: InstanceElement, template: ElementTemplate | undefined): number {
  const startPhase = Math.min(template?.startPhase ?? 0, REPLACE_PHASE_STRIDE - 1);
  const late = element.migrationState === 'REMOVED' && template?.createBeforeDestroy === true;
  switch (element.deployState) {
    case 'UNDEPLOYING':
      return phaseIn(late ? 3 : 0, startPhase);
    case 'DELETING':
      return phaseIn(late ? 4 : 1, startPhase);
    case 'DEPLOYING':
      return phaseIn(2, startPhase);
    default:
      return 0;
  }
}

/**
 * After an ACK of a replacing UPDATE, an element whose undeploy completed moves on to its next step: an orphan (or
 * the old element of a create-before-destroy replace, both marked REMOVED) to its DELETE, a replaced one to its
 * DEPLOY. Only elements that were UNDEPLOYING before the ACK move, so ONAP's UPDATE (no element undeploys) is
 * untouched.
 */
export function nextReplaceStates(
  before: Readonly<Record<string, InstanceElement>>,
  after: Readonly<Record<string, InstanceElement>>,
): Record<string, InstanceElement> {
  return Object.fromEntries(
    Object.entries(after).map(([id, element]): [string, InstanceElement] => {
      if (before[id]?.deployState !== 'UNDEPLOYING' || element.deployState !== 'UNDEPLOYED') {
        return [id, element];
      }
      return [id, { ...element, ...(element.migrationState === 'REMOVED' ? DELETING : DEPLOYING) }];
    }),
  );
}

/** What an UPDATE of a deployed instance asks, for the replace rules: the new properties and the orphans rule. */
export interface ReplaceUpdate {
  /** The properties each element of the body will have (after ONAP's merge, protected), by element id. */
  readonly next: Readonly<Record<string, JsonObject>>;
  readonly removeOrphans: boolean;
  /** The members a lower group count removes: orphans whatever `removeOrphans` says (instance/groups.ts). */
  readonly orphaned?: readonly string[];
}

/** How a replacing UPDATE starts: its elements, what was classified, and the new elements a replace created. */
export interface ReplaceStart {
  readonly elements: Record<string, InstanceElement>;
  readonly classification: UpdateClassification;
  /** Create-before-destroy: the old element id and the id of the element that replaces it. */
  readonly created: ReadonlyArray<{ readonly replaced: string; readonly by: string }>;
}

/** Leftovers of a replacing UPDATE that failed: a retry must finish them even if no property changes any more. */
function leftoverOf(element: InstanceElement): boolean {
  return element.migrationState === 'REMOVED' || element.deployState !== 'DEPLOYED';
}

/**
 * Whether an UPDATE must run as a replacing one: a replace or an orphan, or what a failed one left unfinished.
 * Otherwise the UPDATE is ONAP's: one PROPERTIES_UPDATE of every element.
 */
export function isReplacingUpdate(
  elements: Readonly<Record<string, InstanceElement>>,
  classification: UpdateClassification,
): boolean {
  return (
    classification.replaced.length > 0 ||
    classification.orphans.length > 0 ||
    Object.values(elements).some((element) => element.deployState !== 'UPDATING' && leftoverOf(element))
  );
}

/**
 * The elements as a replacing UPDATE starts them (pure; `newId` names the new element of a create-before-destroy
 * replace): a replaced element UNDEPLOYING with its new properties (its deploy follows), or, for a
 * create-before-destroy type, a new element DEPLOYING with the new properties and the old one REMOVED (undeployed
 * and deleted after); an orphan REMOVED and UNDEPLOYING; an element changed in place UPDATING; an unchanged one as
 * it is. What a failed replacing UPDATE left (an element undeployed, a REMOVED one) is taken up again.
 */
export function startReplaceUpdate(
  elements: Readonly<Record<string, InstanceElement>>,
  update: ReplaceUpdate,
  templates: readonly ElementTemplate[],
  newId: () => string,
): ReplaceStart {
  const classification = updateClassification({
    elements,
    next: new Map(Object.entries(update.next)),
    templates,
    removeOrphans: update.removeOrphans,
    ...(update.orphaned === undefined ? {} : { orphaned: new Set(update.orphaned) }),
  });
  const byName = new Map(templates.map((template) => [template.name, template]));
  const started: Record<string, InstanceElement> = {};
  const created: Array<{ replaced: string; by: string }> = [];
  for (const change of classification.changes) {
    const element = elements[change.elementId];
    if (element === undefined) {
      continue;
    }
    const properties = update.next[change.elementId] ?? element.properties;
    const fresh = { ...element, message: null, subState: 'NONE' as const };
    if (element.migrationState === 'REMOVED') {
      // A destroy a failed UPDATE left half-way: undeploy again, or delete when the undeploy was done.
      const undeployed = element.deployState === 'UNDEPLOYED' || element.deployState === 'DELETING';
      started[element.id] = { ...fresh, ...(undeployed ? DELETING : UNDEPLOYING) };
      continue;
    }
    switch (change.kind) {
      case 'ORPHAN':
        started[element.id] = { ...fresh, migrationState: 'REMOVED', ...UNDEPLOYING };
        break;
      case 'REPLACE':
        if (byName.get(element.definition.name)?.createBeforeDestroy === true) {
          const id = newId();
          created.push({ replaced: element.id, by: id });
          started[id] = { ...fresh, id, properties, outProperties: {}, ...DEPLOYING };
          started[element.id] = { ...fresh, migrationState: 'REMOVED', ...UNDEPLOYING };
        } else {
          started[element.id] = { ...fresh, properties, ...UNDEPLOYING };
        }
        break;
      case 'UPDATE':
        started[element.id] = { ...fresh, properties, ...(retryStateOf(element) ?? UPDATING) };
        break;
      case 'UNCHANGED': {
        const retry = retryStateOf(element);
        started[element.id] = retry === undefined ? element : { ...fresh, ...retry };
        break;
      }
    }
  }
  return { elements: started, classification, created };
}

/** The state a retry gives an element a failed replacing UPDATE left out of place; undefined when it is deployed. */
function retryStateOf(element: InstanceElement): typeof UNDEPLOYING | undefined {
  switch (element.deployState) {
    case 'DEPLOYED':
    case 'UPDATING':
      return undefined;
    case 'UNDEPLOYING':
      return UNDEPLOYING;
    default:
      return DEPLOYING;
  }
}

/** Why a replacing UPDATE cannot run on these templates (a start phase its phases cannot encode); empty when it can. */
export function replacePhaseProblems(templates: readonly ElementTemplate[]): string[] {
  return templates
    .filter((template) => template.startPhase >= REPLACE_PHASE_STRIDE)
    .map(
      (template) =>
        `element ${template.name}: startPhase ${template.startPhase} is too high for an UPDATE that replaces or removes elements (at most ${REPLACE_PHASE_STRIDE - 1})`,
    );
}

/**
 * Why an UPDATE_REVERT (ONAP's rollback: one PROPERTIES_UPDATE back to the snapshot) cannot undo what a replacing
 * UPDATE did, or null when it can: an element left undeployed or being removed, an element removed or added, or a
 * non-updatable property the rollback would have to change in place. For ONAP's files (no such flag) it is always
 * null.
 */
export function replaceRollbackProblem(
  elements: Readonly<Record<string, InstanceElement>>,
  snapshot: Readonly<Record<string, InstanceElement>>,
  templates: readonly ElementTemplate[],
): string | null {
  const unfinished = Object.values(elements)
    .filter((element) => element.deployState !== 'UPDATING' && leftoverOf(element))
    .map((element) => element.id)
    .sort();
  const removed = Object.keys(snapshot).filter((id) => elements[id] === undefined);
  const added = Object.keys(elements).filter((id) => snapshot[id] === undefined);
  const replaced = updateClassification({
    elements,
    next: new Map(Object.entries(snapshot).map(([id, element]) => [id, element.properties])),
    templates,
    removeOrphans: false,
  }).changes.filter((change) => change.kind === 'REPLACE');
  const reasons = [
    ...(unfinished.length > 0 ? [`elements ${unfinished.join(', ')} are undeployed or being removed`] : []),
    ...(removed.length > 0 ? [`elements ${removed.sort().join(', ')} were removed`] : []),
    ...(added.length > 0 ? [`elements ${added.sort().join(', ')} were added`] : []),
    ...replaced.map((change) => `element ${change.elementId} would change ${change.forcedBy.join(', ')} in place`),
  ];
  return reasons.length === 0
    ? null
    : `a rollback cannot undo a replace or an orphan removal (${reasons.join('; ')}): send an UPDATE with the values wanted instead`;
}
