import { DomainError } from '../errors';
import type { InstanceElement } from '../model';
import { assertCompatible, planMigration, planMigrationRevert, planUpdateRevert } from './migration';

function element(id: string, name: string, version: string, properties = {}): InstanceElement {
  return {
    id,
    definition: { name, version },
    participantId: `p-${name}`,
    deployState: 'DEPLOYED',
    lockState: 'LOCKED',
    subState: 'NONE',
    migrationState: 'DEFAULT',
    stage: null,
    operationalState: null,
    useState: null,
    description: null,
    message: null,
    properties,
    outProperties: { out: id },
  };
}

const stored = {
  e1: element('e1', 'A', '1.0.0', { url: 'http://a', nested: { x: 1, y: 2 } }),
  e2: element('e2', 'B', '1.0.0'),
  e3: element('e3', 'C', '1.0.0'),
};
const target = {
  listedElements: [
    { name: 'A', version: '2.0.0' },
    { name: 'B', version: '2.0.0' },
    { name: 'D', version: '2.0.0' },
  ],
  participantOf: (name: string) => `target-${name}`,
};
const request = (id: string, name: string, version = '2.0.0', properties = {}) => ({
  id,
  definition: { name, version },
  description: null,
  properties,
});

describe(planMigration.name, () => {
  const planned = planMigration(
    stored,
    [request('e1', 'A', '2.0.0', { nested: { y: 3 } }), request('e2', 'B'), request('e4', 'D')],
    target,
  );

  it.each([
    ['e1', 'DEFAULT', '2.0.0', 'target-A'],
    ['e2', 'DEFAULT', '2.0.0', 'target-B'],
    ['e3', 'REMOVED', '1.0.0', 'p-C'],
    ['e4', 'NEW', '2.0.0', 'target-D'],
  ])('plans %s as %s on version %s, participant %s', (id, migrationState, version, participantId) => {
    expect(planned[id]).toMatchObject({ migrationState, definition: { version }, participantId });
  });

  it('merges the requested properties into the stored ones and keeps participant output', () => {
    expect(planned['e1']?.properties).toEqual({ url: 'http://a', nested: { x: 1, y: 3 } });
    expect(planned['e1']?.outProperties).toEqual({ out: 'e1' });
    expect(planned['e4']?.outProperties).toEqual({});
  });

  it.each([
    [
      'a renamed element',
      [request('e1', 'B'), request('e2', 'B'), request('e4', 'D')],
      'A 1.0.0 is not compatible with B 2.0.0',
    ],
    [
      'a version the target does not list',
      [request('e1', 'A', '3.0.0'), request('e2', 'B'), request('e4', 'D')],
      'Version not matching',
    ],
    ['a missing target element', [request('e1', 'A'), request('e2', 'B')], 'not matching with the elements'],
    [
      'an element the target does not have',
      [request('e1', 'A'), request('e2', 'B'), request('e4', 'D'), request('e5', 'Z')],
      'Z 2.0.0 Not found',
    ],
  ])('refuses %s', (_label, elements, text) => {
    let caught: unknown;
    try {
      planMigration(stored, elements, target);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).message).toContain(text);
  });
});

describe(`${planMigration.name} with groups`, () => {
  const members = [request('e1', 'A'), request('e2', 'B'), request('e4', 'D'), request('e5', 'D'), request('e6', 'D')];

  it("counts a group's members as one element of the target composition", () => {
    const planned = planMigration(stored, members, { ...target, groups: new Set(['D']) });

    expect(['e4', 'e5', 'e6'].map((id) => planned[id]?.migrationState)).toEqual(['NEW', 'NEW', 'NEW']);
  });

  it('refuses the same elements when that node template is not a group', () => {
    expect(() => planMigration(stored, members, target)).toThrow('D is already used by element e4');
  });
});

describe(assertCompatible.name, () => {
  it.each([
    [{ name: 'A', version: '1.0.0' }, { name: 'A', version: '1.0.0' }, true],
    [{ name: 'A', version: '1.0.0' }, { name: 'A', version: '1.0.1' }, true],
    [{ name: 'A', version: '1.0.0' }, { name: 'A', version: '2.0.0' }, true],
    [{ name: 'A', version: '1.0.0' }, { name: 'B', version: '1.0.0' }, false],
  ])('%j → %j compatible: %s', (from, to, ok) => {
    if (ok) {
      expect(() => assertCompatible(from, to)).not.toThrow();
    } else {
      expect(() => assertCompatible(from, to)).toThrow(/is not compatible with/);
    }
  });
});

describe(planMigrationRevert.name, () => {
  it('restores the snapshot, re-creates deleted elements as NEW and marks added ones REMOVED', () => {
    const current = {
      e1: { ...element('e1', 'A', '2.0.0', { url: 'changed' }), deployState: 'MIGRATING' as const },
      e2: element('e2', 'B', '2.0.0'),
      e4: { ...element('e4', 'D', '2.0.0'), migrationState: 'NEW' as const },
    };
    const reverted = planMigrationRevert(current, stored);
    expect(Object.values(reverted).map((e) => [e.id, e.migrationState, e.definition.version, e.deployState])).toEqual([
      ['e1', 'DEFAULT', '1.0.0', 'MIGRATING'],
      ['e2', 'DEFAULT', '1.0.0', 'DEPLOYED'],
      ['e3', 'NEW', '1.0.0', 'DEPLOYED'],
      ['e4', 'REMOVED', '2.0.0', 'DEPLOYED'],
    ]);
    expect(reverted['e1']?.properties).toEqual(stored.e1.properties);
  });
});

describe(planUpdateRevert.name, () => {
  it('restores definition and properties, keeps states and participant output', () => {
    const current = { e1: { ...element('e1', 'A', '1.0.0', { url: 'new' }), outProperties: { fresh: true } } };
    expect(planUpdateRevert(current, stored)['e1']).toMatchObject({
      properties: stored.e1.properties,
      outProperties: { fresh: true },
    });
  });
});
