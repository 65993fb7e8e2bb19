import { MAX_EXCERPT_CHARACTERS, excerpt } from './excerpt';

describe(excerpt.name, () => {
  it('quotes a short string JSON-escaped', () => {
    expect(excerpt('a"b\u0000\ud800')).toBe('"a\\"b\\u0000\\ud800"');
  });

  it('cuts a long string, says how long it was, and never splits a surrogate pair', () => {
    const text = `${'x'.repeat(MAX_EXCERPT_CHARACTERS - 1)}😀${'y'.repeat(10_000)}`;

    expect(excerpt(text)).toBe(`"${'x'.repeat(MAX_EXCERPT_CHARACTERS - 1)}"... (${text.length} characters)`);
  });

  it('names mappings and lists by their kind only, so a cyclic or huge value stays one short phrase', () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);

    expect(excerpt(cyclic)).toBe('a list of 1');
    expect(excerpt({ a: 1 })).toBe('a mapping');
    expect(excerpt(12)).toBe('12');
    expect(excerpt(null)).toBe('null');
    expect(excerpt(undefined)).toBe('nothing');
  });
});
