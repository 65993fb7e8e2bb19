import { MAX_EXCERPT_CHARACTERS, excerpt } from '@acm/input-guards';

/**
 * Rule identifiers carried by every {@link ToscaProblem}. They are stable so clients and tests can match on them
 * instead of on message text.
 */
export const TOSCA_RULES = [
  'syntax',
  'not-a-mapping',
  'too-large',
  'required',
  'shape',
  'name-format',
  'version-format',
  'name-mismatch',
  'parent-not-found',
  'type-not-found',
  'type-version-not-found',
  'cycle',
  'composition-missing',
  'composition-duplicate',
  'element-missing',
  'element-reference',
  'element-duplicate',
  'start-phase',
  'stage',
  'depends-on',
  'depends-on-cycle',
  'depends-on-later-phase',
  'reference',
  'metadata-timeout',
  'metadata-parallelism',
  'property-type',
  'property-required',
  'property-unknown',
  'property-constraint',
  'replace-metadata',
  'group-count',
] as const;

/** One of {@link TOSCA_RULES}. */
export type ToscaRule = (typeof TOSCA_RULES)[number];

/**
 * A single reason a document was refused. `path` locates the offending value in the document
 * (e.g. `topology_template.node_templates["x"].version`; empty for the whole document) so a user can fix every
 * problem in one round trip. `line`/`column` (1-based) are only known for syntax errors.
 */
export interface ToscaProblem {
  path: string;
  rule: ToscaRule;
  message: string;
  line?: number;
  column?: number;
}

/** A step into a document: a mapping key or a list index. */
export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Renders a location the way users read JSON paths: dots for plain keys, `["..."]` for keys containing dots
 * (TOSCA names almost always do), `[n]` for list indexes.
 */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') {
      out += `[${segment}]`;
    } else if (PLAIN_KEY.test(segment)) {
      out += out === '' ? segment : `.${segment}`;
    } else {
      out += `[${segment.length > MAX_EXCERPT_CHARACTERS ? excerpt(segment) : JSON.stringify(segment)}]`;
    }
  }
  return out;
}

/** Builds a problem from path segments, keeping call sites one line long. */
export function problem(segments: readonly PathSegment[], rule: ToscaRule, message: string): ToscaProblem {
  return { path: formatPath(segments), rule, message };
}

/**
 * Joins problems into one human-readable text, for transports that only carry a string
 * (ONAP's `errorDetails`).
 */
export function formatProblems(problems: readonly ToscaProblem[]): string {
  return problems.map((p) => `${p.path === '' ? '(document)' : p.path}: ${p.message}`).join('\n');
}
