import { shortText } from '@acm/input-guards';
import type { DeclaredReference } from './element-references';
import { SELF, describeReference, readElementReferences } from './element-references';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import type { ElementDefinitionInfo } from './service-template';
import { findCycles } from './validate-types';

/** One element of an instance request: its id, its node template and the properties the request gives it. */
export interface ReferencingElement {
  readonly id: string;
  readonly name: string;
  readonly properties: Record<string, unknown>;
}

/**
 * The references written in an instance's element properties, checked with the definition's rules: syntax, no
 * `get_attribute` on `SELF`, a named element node template of the instance, no element of a later start phase, and
 * no cycle through the definition's dependencies and the instance's references together. Problems are located at
 * `elements.<id>.properties.<path>`.
 */
export function checkInstanceReferences(
  templates: readonly ElementDefinitionInfo[],
  elements: readonly ReferencingElement[],
): ToscaProblem[] {
  const problems: ToscaProblem[] = [];
  const phaseOf = new Map(templates.map((template) => [template.name, template.startPhase]));
  const instanceNames = new Set(elements.map((element) => element.name));
  const membersOf = new Map<string, number>();
  for (const element of elements) {
    membersOf.set(element.name, (membersOf.get(element.name) ?? 0) + 1);
  }
  const edges = new Map(templates.map((template) => [template.name, new Set(template.dependsOn)]));
  const firstEdge = new Map<string, PathSegment[]>();
  for (const element of elements) {
    const read = readElementReferences(element.name, element.properties, ['elements', element.id, 'properties']);
    problems.push(...read.problems);
    for (const reference of read.value.filter((found) => found.element !== SELF)) {
      const problem = checkTarget(reference, element.name, phaseOf, instanceNames) ?? checkMember(reference, membersOf);
      if (problem !== null) {
        problems.push(problem);
        continue;
      }
      edges.set(element.name, new Set([...(edges.get(element.name) ?? []), reference.element]));
      const key = `${element.name}\u0000${reference.element}`;
      if (!firstEdge.has(key)) {
        firstEdge.set(key, [...reference.at, reference.fn, 0]);
      }
    }
  }
  if (firstEdge.size === 0) {
    return problems;
  }
  const names = [...edges.keys()];
  for (const cycle of findCycles(names, (name) => [...(edges.get(name) ?? [])].filter((next) => edges.has(next)))) {
    // Reported where an instance reference closes it; a cycle of the definition alone was refused at commission.
    const at = cycle
      .slice(1)
      .reduce<PathSegment[] | undefined>(
        (found, name, position) => found ?? firstEdge.get(`${cycle[position]}\u0000${name}`),
        undefined,
      );
    problems.push(
      problem(at ?? ['elements'], 'depends-on-cycle', `elements depend on each other in a loop: ${cycle.join(' -> ')}`),
    );
  }
  return problems;
}

function checkTarget(
  reference: DeclaredReference,
  referencing: string,
  phaseOf: ReadonlyMap<string, number>,
  instanceNames: ReadonlySet<string>,
): ToscaProblem | null {
  const at = [...reference.at, reference.fn, 0];
  const targetPhase = phaseOf.get(reference.element);
  if (targetPhase === undefined || !instanceNames.has(reference.element)) {
    const message = `${describeReference(reference)}: element ${shortText(referencing)} refers to ${shortText(reference.element)}, which is not an element of this instance`;
    return problem(at, 'reference', message);
  }
  const ownPhase = phaseOf.get(referencing) ?? 0;
  if (targetPhase > ownPhase) {
    const message = `element ${referencing} (startPhase ${ownPhase}) refers to (${describeReference(reference)}) ${reference.element}, which starts later (startPhase ${targetPhase}); an element may depend only on elements of its own or an earlier start phase`;
    return problem(at, 'depends-on-later-phase', message);
  }
  return null;
}

/** A member index within the group's members in this instance (an ordinary element has member 0 only). */
function checkMember(reference: DeclaredReference, membersOf: ReadonlyMap<string, number>): ToscaProblem | null {
  const members = membersOf.get(reference.element) ?? 0;
  if (reference.member === undefined || reference.member < members) {
    return null;
  }
  const message = `${describeReference(reference)}: member index ${reference.member} is out of bounds, ${shortText(reference.element)} has ${members} member(s) in this instance (indexes 0..${members - 1})`;
  return problem([...reference.at, reference.fn, 1], 'reference', message);
}
