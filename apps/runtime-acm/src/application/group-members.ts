import type { AutomationComposition, ElementTemplate, InstanceElement, MemberIdOf } from '@acm/domain';
import {
  DomainError,
  countProblem,
  expandGroups,
  groupMembers,
  holdsGroupTokens,
  memberIndexOf,
  resizeGroup,
} from '@acm/domain';
import { createHash } from 'node:crypto';
import type { PlannedBody } from './plan-digest';

/**
 * A name-based UUID (RFC 4122 version 5, SHA-1) of `name` in the namespace `namespace` (itself a UUID): the same
 * arguments always give the same id.
 */
export function uuidV5(namespace: string, name: string): string {
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Member i of the group whose member 0 is `baseId`: a UUID v5 in member 0's id as namespace, so retries agree. */
export const groupMemberId: MemberIdOf = (baseId, index) => uuidV5(baseId, `member-${index}`);

/** An instance body with its groups expanded into members, or VALIDATION_FAILED naming every bad field. */
export function expandedRequest<R extends PlannedBody>(request: R, templates: readonly ElementTemplate[]): R {
  if (!templates.some((template) => template.group !== undefined)) {
    const counted = request.elements.find((element) => element.count !== undefined);
    if (counted === undefined) {
      return request;
    }
  }
  const { elements, problems } = expandGroups(request.elements, templates, groupMemberId);
  if (problems.length > 0) {
    throw new DomainError('VALIDATION_FAILED', problems.join('\n'), { problems });
  }
  return { ...request, elements };
}

/** What an UPDATE of a deployed instance does to its groups: the members it adds and the ones it removes. */
export interface GroupCountChange {
  readonly added: Record<string, InstanceElement>;
  readonly removed: readonly string[];
}

export const NO_COUNT_CHANGE: GroupCountChange = { added: {}, removed: [] };

/**
 * The count changes an UPDATE body asks of a deployed instance: `count` on a group's member 0. A count on another
 * element, not an integer or outside the bounds is a VALIDATION_FAILED naming the field.
 */
export function countChangeOf(
  current: AutomationComposition,
  request: Pick<PlannedBody, 'elements'>,
  templates: readonly ElementTemplate[],
): GroupCountChange {
  const byName = new Map(templates.map((template) => [template.name, template]));
  const problems: string[] = [];
  const added: Record<string, InstanceElement> = {};
  const removed: string[] = [];
  for (const change of request.elements) {
    if (change.count === undefined) {
      continue;
    }
    const field = `elements[${JSON.stringify(change.id)}].count`;
    const element = current.elements[change.id];
    const template = element === undefined ? undefined : byName.get(element.definition.name);
    if (element === undefined || template?.group === undefined) {
      problems.push(`${field}: applies only to an element of a group (a node template with count)`);
      continue;
    }
    if (memberIndexOf(element) !== 0) {
      problems.push(
        `${field}: a group's count is given on its member 0 (${groupMembers(current.elements, template.name)[0]?.id ?? 'none'})`,
      );
      continue;
    }
    const refused = countProblem(change.count, template.group);
    if (refused !== null) {
      problems.push(`${field}: ${refused}`);
      continue;
    }
    const resize = resizeGroup(current.elements, template, change.count, groupMemberId);
    for (const member of resize.added) {
      added[member.id] = member;
    }
    removed.push(...resize.removed);
  }
  if (problems.length > 0) {
    throw new DomainError('VALIDATION_FAILED', problems.join('\n'), { problems });
  }
  return { added, removed };
}

/** The ids of every member of the groups whose element a body lists (by any member's id). */
export function memberIdsOfListedGroups(
  current: AutomationComposition,
  listed: ReadonlySet<string>,
  templates: readonly ElementTemplate[],
): string[] {
  const groups = new Set(templates.filter((template) => template.group !== undefined).map((template) => template.name));
  const listedGroups = new Set(
    [...listed].flatMap((id) => {
      const name = current.elements[id]?.definition.name;
      return name !== undefined && groups.has(name) ? [name] : [];
    }),
  );
  return Object.values(current.elements)
    .filter((element) => listedGroups.has(element.definition.name))
    .map((element) => element.id);
}

/**
 * A MIGRATE (or precheck) body with the target definition's groups expanded as a create expands them: the element a
 * body lists for a group becomes its members. A group the instance already holds keeps its count unless the body
 * gives one, and its members other than member 0 (a body copied from GET lists them all) come from member 0's
 * expansion; a value of member 0 that is the source's substitution of a `%index%`/`%count%` template value is left to
 * the target's substitution, so each member gets its own.
 */
export function expandedMigrationRequest<R extends PlannedBody>(
  current: AutomationComposition,
  request: R,
  templates: readonly ElementTemplate[],
): R {
  const groups = new Map(
    templates.flatMap((template) => (template.group === undefined ? [] : [[template.name, template] as const])),
  );
  if (groups.size === 0) {
    return expandedRequest(request, templates);
  }
  const listed = new Set(request.elements.map((element) => element.id));
  const elements = request.elements.flatMap((element) => {
    const template = groups.get(element.definition.name);
    const stored = current.elements[element.id];
    if (template === undefined || stored === undefined) {
      return [element];
    }
    const members = groupMembers(current.elements, stored.definition.name);
    const first = members[0];
    if (memberIndexOf(stored) !== 0) {
      return first !== undefined && listed.has(first.id) ? [] : [element];
    }
    const properties = Object.fromEntries(
      Object.entries(element.properties).filter(
        ([key, value]) =>
          !(
            holdsGroupTokens(template.properties?.[key]) &&
            JSON.stringify(value) === JSON.stringify(stored.properties[key])
          ),
      ),
    );
    return [{ ...element, properties, count: element.count ?? members.length }];
  });
  return expandedRequest({ ...request, elements }, templates);
}
