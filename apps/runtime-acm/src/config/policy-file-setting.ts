import { readFileSync } from 'node:fs';
import { readAccessPolicy } from '@acm/domain';
import type { AccessPolicy } from '@acm/domain';
import { CORE_SCHEMA, load } from 'js-yaml';

/** Policy files are small; a larger one is refused rather than parsed. */
const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * Reads `RUNTIME_POLICY_FILE` (YAML or JSON): `projects: {<project>: {<role>: [<user> | group:<name>]}}`. Unset or
 * empty: null (every authenticated user is admin). Every problem names the file and, where it can, the line.
 */
export function readPolicyFile(
  setting: string | undefined,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { policy: AccessPolicy | null; problems: string[] } {
  const path = setting?.trim() ?? '';
  if (path === '') {
    return { policy: null, problems: [] };
  }
  const where = `RUNTIME_POLICY_FILE (${path})`;
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    return { policy: null, problems: [`${where}: not readable (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  if (text.length > MAX_POLICY_BYTES) {
    return { policy: null, problems: [`${where}: larger than ${MAX_POLICY_BYTES} bytes`] };
  }
  let document: unknown;
  try {
    document = load(text, { schema: CORE_SCHEMA, json: true });
  } catch (error) {
    const mark = (error as { mark?: { line?: number } }).mark;
    const line = mark?.line === undefined ? '' : ` line ${mark.line + 1}`;
    return { policy: null, problems: [`${where}${line}: not YAML or JSON`] };
  }
  const lines = text.split(/\r?\n/);
  const lineOf = (key: string): number | null => {
    const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(`^\\s*(?:[{,]\\s*)?(["']?)${escaped}\\1\\s*:`);
    const index = lines.findIndex((line) => pattern.test(line) || line.includes(`"${key}":`));
    return index < 0 ? null : index + 1;
  };
  const read = readAccessPolicy(document, lineOf);
  return { policy: read.policy, problems: read.problems.map((problem) => `${where}${problem}`) };
}
