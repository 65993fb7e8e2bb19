import type { InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { isElementTransitional } from './phase-planner';
import type { StartPhaseOf } from './phase-planner';

/** The element node template names an element's node template depends on (`dependsOn`), by template name. */
export type DependsOnOf = (templateName: string) => readonly string[];

/** Orders that follow `dependsOn` forwards: an element starts once every element it depends on is done. */
const FORWARD_DEPENDENCY_ORDERS: ReadonlySet<InstanceOrder> = new Set(['DEPLOY', 'UNLOCK']);
/** Orders that follow it backwards: an element stops only once every element that depends on it has. */
const REVERSE_DEPENDENCY_ORDERS: ReadonlySet<InstanceOrder> = new Set(['UNDEPLOY', 'LOCK', 'DELETE']);

/**
 * For each element, the ids of the elements it must wait for in this order: for deploy and unlock those
 * it depends on; for undeploy, lock and delete those that depend on it (the graph reversed). Other orders
 * (update, migrate, prepare, review) follow phases or stages only, as ONAP does.
 */
export function dependencyWaits(
  order: InstanceOrder,
  elements: Readonly<Record<string, InstanceElement>>,
  dependsOnOf: DependsOnOf,
): ReadonlyMap<string, readonly string[]> {
  const forward = FORWARD_DEPENDENCY_ORDERS.has(order);
  if (!forward && !REVERSE_DEPENDENCY_ORDERS.has(order)) {
    return new Map();
  }
  const idsByName = new Map<string, string[]>();
  for (const element of Object.values(elements)) {
    idsByName.set(element.definition.name, [...(idsByName.get(element.definition.name) ?? []), element.id]);
  }
  const waits = new Map<string, string[]>();
  for (const element of Object.values(elements)) {
    for (const name of dependsOnOf(element.definition.name)) {
      for (const dependencyId of idsByName.get(name) ?? []) {
        const [waiting, awaited] = forward ? [element.id, dependencyId] : [dependencyId, element.id];
        waits.set(waiting, [...(waits.get(waiting) ?? []), awaited]);
      }
    }
  }
  return waits;
}

/**
 * The elements of the open phase that may be dispatched now: still in transition, and every element they
 * wait for has left its transition (reached the order's target). Without dependencies, every element of
 * the phase is ready at once, exactly as phases alone behave.
 */
export function readyInPhase(
  elements: Readonly<Record<string, InstanceElement>>,
  phase: number,
  startPhaseOf: StartPhaseOf,
  waits: ReadonlyMap<string, readonly string[]>,
): InstanceElement[] {
  return Object.values(elements).filter(
    (element) =>
      isElementTransitional(element) &&
      startPhaseOf(element) === phase &&
      (waits.get(element.id) ?? []).every((awaitedId) => {
        const awaited = elements[awaitedId];
        return awaited === undefined || !isElementTransitional(awaited);
      }),
  );
}

/**
 * What one applied ACK unblocks: elements of the open phase that are ready after it and were not before.
 * They were not dispatched yet (a blocked element is never described in a message), so each goes out once.
 */
export function newlyReady(
  before: Readonly<Record<string, InstanceElement>>,
  after: Readonly<Record<string, InstanceElement>>,
  phase: number,
  startPhaseOf: StartPhaseOf,
  waits: ReadonlyMap<string, readonly string[]>,
): InstanceElement[] {
  const wasReady = new Set(readyInPhase(before, phase, startPhaseOf, waits).map((element) => element.id));
  return readyInPhase(after, phase, startPhaseOf, waits).filter((element) => !wasReady.has(element.id));
}

/**
 * The elements the first message of a phase describes: every element still in transition, except those of
 * the open phase that still wait for a dependency (they follow in their own message once it is done).
 */
export function describedAtPhaseStart(
  elements: Readonly<Record<string, InstanceElement>>,
  phase: number,
  startPhaseOf: StartPhaseOf,
  waits: ReadonlyMap<string, readonly string[]>,
): Set<string> {
  const ready = new Set(readyInPhase(elements, phase, startPhaseOf, waits).map((element) => element.id));
  return new Set(
    Object.values(elements)
      .filter(isElementTransitional)
      .filter((element) => startPhaseOf(element) !== phase || ready.has(element.id))
      .map((element) => element.id),
  );
}
