import type { ReferencedElement } from './element-references';
import type { InstanceElement } from '../model';
import { element } from '../operation/testing/instance-fixtures';
import {
  KNOWN_AFTER_DEPLOY,
  asReference,
  referenceText,
  referencedElementsOf,
  referencesIn,
  resolveReferences,
} from './element-references';

const DB: ReferencedElement = {
  templateProperties: { port: 5432, hosts: ['a', 'b'] },
  properties: { port: 6543, user: { get_property: ['SELF', 'port'] } },
  outProperties: { url: 'postgres://db:6543', endpoints: [{ host: 'db-0' }] },
};
const elements = (name: string): ReferencedElement | undefined =>
  name === 'db'
    ? DB
    : name === 'web'
      ? { templateProperties: { tier: 'front' }, properties: {}, outProperties: {} }
      : undefined;

describe('resolveReferences', () => {
  it('replaces get_attribute by what the element reported and get_property by its merged properties', () => {
    const resolution = resolveReferences(
      {
        baseUrl: { get_attribute: ['db', 'url'] },
        conf: {
          host: { get_attribute: ['db', 'endpoints', 0, 'host'] },
          hosts: [{ get_property: ['db', 'hosts', 1] }],
        },
        port: { get_property: ['db', 'port'] },
        own: { get_property: ['SELF', 'tier'] },
        plain: 'kept',
      },
      'web',
      elements,
    );

    expect(resolution).toEqual({
      ok: true,
      value: {
        baseUrl: 'postgres://db:6543',
        conf: { host: 'db-0', hosts: ['b'] },
        port: 6543,
        own: 'front',
        plain: 'kept',
      },
      resolved: [
        { at: 'baseUrl', reference: asReference({ get_attribute: ['db', 'url'] }), value: 'postgres://db:6543' },
        {
          at: 'conf.host',
          reference: asReference({ get_attribute: ['db', 'endpoints', 0, 'host'] }),
          value: 'db-0',
        },
        { at: 'conf.hosts[0]', reference: asReference({ get_property: ['db', 'hosts', 1] }), value: 'b' },
        { at: 'port', reference: asReference({ get_property: ['db', 'port'] }), value: 6543 },
        { at: 'own', reference: asReference({ get_property: ['SELF', 'tier'] }), value: 'front' },
      ],
    });
  });

  it('resolves a property that is itself a reference, from the element that holds it', () => {
    expect(resolveReferences({ user: { get_property: ['db', 'user'] } }, 'web', elements)).toMatchObject({
      ok: true,
      value: { user: 6543 },
    });
  });

  it.each([
    [{ get_attribute: ['db', 'password'] }, 'get_attribute [db, password]: db has not reported password'],
    [
      { get_attribute: ['db', 'endpoints', 3, 'host'] },
      'get_attribute [db, endpoints, 3, host]: db has not reported endpoints.3.host',
    ],
    [{ get_property: ['db', 'missing'] }, 'get_property [db, missing]: db has no property missing'],
    [{ get_attribute: ['cache', 'url'] }, 'get_attribute [cache, url]: cache is not an element of this instance'],
  ])('names the reference that cannot be resolved: %j', (value, message) => {
    expect(resolveReferences({ x: [value] }, 'web', elements)).toEqual({ ok: false, unresolved: [message] });
  });

  it('puts the placeholder in place of what is not known yet', () => {
    const resolution = resolveReferences(
      { a: { get_attribute: ['db', 'later'] }, b: { get_attribute: ['db', 'url'] } },
      'web',
      elements,
      () => KNOWN_AFTER_DEPLOY,
    );

    expect(resolution).toMatchObject({ ok: true, value: { a: KNOWN_AFTER_DEPLOY, b: 'postgres://db:6543' } });
  });

  it('reads only well-formed one-key functions as references', () => {
    expect(
      referencesIn({
        a: { get_attribute: ['db'] },
        b: { get_attribute: ['db', 'x'], c: 1 },
        d: { get_property: ['db', -1] },
      }),
    ).toEqual([]);
    expect(referenceText({ fn: 'get_property', element: 'SELF', name: 'a', path: ['b', 0] })).toBe(
      'get_property [SELF, a, b, 0]',
    );
  });
});

describe('references to a member of a group', () => {
  const member = (id: string, index: number, url: string): InstanceElement => ({
    ...element(id, 'Worker'),
    description: `Worker #${index}`,
    outProperties: { url },
  });
  const instance = {
    elements: {
      b: member('b', 1, 'http://w1'),
      a: member('a', 0, 'http://w0'),
      c: member('c', 2, 'http://w2'),
    },
  };
  const elements = referencedElementsOf(instance, () => ({}));

  it('reads the member with that index, and member 0 without an index', () => {
    const resolved = resolveReferences(
      { second: { get_attribute: ['Worker', 2, 'url'] }, first: { get_attribute: ['Worker', 'url'] } },
      'Web',
      elements,
    );

    expect(resolved).toMatchObject({ ok: true, value: { second: 'http://w2', first: 'http://w0' } });
    expect(asReference({ get_attribute: ['Worker', 2, 'url'] })).toEqual({
      fn: 'get_attribute',
      element: 'Worker',
      member: 2,
      name: 'url',
      path: [],
    });
    expect(referenceText({ fn: 'get_attribute', element: 'Worker', member: 2, name: 'url', path: [] })).toBe(
      'get_attribute [Worker, 2, url]',
    );
  });

  it('fails a member index the instance does not have, naming the reference', () => {
    expect(resolveReferences({ url: { get_attribute: ['Worker', 5, 'url'] } }, 'Web', elements)).toEqual({
      ok: false,
      unresolved: ['get_attribute [Worker, 5, url]: Worker has no member 5 in this instance'],
    });
  });
});
