import type { InstanceElement, JsonObject } from '../model';
import type { ElementTemplate } from '../operation/topology';
import { changedProperties, needsReplaceSteps, sameJsonValue, updateClassification } from './update-classification';

function element(id: string, name: string, properties: JsonObject): InstanceElement {
  return {
    id,
    definition: { name, version: '1.0.0' },
    participantId: 'p1',
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
    outProperties: {},
  };
}

function template(name: string, replaceOn?: string[]): ElementTemplate {
  return {
    name,
    version: '1.0.0',
    startPhase: 0,
    stage: { prepare: [0], migrate: [0] },
    dependsOn: [],
    ...(replaceOn ? { replaceOn } : {}),
  };
}

const elements = {
  db: element('db', 'Database', { zone: 'a', url: 'http://db', tags: { tier: 'data' } }),
  web: element('web', 'Web', { zone: 'a', url: 'http://web' }),
  job: element('job', 'Job', { zone: 'a' }),
};
const templates = [template('Database', ['zone']), template('Web', ['zone']), template('Job')];

describe(updateClassification.name, () => {
  it('names the non-updatable property that forces a replace, and updates the rest in place', () => {
    const result = updateClassification({
      elements,
      next: new Map([
        ['db', { zone: 'b', url: 'http://db2', tags: { tier: 'data' } }],
        ['web', { zone: 'a', url: 'http://web2' }],
        ['job', { zone: 'b' }],
      ]),
      templates,
      removeOrphans: false,
    });

    expect(result.changes).toEqual([
      { elementId: 'db', definitionName: 'Database', kind: 'REPLACE', changed: ['url', 'zone'], forcedBy: ['zone'] },
      { elementId: 'job', definitionName: 'Job', kind: 'UPDATE', changed: ['zone'], forcedBy: [] },
      { elementId: 'web', definitionName: 'Web', kind: 'UPDATE', changed: ['url'], forcedBy: [] },
    ]);
    expect(result.replaced).toEqual(['db']);
    expect(result.orphans).toEqual([]);
    expect(needsReplaceSteps(result)).toBe(true);
  });

  it('keeps an element the body leaves out unchanged unless the definition opts in to orphans', () => {
    const next = new Map([['db', elements.db.properties]]);

    const kept = updateClassification({ elements, next, templates, removeOrphans: false });
    const removed = updateClassification({ elements, next, templates, removeOrphans: true });

    expect(kept.changes.map((change) => change.kind)).toEqual(['UNCHANGED', 'UNCHANGED', 'UNCHANGED']);
    expect(needsReplaceSteps(kept)).toBe(false);
    expect(removed.changes.map((change) => [change.elementId, change.kind])).toEqual([
      ['db', 'UNCHANGED'],
      ['job', 'ORPHAN'],
      ['web', 'ORPHAN'],
    ]);
    expect(removed.orphans).toEqual(['job', 'web']);
  });

  it('counts a property added or removed as changed, and key order as no change', () => {
    expect(changedProperties({ a: 1, b: { x: 1, y: [1, 2] } }, { b: { y: [1, 2], x: 1 }, c: null })).toEqual([
      'a',
      'c',
    ]);
    expect(sameJsonValue({ x: [1, { y: 2 }] }, { x: [1, { y: 2 }] })).toBe(true);
    expect(sameJsonValue([1, 2], [2, 1])).toBe(false);
    expect(sameJsonValue({ x: 1 }, [1])).toBe(false);
    expect(sameJsonValue({ x: undefined }, { y: undefined })).toBe(false);
  });

  it('replaces when a non-updatable property is added or dropped, not only changed', () => {
    const result = updateClassification({
      elements,
      next: new Map([['web', { url: 'http://web' }]]),
      templates,
      removeOrphans: false,
    });

    expect(result.changes.find((change) => change.elementId === 'web')).toMatchObject({
      kind: 'REPLACE',
      forcedBy: ['zone'],
    });
  });
});
