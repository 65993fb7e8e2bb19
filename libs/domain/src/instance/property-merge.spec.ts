import { mergeProperties } from './property-merge';

describe(mergeProperties.name, () => {
  it.each([
    ['replaces scalars', { a: 1, b: 'x' }, { a: 2 }, { a: 2, b: 'x' }],
    [
      'merges maps recursively',
      { m: { x: 1, y: { z: 1 } } },
      { m: { y: { w: 2 } } },
      { m: { x: 1, y: { z: 1, w: 2 } } },
    ],
    [
      'merges equal-length lists by index',
      { l: [{ a: 1 }, { b: 1 }] },
      { l: [{ c: 2 }, 5] },
      { l: [{ a: 1, c: 2 }, 5] },
    ],
    ['replaces lists of another length', { l: [1, 2, 3] }, { l: [9] }, { l: [9] }],
    ['adds new keys', { a: 1 }, { n: { deep: true } }, { a: 1, n: { deep: true } }],
    ['replaces a map by a scalar', { m: { x: 1 } }, { m: 'text' }, { m: 'text' }],
  ])('%s', (_name, stored, given, expected) => {
    expect(mergeProperties(stored, given)).toEqual(expected);
  });

  it('leaves the stored object untouched', () => {
    const stored = { m: { x: 1 } };
    mergeProperties(stored, { m: { x: 2 } });
    expect(stored).toEqual({ m: { x: 1 } });
  });
});
