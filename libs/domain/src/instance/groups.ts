import type { ConceptId, InstanceElement, JsonObject } from '../model';
import type { ElementTemplate, GroupRules } from '../operation/element-template';

/**
 * Groups (TOSCA 2.0 `count`, Heat's ResourceGroup): an element node template with a count is held by an instance as
 * that many members, each an ordinary element with its own id, states and history. How an instance gets them:
 * - the body lists ONE element for the group's node template, optionally with `count` (within the definition's
 *   bounds; absent: the node template's count);
 * - that element is member 0 and keeps its id; member i (i >= 1) gets an id derived from it and i (`memberId`, the
 *   runtime's UUID v5), so plans, retries and repeated calls name the same members;
 * - each member's description ends with ` #<index>` (what GET shows; ONAP's clients ignore it), from which the
 *   runtime reads the index back;
 * - `%index%` and `%count%` in the node template's property values (strings, nested anywhere) are substituted per
 *   member and written into the member's own properties, so a participant receives plain values.
 */
export const INDEX_TOKEN = '%index%';
export const COUNT_TOKEN = '%count%';

const MAX_DEPTH = 64;
const MEMBER_SUFFIX = / #(\d+)$/;

/** A group's rules, or undefined when the node template is an ordinary element. */
export function groupRulesOf(template: Pick<ElementTemplate, 'group'> | undefined): GroupRules | undefined {
  return template?.group;
}

/** Whether a value holds `%index%` or `%count%` anywhere. */
export function holdsGroupTokens(value: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) {
    return false;
  }
  if (typeof value === 'string') {
    return value.includes(INDEX_TOKEN) || value.includes(COUNT_TOKEN);
  }
  const items = Array.isArray(value)
    ? (value as unknown[])
    : typeof value === 'object' && value !== null
      ? Object.values(value)
      : [];
  return items.some((item) => holdsGroupTokens(item, depth + 1));
}

/** The value with `%index%` and `%count%` replaced in every string, nested anywhere (keys are left as written). */
export function substituteGroupTokens(value: unknown, index: number, count: number, depth = 0): unknown {
  if (depth > MAX_DEPTH) {
    return value;
  }
  if (typeof value === 'string') {
    return value.split(INDEX_TOKEN).join(String(index)).split(COUNT_TOKEN).join(String(count));
  }
  if (Array.isArray(value)) {
    return (value as unknown[]).map((item) => substituteGroupTokens(item, index, count, depth + 1));
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substituteGroupTokens(item, index, count, depth + 1)]),
    );
  }
  return value;
}

/** The node template's properties that hold a token, substituted for one member. */
function templatedProperties(template: ElementTemplate, index: number, count: number): JsonObject {
  return Object.fromEntries(
    Object.entries(template.properties ?? {})
      .filter(([, value]) => holdsGroupTokens(value))
      .map(([key, value]) => [key, substituteGroupTokens(value, index, count)]),
  );
}

/** A member's description: the group element's own (or its node template's name) and ` #<index>`. */
export function memberDescription(base: string | null, templateName: string, index: number): string {
  const own = base === null ? templateName : base.replace(MEMBER_SUFFIX, '');
  return `${own} #${index}`;
}

/** The index of a group member, read from its description; null for an element that is not one. */
export function memberIndexOf(element: Pick<InstanceElement, 'description'>): number | null {
  const found = element.description === null ? null : MEMBER_SUFFIX.exec(element.description);
  return found === null ? null : Number(found[1]);
}

/** The members of a group an instance holds (a REMOVED one is leaving), by index ascending. */
export function groupMembers(
  elements: Readonly<Record<string, InstanceElement>>,
  templateName: string,
): InstanceElement[] {
  return Object.values(elements)
    .filter((element) => element.definition.name === templateName && element.migrationState !== 'REMOVED')
    .sort((left, right) => (memberIndexOf(left) ?? 0) - (memberIndexOf(right) ?? 0));
}

/** One element of an instance body, as the group expansion reads it. */
export interface GroupRequestElement {
  readonly id: string;
  readonly definition: ConceptId;
  readonly description: string | null;
  readonly properties: JsonObject;
  /** The group's count for this instance; only for an element of a group node template. */
  readonly count?: number;
}

/** Derives member i's id from member 0's (the runtime's UUID v5); the same arguments always give the same id. */
export type MemberIdOf = (baseId: string, index: number) => string;

/** Why a count is refused, or null: an integer within the group's bounds. */
export function countProblem(count: unknown, rules: GroupRules): string | null {
  if (!Number.isSafeInteger(count)) {
    return `count must be an integer, got ${JSON.stringify(count) ?? String(count)}`;
  }
  const value = count as number;
  if (value < rules.min || (rules.max !== undefined && value > rules.max)) {
    return `count ${value} is outside the group's bounds ${rules.min}..${rules.max ?? ''} (the node template's metadata count_min, count_max)`;
  }
  return null;
}

/**
 * An instance body with its groups expanded into members (pure): each group element becomes `count` members, the
 * other elements stay as they are. Every problem names its field: a count on an ordinary element, a count that is
 * not an integer or is outside the bounds, two elements listed for one group, a token written in an instance body
 * (tokens belong in the node template's properties, so a member added later gets its values from there).
 */
