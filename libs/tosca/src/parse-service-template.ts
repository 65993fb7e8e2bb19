import type { BodyRefusal } from '@acm/input-guards';
import { parseBody } from '@acm/input-guards';

import { describeKind, isMapping } from './guards';
import type { ToscaProblem } from './problem';
import type { ServiceTemplate } from './service-template';

/** Body formats the runtime accepts (ONAP accepts `application/json` and `application/yaml`). */
export type ToscaContentType = 'json' | 'yaml';

/** Either the parsed template (a mapping, not yet validated) or why the body could not be read. */
export type ParseResult = { ok: true; template: ServiceTemplate } | { ok: false; problems: ToscaProblem[] };

/**
 * Turns a body into a service template object through the one guarded parser (syntax errors with line/column, alias
 * expansion, depth and text rules), so that the runtime never has to deal with parser exceptions. Only the top level
 * is checked here (it must be a mapping); {@link validateServiceTemplate} checks the TOSCA content.
 */
export function parseServiceTemplate(text: string, contentType?: ToscaContentType): ParseResult {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const parsed = parseBody(body, contentType ?? detectContentType(body));
  if (!parsed.ok) {
    return { ok: false, problems: [problemOf(parsed.refusal)] };
  }
  if (!isMapping(parsed.value)) {
    const message =
      parsed.value === undefined || parsed.value === null
        ? 'The body is empty: expected a TOSCA service template'
        : `The body is ${describeKind(parsed.value)}: a TOSCA service template must be a mapping`;
    return { ok: false, problems: [{ path: '', rule: 'not-a-mapping', message }] };
  }
  return { ok: true, template: parsed.value as ServiceTemplate };
}

/** Clients often omit or mislabel Content-Type; a JSON object is recognisable by its first character. */
function detectContentType(text: string): ToscaContentType {
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

/** A refusal of the guarded parser as a TOSCA problem: size and depth refusals are `too-large`. */
export function problemOf(refusal: BodyRefusal): ToscaProblem {
  const rule = refusal.rule === 'too-many-values' || refusal.rule === 'too-deep' ? 'too-large' : 'syntax';
  const location = refusal.line === undefined ? {} : { line: refusal.line, column: refusal.column };
  return { path: refusal.path, rule, message: refusal.message, ...location };
}
