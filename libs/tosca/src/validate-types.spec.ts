import { findCycles } from './validate-types';

describe(findCycles.name, () => {
  const graph = (edges: Record<string, string[]>) => (node: string) => edges[node] ?? [];

  it.each<[string, string[], Record<string, string[]>, string[][]]>([
    ['no edges', ['a', 'b'], {}, []],
    ['a chain', ['a', 'b', 'c'], { a: ['b'], b: ['c'] }, []],
    ['a diamond', ['a', 'b', 'c', 'd'], { a: ['b', 'c'], b: ['d'], c: ['d'] }, []],
    ['a self loop', ['a'], { a: ['a'] }, [['a', 'a']]],
    ['a loop found from its middle', ['a', 'b', 'c'], { b: ['c'], c: ['a'], a: ['b'] }, [['a', 'b', 'c', 'a']]],
    [
      'two separate loops',
      ['a', 'b', 'c', 'd'],
      { a: ['b'], b: ['a'], c: ['d'], d: ['c'] },
      [
        ['a', 'b', 'a'],
        ['c', 'd', 'c'],
      ],
    ],
  ])('finds the cycles of %s', (_label, nodes, edges, expected) => {
    expect(findCycles(nodes, graph(edges))).toEqual(expected);
  });
});
