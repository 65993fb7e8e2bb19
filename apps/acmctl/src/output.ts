import { dump as dumpYaml } from 'js-yaml';
import { AcmctlError, EXIT } from './exit-codes';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function parseOutputFormat(text: string): OutputFormat {
  const format = OUTPUT_FORMATS.find((candidate) => candidate === text);
  if (format === undefined) {
    throw new AcmctlError(EXIT.USAGE, `-o/--output: must be one of ${OUTPUT_FORMATS.join(', ')}, got "${text}"`);
  }
  return format;
}

export interface TableView {
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** Columns padded to their widest cell; the last column is not padded so lines carry no trailing blanks. */
export function formatTable(view: TableView): string {
  const all = [view.headers, ...view.rows];
  const widths = view.headers.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The answer in the chosen format; `table` uses the command's own view of it. */
export function render(value: unknown, format: OutputFormat, table: (value: unknown) => TableView | string): string {
  switch (format) {
    case 'json':
      return JSON.stringify(value, null, 2);
    case 'yaml':
      return dumpYaml(value, { noRefs: true, lineWidth: 120 }).trimEnd();
    case 'table': {
      const view = table(value);
      return typeof view === 'string' ? view : formatTable(view);
    }
  }
}

/** A field of an answer, read defensively: the runtime's bodies are data, not trusted types. */
export function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

export function text(value: unknown): string {
  if (value === undefined || value === null) {
    return '';
  }
  if (typeof value === 'string') {
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return JSON.stringify(value) ?? '';
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