export function expandGroups<E extends GroupRequestElement>(
  elements: readonly E[],
  templates: readonly ElementTemplate[],
  memberId: MemberIdOf,
): { elements: E[]; problems: string[] } {
  const byName = new Map(templates.map((template) => [template.name, template]));
  const problems: string[] = [];
  const expanded: E[] = [];
  const listed = new Map<string, string>();
  for (const element of elements) {
    const template = byName.get(element.definition.name);
    const rules = groupRulesOf(template);
    const field = `elements[${JSON.stringify(element.id)}]`;
    if (rules === undefined || template === undefined) {
      if (element.count !== undefined) {
        problems.push(`${field}.count: applies only to an element of a group (a node template with count)`);
      }
      expanded.push(element);
      continue;
    }
    const first = listed.get(template.name);
    if (first !== undefined) {
      problems.push(
        `${field}: node template ${template.name} is a group, listed once (element ${first}); its members come from its count`,
      );
      continue;
    }
    listed.set(template.name, element.id);
    const count = element.count ?? rules.count;
    const refused = countProblem(count, rules);
    if (refused !== null) {
      problems.push(`${field}.count: ${refused}`);
      continue;
    }
    for (const [key, value] of Object.entries(element.properties)) {
      if (holdsGroupTokens(value)) {
        problems.push(
          `${field}.properties.${key}: ${INDEX_TOKEN} and ${COUNT_TOKEN} may be written only in the node template's properties`,
        );
      }
    }
    const members: E[] = [];
    for (let index = 0; index < count; index += 1) {
      const { count: _count, ...plain } = element;
      members.push({
        ...plain,
        id: index === 0 ? element.id : memberId(element.id, index),
        description: memberDescription(element.description, template.name, index),
        properties: { ...templatedProperties(template, index, count), ...element.properties },
      } as E);
    }
    problems.push(...sharedUniqueValues(members, rules.unique ?? [], field, template));
    expanded.push(...members);
  }
  return { elements: expanded, problems };
}

/** What a new count does to a group an instance holds: the members it adds (undeployed) and the ids it removes. */
export interface GroupResize {
  readonly added: InstanceElement[];
  /** The highest indexes first. */
  readonly removed: string[];
}

/**
 * A group resized to `count` (pure): a higher count adds members after the highest index, made from member 0 (its
 * participant, definition and properties) with the node template's token values substituted for each; a lower one
 * removes the highest indexes. A property member 0 holds with another value than the node template's substituted
 * one (the instance body set it) is copied as it is.
 */
export function resizeGroup(
  elements: Readonly<Record<string, InstanceElement>>,
  template: ElementTemplate,
  count: number,
  memberId: MemberIdOf,
): GroupResize {
  const members = groupMembers(elements, template.name);
  const [first] = members;
  if (first === undefined || count === members.length) {
    return { added: [], removed: [] };
  }
  if (count < members.length) {
    return {
      added: [],
      removed: members
        .slice(count)
        .reverse()
        .map((member) => member.id),
    };
  }
  const firstTemplated = templatedProperties(template, 0, members.length);
  const kept = Object.fromEntries(
    Object.entries(first.properties).filter(
      ([key, value]) => !(key in firstTemplated) || JSON.stringify(value) !== JSON.stringify(firstTemplated[key]),
    ),
  );
  const baseId = first.id;
  const added: InstanceElement[] = [];
  for (let index = members.length; index < count; index += 1) {
    added.push({
      ...first,
      id: memberId(baseId, index),
      deployState: 'UNDEPLOYED',
      lockState: 'NONE',
      subState: 'NONE',
      migrationState: 'DEFAULT',
      stage: null,
      operationalState: null,
      useState: null,
      message: null,
      description: memberDescription(first.description, template.name, index),
      properties: { ...templatedProperties(template, index, count), ...kept },
      outProperties: {},
    });
  }
  return { added, removed: [] };
}

/**
 * The members a lower count removes leave from the highest index down: each waits for the removed member above it
 * (in the same step; the caller keeps only waits within one step, so an undeployed member moving on to its delete
 * releases the next one).
 */
export function removedMemberWaits(
  elements: Readonly<Record<string, InstanceElement>>,
  templates: readonly ElementTemplate[],
): ReadonlyMap<string, readonly string[]> {
  const waits = new Map<string, string[]>();
  for (const template of templates) {
    if (template.group === undefined) {
      continue;
    }
    const removed = Object.values(elements)
      .filter((element) => element.definition.name === template.name && element.migrationState === 'REMOVED')
      .sort((left, right) => (memberIndexOf(right) ?? 0) - (memberIndexOf(left) ?? 0));
    removed.slice(1).forEach((member, position) => {
      const above = removed[position];
      if (above !== undefined) {
        waits.set(member.id, [above.id]);
      }
    });
  }
  return waits;
}

/** The unique properties (`metadata: { unique: true }`) two members of a group would share, each a problem. */
function sharedUniqueValues(
  members: readonly GroupRequestElement[],
  unique: readonly string[],
  field: string,
  template: ElementTemplate,
): string[] {
  return unique.flatMap((name) => {
    // A member without a value of its own holds the node template's.
    const values = members.map((member) => JSON.stringify(member.properties[name] ?? template.properties?.[name]));
    const shared = values.some((value, position) => value !== undefined && values.indexOf(value) !== position);
    return shared
      ? [
          `${field}.properties.${name}: must be unique among the members of group ${template.name} (its definition says metadata unique: true); write ${INDEX_TOKEN} in the node template's value`,
        ]
      : [];
  });
}
