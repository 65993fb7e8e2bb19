import type { InstanceElement } from '../model';
import type { ElementTemplate } from '../operation/element-template';
import { element, template } from '../operation/testing/instance-fixtures';
import { updateClassification } from './update-classification';
import {
  countProblem,
  expandGroups,
  groupMembers,
  holdsGroupTokens,
  memberDescription,
  memberIndexOf,
  removedMemberWaits,
  resizeGroup,
  substituteGroupTokens,
} from './groups';

const memberId = (baseId: string, index: number): string => `${baseId}-m${index}`;

const WORKER: ElementTemplate = {
  ...template('Worker', 0, ['Queue']),
  properties: { baseUrl: 'http://w/%index%-of-%count%', provider: 'acm' },
  group: { count: 2, min: 1, max: 4 },
};
const TEMPLATES = [template('Queue', 0), WORKER];

function body(count?: number, properties: Record<string, unknown> = {}) {
  return [
    { id: 'q', definition: { name: 'Queue', version: '1.0.0' }, description: null, properties: {} },
    {
      id: 'w',
      definition: { name: 'Worker', version: '1.0.0' },
      description: null,
      properties,
      ...(count === undefined ? {} : { count }),
    },
  ];
}

/** The instance elements an expanded body stores (deployed, as after a deploy). */
function deployed(count: number): Record<string, InstanceElement> {
  const { elements } = expandGroups(body(count), TEMPLATES, memberId);
  return Object.fromEntries(
    elements.map((entry) => [
      entry.id,
      {
        ...element(entry.id, entry.definition.name),
        deployState: 'DEPLOYED' as const,
        description: entry.description,
        properties: entry.properties,
      },
    ]),
  );
}

describe('group tokens', () => {
  it('substitutes %index% and %count% in strings nested in objects and lists, and leaves other values', () => {
    expect(
      substituteGroupTokens({ a: 'x-%index%/%count%', b: ['%index%', 3, true], c: { d: '%count%' } }, 2, 5),
    ).toEqual({
      a: 'x-2/5',
      b: ['2', 3, true],
      c: { d: '5' },
    });
    expect(holdsGroupTokens({ a: [{ b: 'n-%index%' }] })).toBe(true);
    expect(holdsGroupTokens({ a: ['index', 1] })).toBe(false);
  });

  it('writes the index at the end of the description and reads it back', () => {
    expect(memberDescription(null, 'Worker', 3)).toBe('Worker #3');
    expect(memberDescription('Worker #0', 'Worker', 4)).toBe('Worker #4');
    expect(memberIndexOf({ description: 'Element #1 #12' })).toBe(12);
    expect(memberIndexOf({ description: 'Element Worker' })).toBeNull();
    expect(memberIndexOf({ description: null })).toBeNull();
  });
});

describe('expandGroups', () => {
  it("makes the node template's count of members, member 0 keeping the body's id, the others derived ids", () => {
    const { elements, problems } = expandGroups(body(), TEMPLATES, memberId);

    expect(problems).toEqual([]);
    expect(elements.map((entry) => [entry.id, entry.description, entry.properties])).toEqual([
      ['q', null, {}],
      ['w', 'Worker #0', { baseUrl: 'http://w/0-of-2' }],
      ['w-m1', 'Worker #1', { baseUrl: 'http://w/1-of-2' }],
    ]);
    expect(elements.some((entry) => 'count' in entry)).toBe(false);
  });

  it("takes the body's count within the bounds, and its own properties over the node template's", () => {
    const { elements } = expandGroups(body(4, { baseUrl: 'fixed' }), TEMPLATES, memberId);

    expect(elements.filter((entry) => entry.definition.name === 'Worker').map((entry) => entry.properties)).toEqual(
      Array.from({ length: 4 }, () => ({ baseUrl: 'fixed' })),
    );
  });

  it.each([
    [2.5, 'elements["w"].count: count must be an integer, got 2.5'],
    [
      0,
      'elements["w"].count: count 0 is outside the group\'s bounds 1..4 (the node template\'s metadata count_min, count_max)',
    ],
    [
      5,
      'elements["w"].count: count 5 is outside the group\'s bounds 1..4 (the node template\'s metadata count_min, count_max)',
    ],
  ])('refuses count %p, naming the field and the rule', (count, message) => {
    expect(expandGroups(body(count), TEMPLATES, memberId).problems).toEqual([message]);
  });

  it('refuses a count on an ordinary element, a group listed twice and a token in an instance body', () => {
    const elements = [
      { ...body()[0]!, count: 2 },
      ...body(2, { baseUrl: 'w-%index%' }),
      { id: 'w2', definition: { name: 'Worker', version: '1.0.0' }, description: null, properties: {} },
    ];

    expect(expandGroups(elements, TEMPLATES, memberId).problems).toEqual([
      'elements["q"].count: applies only to an element of a group (a node template with count)',
      'elements["w"].properties.baseUrl: %index% and %count% may be written only in the node template\'s properties',
      'elements["w2"]: node template Worker is a group, listed once (element w); its members come from its count',
    ]);
  });

  it('leaves a body without groups exactly as it is', () => {
    const plain = body().slice(0, 1);

    expect(expandGroups(plain, [template('Queue', 0)], memberId)).toEqual({ elements: plain, problems: [] });
  });
});

