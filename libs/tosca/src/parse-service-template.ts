import { JSON_SCHEMA, Type, YAMLException, load } from 'js-yaml';

import { describeKind, isMapping } from './guards';
import type { ToscaProblem } from './problem';
import type { ServiceTemplate } from './service-template';

/** Body formats the runtime accepts (ONAP accepts `application/json` and `application/yaml`). */
export type ToscaContentType = 'json' | 'yaml';

/** Either the parsed template (a mapping, not yet validated) or why the body could not be read. */
export type ParseResult = { ok: true; template: ServiceTemplate } | { ok: false; problems: ToscaProblem[] };

/**
 * YAML merge keys (`<<: *anchor`), which hand-written TOSCA uses together with anchors. js-yaml merges any key resolved
 * to this tag; its own definition is not exposed by the typings, so it is restated here.
 */
const MERGE_KEY = new Type('tag:yaml.org,2002:merge', {
  kind: 'scalar',
  resolve: (data: unknown) => data === '<<' || data === null,
});

/**
 * JSON-compatible YAML: no timestamps, binaries or language-specific tags, so a YAML body yields exactly the values a
 * JSON body could carry.
 */
const TOSCA_YAML_SCHEMA = JSON_SCHEMA.extend({ implicit: [MERGE_KEY] });

/**
 * Anchors let a small YAML text expand into a huge (or, with a self-referencing alias, infinite) value that would
 * exhaust memory once stored as JSON; these limits refuse such bodies up front.
 */
const MAX_EXPANDED_NODES = 1_000_000;
const MAX_DEPTH = 200;

/**
 * Turns a request body into a service template object, explaining syntax errors with line/column, so that the
 * runtime never has to deal with parser exceptions. Only the top level is checked here (it must be a mapping);
 * {@link validateServiceTemplate} checks the TOSCA content.
 */
export function parseServiceTemplate(text: string, contentType?: ToscaContentType): ParseResult {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const format = contentType ?? detectContentType(body);
  const parsed = format === 'json' ? parseJson(body) : parseYaml(body);
  if (!parsed.ok) {
    return parsed;
  }
  if (!isMapping(parsed.value)) {
    const message =
      parsed.value === undefined || parsed.value === null
        ? 'The body is empty: expected a TOSCA service template'
        : `The body is ${describeKind(parsed.value)}: a TOSCA service template must be a mapping`;
    return { ok: false, problems: [{ path: '', rule: 'not-a-mapping', message }] };
  }
  if (exceedsLimits(parsed.value)) {
    const message = `The body expands to more than ${MAX_EXPANDED_NODES} values or ${MAX_DEPTH} levels (YAML aliases?)`;
    return { ok: false, problems: [{ path: '', rule: 'too-large', message }] };
  }
  return { ok: true, template: parsed.value as ServiceTemplate };
}

/** Clients often omit or mislabel Content-Type; a JSON object is recognisable by its first character. */
function detectContentType(text: string): ToscaContentType {
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

type Parsed = { ok: true; value: unknown } | { ok: false; problems: ToscaProblem[] };

function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const location = jsonErrorOffset(text, reason);
    return {
      ok: false,
      problems: [syntaxProblem('JSON', reason, location === undefined ? undefined : lineColumnAt(text, location))],
    };
  }
}

/** V8 names the offending offset in most JSON errors, and "end of JSON input" means the text stopped too early. */
function jsonErrorOffset(text: string, reason: string): number | undefined {
  const position = /at position (\d+)/.exec(reason)?.[1];
  if (position !== undefined) {
    return Number(position);
  }
  return reason.includes('end of JSON input') ? text.length : undefined;
}

function parseYaml(text: string): Parsed {
  try {
    return { ok: true, value: load(text, { schema: TOSCA_YAML_SCHEMA, json: true }) };
  } catch (error) {
    if (error instanceof YAMLException) {
      const location = error.mark ? { line: error.mark.line + 1, column: error.mark.column + 1 } : undefined;
      return { ok: false, problems: [syntaxProblem('YAML', error.reason, location)] };
    }
    const reason = error instanceof RangeError ? 'document nested too deeply' : String(error);
    return { ok: false, problems: [syntaxProblem('YAML', reason, undefined)] };
  }
}

interface LineColumn {
  line: number;
  column: number;
}

function syntaxProblem(format: string, reason: string, location: LineColumn | undefined): ToscaProblem {
  if (location === undefined) {
    return { path: '', rule: 'syntax', message: `Invalid ${format}: ${reason}` };
  }
  const where = `line ${location.line}, column ${location.column}`;
  return { path: '', rule: 'syntax', message: `Invalid ${format} at ${where}: ${reason}`, ...location };
}

/** 1-based line/column of a character offset. */
export function lineColumnAt(text: string, offset: number): LineColumn {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

/** Counts values as if every alias were copied, stopping as soon as a limit is passed. */
function exceedsLimits(root: unknown): boolean {
  let budget = MAX_EXPANDED_NODES;
  const visit = (value: unknown, depth: number): boolean => {
    budget -= 1;
    if (budget < 0 || depth > MAX_DEPTH) {
      return true;
    }
    if (typeof value !== 'object' || value === null) {
      return false;
    }
    const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
    return children.some((child) => visit(child, depth + 1));
  };
  return visit(root, 0);
}
