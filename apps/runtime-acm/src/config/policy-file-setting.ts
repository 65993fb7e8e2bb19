import { readFileSync } from 'node:fs';
import { namedProjects, readAccessPolicy, readApprovalRules } from '@acm/domain';
import type { AccessPolicy, ApprovalRule } from '@acm/domain';
import { CORE_SCHEMA, load } from 'js-yaml';

/** Policy files are small; a larger one is refused rather than parsed. */
const MAX_POLICY_BYTES = 1024 * 1024;

/** What a policy file holds: the roles, and the approval rules (none when the file has no `approvals:`). */
export interface PolicyFile {
  policy: AccessPolicy | null;
  approvalRules: ApprovalRule[];
  problems: string[];
}

/**
 * Reads `RUNTIME_POLICY_FILE` (YAML or JSON): `projects: {<project>: {<role>: [<user> | group:<name>]}}` and
 * optionally `approvals: [{project, compositionId?, orders, approvals, role?, expiresAfter?}]`. Unset or empty: null
 * (every authenticated user is admin, no approvals). Every problem names the file and, where it can, the line.
 */
export function readPolicyFile(
  setting: string | undefined,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): PolicyFile {
  const read = readPolicyText(setting, readFile);
  return { approvalRules: [], ...read };
}

function readPolicyText(
  setting: string | undefined,
  readFile: (path: string) => string,
): { policy: AccessPolicy | null; approvalRules?: ApprovalRule[]; problems: string[] } {
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
  const lineOf = (key: string, from = 1): number | null => {
    const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(`^\\s*(?:[{,-]\\s*)?(["']?)${escaped}\\1\\s*:`);
    const index = lines.findIndex((line, at) => at >= from - 1 && (pattern.test(line) || line.includes(`"${key}":`)));
    return index < 0 ? null : index + 1;
  };
  const read = readAccessPolicy(document, lineOf);
  const projects = read.policy === null ? [] : namedProjects(read.policy);
  const approvals = readApprovalRules(
    typeof document === 'object' && document !== null ? (document as Record<string, unknown>)['approvals'] : undefined,
    projects,
    lineOf,
  );
  const problems = [...read.problems, ...(read.policy === null ? [] : approvals.problems)];
  return {
    policy: problems.length === 0 ? read.policy : null,
    approvalRules: problems.length === 0 ? approvals.rules : [],
    problems: problems.map((problem) => `${where}${problem}`),
  };
}
