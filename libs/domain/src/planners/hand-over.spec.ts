import { needsHandOver } from './hand-over';

describe(needsHandOver.name, () => {
  const set = (...ids: string[]) => new Set(ids);

  it.each([
    ['the taker is silent', ['a'], set('a'), set('a'), true],
    ['the taker is alive', ['a'], set('b'), set('a', 'b'), false],
    ['one of two takers is alive (an earlier hand-over)', ['a', 'b'], set('a'), set('a', 'b'), false],
    ['both takers are silent', ['a', 'b'], set('a', 'b'), set('a', 'b'), true],
    ['nobody answered and a silent replica did work before', [], set('a'), set('a'), true],
    ['nobody answered and the silent replicas never did any work', [], set('stray1', 'stray2'), set('a'), false],
    ['nobody is silent', [], set(), set('a'), false],
  ])('%s', (_case, answeredBy, silent, workers, expected) => {
    expect(needsHandOver({ answeredBy, silent, workers })).toBe(expected);
  });
});
