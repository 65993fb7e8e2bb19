import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const COMPATIBILITY = readFileSync(join(__dirname, '..', 'docs', 'compatibility.md'), 'utf8');

/** The page's `##` sections: heading and the text up to the next one. */
function sections(): Array<{ heading: string; body: string }> {
  return COMPATIBILITY.split(/^## /m)
    .slice(1)
    .map((part) => {
      const newline = part.indexOf('\n');
      return { heading: part.slice(0, newline), body: part.slice(newline + 1).trim() };
    });
}

describe('docs/compatibility.md', () => {
  it('has no empty section', () => {
    expect(
      sections()
        .filter((section) => section.body === '')
        .map((section) => section.heading),
    ).toEqual([]);
  });

  it('goes from what matches ONAP, through the differences, to what is not matched yet', () => {
    const headings = sections().map((section) => section.heading);
    expect(headings.slice(0, 3)).toEqual([
      'Same as ONAP',
      `Decisions on ONAP's ambiguities (its "gotchas")`,
      'Deliberate differences',
    ]);
    expect(headings.at(-1)).toBe('Not yet matched');
  });
});
