import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The services behind read-only REST pages: they read through `ReadModels` and never name the unit of work. */
const READ_ONLY_PAGES = [
  'participants.service.ts',
  'definition-docs.service.ts',
  'history.service.ts',
  'graph.service.ts',
  'plan.service.ts',
];

describe('the read-only pages', () => {
  it.each(READ_ONLY_PAGES)('%s reads through ReadModels, not the unit of work or the Store', (file) => {
    const text = readFileSync(join(__dirname, file), 'utf8');
    expect(text).toMatch(/\bReadModels\b/);
    expect(text).not.toMatch(/\bUnitOfWork\b/);
    expect(text).not.toMatch(/\bStore\b/);
  });
});
