import { ELLIPSIS, fitText, shortenInMiddle } from './fit-text';

/** A font where W is three times as wide as i, as in a proportional font: a per-character guess cannot fit both. */
const width = (text: string): number =>
  Array.from(text).reduce((sum, character) => sum + (character === 'W' ? 12 : character === 'i' ? 4 : 7), 0);

describe('fitting a label by its measured width', () => {
  it('keeps a text that fits, however many characters it has', () => {
    const narrow = 'i'.repeat(40);
    expect(fitText(narrow, width(narrow), width)).toBe(narrow);
  });

  it('shortens a wide text in its middle, keeping its start and its end', () => {
    const wide = 'WWWWWWWWWWWWWWWWWWWWWWWW-element';
    const shown = fitText(wide, 180, width);
    expect(width(shown)).toBeLessThanOrEqual(180);
    expect(shown).toContain(ELLIPSIS);
    expect(wide.startsWith(shown.slice(0, shown.indexOf(ELLIPSIS)))).toBe(true);
    expect(wide.endsWith(shown.slice(shown.indexOf(ELLIPSIS) + 1))).toBe(true);
    // The longest that fits: one more character kept would not.
    const kept = Array.from(shown).length - 1;
    expect(width(shortenInMiddle(wide, kept + 1))).toBeGreaterThan(180);
  });

  it('gives the ellipsis alone when not even one character fits beside it', () => {
    expect(fitText('WWWW', 12, width)).toBe(ELLIPSIS);
  });

  it('counts characters, not UTF-16 units, when it cuts', () => {
    expect(shortenInMiddle('😀😀😀😀', 2)).toBe(`😀${ELLIPSIS}😀`);
    expect(shortenInMiddle('abc', 3)).toBe('abc');
    expect(shortenInMiddle('abcdef', 3)).toBe(`ab${ELLIPSIS}f`);
  });
});