describe('countProblem', () => {
  it('accepts an integer within the bounds, an open upper bound included', () => {
    expect(countProblem(3, { count: 1, min: 1 })).toBeNull();
    expect(countProblem(1000, { count: 1, min: 1 })).toBeNull();
    expect(countProblem('3', { count: 1, min: 1 })).toBe('count must be an integer, got "3"');
  });
});

describe('resizeGroup', () => {
  it('adds members after the highest index, undeployed, with their own substituted values', () => {
    const elements = deployed(2);
    const resize = resizeGroup(elements, WORKER, 4, memberId);

    expect(resize.removed).toEqual([]);
    expect(
      resize.added.map((member) => [member.id, member.description, member.deployState, member.properties]),
    ).toEqual([
      ['w-m2', 'Worker #2', 'UNDEPLOYED', { baseUrl: 'http://w/2-of-4' }],
      ['w-m3', 'Worker #3', 'UNDEPLOYED', { baseUrl: 'http://w/3-of-4' }],
    ]);
  });

  it("copies member 0's value where the instance body set one instead of the node template's", () => {
    const base = deployed(1);
    const elements = { ...base, w: { ...base['w']!, properties: { baseUrl: 'fixed' } } };

    expect(resizeGroup(elements, WORKER, 2, memberId).added.map((member) => member.properties)).toEqual([
      { baseUrl: 'fixed' },
    ]);
  });

  it('removes the highest indexes first, and changes nothing at the same count', () => {
    const elements = deployed(4);

    expect(resizeGroup(elements, WORKER, 1, memberId)).toEqual({ added: [], removed: ['w-m3', 'w-m2', 'w-m1'] });
    expect(resizeGroup(elements, WORKER, 4, memberId)).toEqual({ added: [], removed: [] });
    expect(groupMembers(elements, 'Worker').map((member) => member.id)).toEqual(['w', 'w-m1', 'w-m2', 'w-m3']);
  });

  it('gives the same ids on every call, so a plan and its order agree', () => {
    expect(resizeGroup(deployed(1), WORKER, 3, memberId).added.map((member) => member.id)).toEqual(
      resizeGroup(deployed(1), WORKER, 3, memberId).added.map((member) => member.id),
    );
  });
});

describe('update classification of the members a lower count removes', () => {
  it('makes them orphans even when the definition does not remove orphans', () => {
    const elements = deployed(3);
    const next = new Map(Object.values(elements).map((entry) => [entry.id, entry.properties]));
    const classification = updateClassification({
      elements,
      next,
      templates: TEMPLATES,
      removeOrphans: false,
      orphaned: new Set(['w-m2']),
    });

    expect(classification.orphans).toEqual(['w-m2']);
    expect(classification.replaced).toEqual([]);
  });
});

describe('removedMemberWaits', () => {
  it('chains the removed members of a group from the highest index down, and nothing else', () => {
    const elements = deployed(4);
    const removing = Object.fromEntries(
      Object.entries(elements).map(([id, entry]) => [
        id,
        ['w-m1', 'w-m3', 'w-m2'].includes(id) ? { ...entry, migrationState: 'REMOVED' as const } : entry,
      ]),
    );

    expect([...removedMemberWaits(removing, TEMPLATES)]).toEqual([
      ['w-m2', ['w-m3']],
      ['w-m1', ['w-m2']],
    ]);
    expect(removedMemberWaits(elements, TEMPLATES).size).toBe(0);
  });
});

describe('unique properties of a group', () => {
  const UNIQUE: ElementTemplate = {
    ...WORKER,
    properties: { baseUrl: 'http://w/%index%', zone: 'a' },
    group: { count: 2, min: 1, unique: ['baseUrl', 'zone'] },
  };

  it('refuses members that would share a unique value, naming the field and the rule', () => {
    expect(expandGroups(body(2), [template('Queue', 0), UNIQUE], memberId).problems).toEqual([
      'elements["w"].properties.zone: must be unique among the members of group Worker (its definition says metadata unique: true); write %index% in the node template\'s value',
    ]);
  });

  it('accepts one member, and values that differ by %index%', () => {
    const varying = { ...UNIQUE, group: { count: 2, min: 1, unique: ['baseUrl'] } };

    expect(expandGroups(body(1), [template('Queue', 0), UNIQUE], memberId).problems).toEqual([]);
    expect(expandGroups(body(3), [template('Queue', 0), varying], memberId).problems).toEqual([]);
  });
});
