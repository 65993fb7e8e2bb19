import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** ONAP's files stay outside the repository, beside it in ../shared (see README, "Conformance"). */
export const ONAP_DIR =
  process.env['ONAP_REFERENCE_DIR'] ?? join(__dirname, '..', '..', '..', 'shared', 'reference', 'onap');

export function onapFile(relativePath: string): string {
  return readFileSync(join(ONAP_DIR, relativePath), 'utf8');
}

export function onapFiles(folder: string, pattern: RegExp): string[] {
  const directory = join(ONAP_DIR, folder);
  if (!existsSync(directory)) {
    throw new Error(`ONAP reference files not found in ${directory}: set ONAP_REFERENCE_DIR`);
  }
  return readdirSync(directory)
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => `${folder}/${name}`);
}
