import type { JsonObject } from '../model';
import type { MigrationState } from '../states';
import type { DiffElement } from './instance-diff';
import { KNOWN_AFTER_DEPLOY } from '../instance/element-references';
import { MASKED_VALUE, diffInstance } from './instance-diff';

function element(
  id: string,
  properties: JsonObject,
  version = '1.0.0',
  migrationState: MigrationState = 'DEFAULT',
): DiffElement {
  return { id, definition: { name: `T-${id}`, version }, properties, migrationState };
}

function byId(...elements: DiffElement[]): Record<string, DiffElement> {
  return Object.fromEntries(elements.map((item) => [item.id, item]));
}

describe('diffInstance', () => {
  it('shows a changed scalar as path: old → new and counts the element as an update', () => {
    const diff = diffInstance({
      current: byId(element('a', { timeout: 10, name: 'x' })),
      next: byId(element('a', { timeout: 20, name: 'x' })),
    });
    expect(diff.changes).toEqual([
      {
        elementId: 'a',
        name: 'T-a',
        version: '1.0.0',
        action: 'update',
        changes: [{ path: 'timeout', old: 10, new: 20, text: 'timeout: 10 → 20' }],
      },
    ]);
    expect(diff.summary).toEqual({ create: 0, update: 1, replace: 0, delete: 0, unchanged: 0 });
  });

  it('compares nested maps by path and lists as whole values', () => {
    const diff = diffInstance({
      current: byId(element('a', { db: { host: 'h1', port: 5432 }, tags: ['x', 'y'], keep: [1] })),
      next: byId(element('a', { db: { host: 'h2', port: 5432, user: 'u' }, tags: ['x', 'z'], keep: [1] })),
    });
    expect(diff.changes[0]?.changes.map((change) => change.text)).toEqual([
      'db.host: "h1" → "h2"',
      'db.user: (none) → "u"',
      'tags: ["x","y"] → ["x","z"]',
    ]);
  });

  it('shows a removed property with its old value only, and quotes keys that are not plain names', () => {
    const diff = diffInstance({
      current: byId(element('a', { gone: true, map: { 'a.b': 1 } })),
      next: byId(element('a', { map: { 'a.b': 2 } })),
    });
    expect(diff.changes[0]?.changes).toEqual([
      { path: 'gone', old: true, text: 'gone: true → (none)' },
      { path: 'map["a.b"]', old: 1, new: 2, text: 'map["a.b"]: 1 → 2' },
    ]);
  });

  it('takes key order as no change and reports an element with equal properties as unchanged', () => {
    const diff = diffInstance({
      current: byId(element('a', { m: { x: 1, y: 2 } })),
      next: byId(element('a', { m: { y: 2, x: 1 } })),
    });
    expect(diff.changes[0]).toMatchObject({ action: 'unchanged', changes: [] });
    expect(diff.summary.unchanged).toBe(1);
  });

  it('creates new elements (listing their properties), deletes missing and REMOVED ones, ordered by id', () => {
    const diff = diffInstance({
      current: byId(element('c', {}), element('b', { p: 1 }), element('d', {})),
      next: byId(
        element('b', { p: 1 }),
        element('d', {}, '1.0.0', 'REMOVED'),
        element('a', { url: 'u', nested: { k: 1 } }, '1.0.0', 'NEW'),
        element('e', {}),
      ),
    });
    expect(diff.changes.map((change) => [change.elementId, change.action])).toEqual([
      ['a', 'create'],
      ['b', 'unchanged'],
      ['c', 'delete'],
      ['d', 'delete'],
      ['e', 'create'],
    ]);
    expect(diff.changes[0]?.changes.map((change) => change.text)).toEqual([
      'nested.k: (none) → 1',
      'url: (none) → "u"',
    ]);
    expect(diff.summary).toEqual({ create: 2, update: 0, replace: 0, delete: 2, unchanged: 1 });
  });

  it('counts a migration to another node template version as an update naming both versions', () => {
    const diff = diffInstance({
      current: byId(element('a', { p: 1 })),
      next: byId(element('a', { p: 1 }, '2.0.0')),
    });
    expect(diff.changes[0]).toMatchObject({
      action: 'update',
      version: '2.0.0',
      definition: { old: { name: 'T-a', version: '1.0.0' }, new: { name: 'T-a', version: '2.0.0' } },
      changes: [],
    });
  });

  it('masks sensitive values on both sides, at any depth and inside whole values, but still sees the change', () => {
    const diff = diffInstance({
      current: byId(element('a', { password: 'old', creds: [{ user: 'u', secret: 's1' }], plain: 1 })),
      next: byId(element('a', { password: 'new', creds: [{ user: 'u', secret: 's2' }], plain: 1 })),
      sensitiveNames: (id) => (id === 'a' ? new Set(['password', 'secret']) : new Set()),
    });
    expect(diff.changes[0]?.changes).toEqual([
      {
        path: 'creds',
        old: [{ user: 'u', secret: MASKED_VALUE }],
        new: [{ user: 'u', secret: MASKED_VALUE }],
        text: 'creds: [{"user":"u","secret":"******"}] → [{"user":"u","secret":"******"}]',
      },
      { path: 'password', old: MASKED_VALUE, new: MASKED_VALUE, sensitive: true, text: 'password: ****** → ******' },
    ]);
    expect(JSON.stringify(diff)).not.toMatch(/s1|s2|:"(old|new)"/u);
  });

  it('shows a value the caller says is unknown until deploy as known after deploy, without its text', () => {
    const reference = { get_attribute: ['Db', 'url'] };
    const diff = diffInstance({
      current: byId(element('a', { baseUrl: 'http://old' })),
      next: byId(element('a', { baseUrl: reference })),
      isKnownAfterDeploy: (_id, _path, value) =>
        typeof value === 'object' && value !== null && 'get_attribute' in value,
    });
    expect(diff.changes[0]?.changes).toEqual([
      {
        path: 'baseUrl',
        old: 'http://old',
        knownAfterDeploy: true,
        text: `baseUrl: "http://old" → ${KNOWN_AFTER_DEPLOY}`,
      },
    ]);
  });

  it('marks an update whose changed paths force it as a replace, naming them', () => {
    const diff = diffInstance({
      current: byId(element('a', { image: 'v1', size: 1 }), element('b', { size: 1 })),
      next: byId(element('a', { image: 'v2', size: 2 }), element('b', { size: 2 })),
      replacementForcedBy: (_id, paths) => paths.filter((path) => path === 'image'),
    });
    expect(diff.changes.map((change) => [change.action, change.forcedBy])).toEqual([
      ['replace', ['image']],
      ['update', undefined],
    ]);
    expect(diff.summary).toMatchObject({ update: 1, replace: 1 });
  });
});
