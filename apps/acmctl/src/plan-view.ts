import type { TableView } from './output';
import { field, list, text } from './output';

/** How `tofu plan` marks what an order does to an element; unchanged elements are not listed. */
const MARKS: Readonly<Record<string, string>> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
};

const RESET = '\u001b[0m';
const COLOURS: Readonly<Record<string, string>> = {
  create: '\u001b[32m',
  update: '\u001b[33m',
  replace: '\u001b[35m',
  delete: '\u001b[31m',
};

/** Whether plan output is coloured: on a terminal, unless NO_COLOR is set (https://no-color.org). */
export function useColours(isTerminal: boolean, env: NodeJS.ProcessEnv): boolean {
  return isTerminal && (env['NO_COLOR'] ?? '') === '';
}

const count = (summary: unknown, action: string): number => Number(field(summary, action) ?? 0);

/**
 * The answer of POST .../plan as `tofu plan` prints a plan: one line per element the order changes (`+ create`,
 * `~ update`, `-/+ replace`, `- delete`) with its changed properties as `path: old → new`, the summary line, and the
 * planId to send with the order.
 */
export function planDiffText(body: unknown, colours: boolean): string {
  const paint = (action: string, value: string): string =>
    colours && COLOURS[action] !== undefined ? `${COLOURS[action]}${value}${RESET}` : value;
  const lines: string[] = [];
  for (const element of list(field(body, 'changes'))) {
    const action = text(field(element, 'action'));
    const mark = MARKS[action];
    if (mark === undefined) {
      continue;
    }
    const forcedBy = list(field(element, 'forcedBy')).map(text);
    lines.push(
      `${paint(action, mark.padStart(3))} ${text(field(element, 'name'))} (${text(field(element, 'elementId'))})` +
        (forcedBy.length > 0 ? ` # forced by ${forcedBy.join(', ')}` : ''),
    );
    const definition = field(element, 'definition');
    if (definition !== undefined) {
      lines.push(
        `      version: ${text(field(field(definition, 'old'), 'version'))} → ${text(field(field(definition, 'new'), 'version'))}`,
      );
    }
    for (const change of list(field(element, 'changes'))) {
      lines.push(`      ${text(field(change, 'text'))}`);
    }
  }
  const summary = field(body, 'summary');
  if (lines.length === 0) {
    lines.push('No changes to any element.');
  }
  lines.push(
    '',
    `Plan: ${count(summary, 'create')} to create, ${count(summary, 'update')} to update, ` +
      `${count(summary, 'replace')} to replace, ${count(summary, 'delete')} to delete.`,
    `planId: ${text(field(body, 'planId'))}`,
  );
  return lines.join('\n');
}

/** `web.baseUrl ← (known after deploy)`: what the references of a step's elements read, by where each is written. */
function readsOf(elements: readonly unknown[]): string {
  return elements
    .flatMap((element) =>
      Object.entries((field(element, 'references') as Record<string, unknown> | undefined) ?? {}).map(
        ([at, value]) =>
          `${text(field(element, 'name'))}.${at} ← ${typeof value === 'string' ? value : JSON.stringify(value)}`,
      ),
    )
    .join('; ');
}

/**
 * One row per step of a plan: what is sent, in which phase, and what each element waits for; a READS column too
 * when an element's properties read another's (get_attribute, get_property).
 */
export function planTable(body: unknown): TableView {
  const steps = list(field(body, 'steps'));
  const names = new Map<string, string>();
  for (const step of steps) {
    for (const element of list(field(step, 'elements'))) {
      names.set(text(field(element, 'elementId')), text(field(element, 'name')));
    }
  }
  const reads = steps.map((step) => readsOf(list(field(step, 'elements'))));
  const withReads = reads.some((value) => value !== '');
  return {
    headers: ['STEP', 'KIND', 'PHASE', 'ELEMENTS', 'WAITS FOR', ...(withReads ? ['READS'] : [])],
    rows: steps.map((step, index) => {
      const elements = list(field(step, 'elements'));
      const waits = elements.flatMap((element) =>
        list(field(element, 'waitsFor')).map((id) => names.get(text(id)) ?? text(id)),
      );
      return [
        text(field(step, 'step')),
        text(field(step, 'kind')),
        text(field(step, 'phase')),
        elements.map((element) => text(field(element, 'name'))).join(', '),
        [...new Set(waits)].join(', '),
        ...(withReads ? [reads[index] ?? ''] : []),
      ];
    }),
  };
}
