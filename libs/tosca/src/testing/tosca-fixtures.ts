import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { parseServiceTemplate } from '../parse-service-template';
import type { ServiceTemplate } from '../service-template';

/** Repository folder with the hand-written TOSCA fixtures (`tosca/`). Test-only: reads files. */
export const TOSCA_FIXTURES_DIR = resolve(__dirname, '../../../../tosca');

/** Text of a fixture, by path relative to `tosca/`. */
export function fixtureText(relativePath: string): string {
  return readFileSync(join(TOSCA_FIXTURES_DIR, relativePath), 'utf8');
}

/** File names (not paths) in a fixture folder, e.g. `fixtureFiles('examples', '.yaml')`. */
export function fixtureFiles(folder: string, extension: string): string[] {
  return readdirSync(join(TOSCA_FIXTURES_DIR, folder))
    .filter((name) => name.endsWith(extension))
    .sort();
}

/** A parsed fixture template; throws when the fixture itself does not parse, which is a broken test setup. */
export function fixtureTemplate(relativePath: string): ServiceTemplate {
  const parsed = parseServiceTemplate(fixtureText(relativePath));
  if (!parsed.ok) {
    throw new Error(`fixture ${relativePath} does not parse: ${JSON.stringify(parsed.problems)}`);
  }
  return parsed.template;
}
