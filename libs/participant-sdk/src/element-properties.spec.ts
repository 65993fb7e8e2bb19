import { copy } from './element-properties';

describe('copy', () => {
  it('copies plain data deeply, equal to structuredClone and sharing nothing with the original', () => {
    const original = {
      text: 'a',
      count: -0,
      nothing: null,
      missing: undefined,
      flag: true,
      big: 10n,
      list: [1, 'two', { three: [3] }, null],
      nested: { deeper: { deepest: [] as unknown[] } },
      bare: Object.assign(Object.create(null) as Record<string, unknown>, { kept: 1 }),
    };
    const copied = copy(original);
    expect(copied).toStrictEqual(structuredClone(original));
    expect(Object.is(copied.count, -0)).toBe(true);
    expect(Object.keys(copied)).toEqual(Object.keys(original));
    expect(copied.list).not.toBe(original.list);
    expect(copied.list[2]).not.toBe(original.list[2]);
    expect(copied.nested.deeper).not.toBe(original.nested.deeper);
    copied.nested.deeper.deepest.push(1);
    expect(original.nested.deeper.deepest).toEqual([]);
  });

  it('copies what only structuredClone copies faithfully as structuredClone does', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
    const cases: unknown[] = [
      { at: new Date(Date.UTC(2026, 0, 1)) },
      { map: new Map([['k', { v: 1 }]]) },
      cyclic,
      { sparse },
      JSON.parse('{"__proto__":{"polluted":true},"ok":1}') as unknown,
      JSON.parse(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`) as unknown,
    ];
    for (const value of cases) {
      expect(copy(value)).toStrictEqual(structuredClone(value));
    }
    const copiedLoop = copy(cyclic);
    expect(copiedLoop['self']).toBe(copiedLoop);
    const proto = copy(JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>);
    expect(Object.keys(proto)).toEqual(['__proto__']);
    expect((proto as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('refuses what structuredClone refuses', () => {
    expect(() => copy({ handler: () => 1 })).toThrow();
    expect(() => copy([Symbol('s')])).toThrow();
  });
});
