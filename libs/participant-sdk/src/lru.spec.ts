import { LruMap } from './lru';

describe(LruMap.name, () => {
  it('evicts the least recently used entry beyond capacity', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1); // a is now the most recent
    map.set('c', 3);
    expect(map.peek('b')).toBeUndefined();
    expect(map.peek('a')).toBe(1);
    expect(map.peek('c')).toBe(3);
    expect(map.size).toBe(2);
  });

  it('refuses a non-positive capacity', () => {
    expect(() => new LruMap(0)).toThrow('positive integer');
  });
});
