import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HISTORY_EVENT_KINDS } from '@acm/domain';

const ROOT = join(__dirname, '..');

/** The backticked upper-case names of the paragraph that starts with `opening`. */
function kindsListed(file: string, opening: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(opening);
  expect(start).toBeGreaterThanOrEqual(0);
  const paragraph = text.slice(start, text.indexOf('\n\n', start));
  return [...paragraph.matchAll(/`([A-Z][A-Z_]+)`/g)].map((match) => match[1]!);
}

describe('the event kinds the docs list', () => {
  it('docs/architecture.md lists every kind of the history union, and no other, in its order', () => {
    expect(kindsListed('docs/architecture.md', 'The kinds (`test/history-kinds-doc.spec.ts`')).toEqual([
      ...HISTORY_EVENT_KINDS,
    ]);
  });

  it('every kind the README names as an event is one of the union', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const named = [...readme.matchAll(/`([A-Z][A-Z_]+)` event/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((kind) => !(HISTORY_EVENT_KINDS as readonly string[]).includes(kind))).toEqual([]);
  });
});
