import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InstanceInputKind } from '@acm/domain';
import { INSTANCE_INPUTS, INSTANCE_PASSES } from '@acm/domain';

const ROOT = join(__dirname, '..');
const KINDS = Object.keys(INSTANCE_INPUTS) as InstanceInputKind[];

/** The rows of the markdown table whose header starts with `header`, as cells. */
function tableRows(header: string): string[][] {
  const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const start = text.indexOf(header);
  expect(start).toBeGreaterThanOrEqual(0);
  const table = text.slice(start, text.indexOf('\n\n', start)).split('\n').slice(2);
  return table.map((row) =>
    row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
}

function backticked(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}

describe('the operation machine as docs/architecture.md describes it', () => {
  it('names, for every input kind, the module that decides it, and that module exists', () => {
    const rows = tableRows('| Module (`libs/domain/src/operation/`)');
    const named = rows.flatMap((row) => backticked(row[1]!));
    expect([...named].sort()).toEqual([...KINDS].sort());
    for (const row of rows) {
      for (const file of backticked(row[0]!)) {
        expect(existsSync(join(ROOT, 'libs/domain/src/operation', file))).toBe(true);
      }
    }
  });

  it('lists each pass with the inputs its entry in INSTANCE_PASSES may change', () => {
    const rows = tableRows('| Pass ');
    expect(rows.map((row) => backticked(row[0]!)[0])).toEqual(INSTANCE_PASSES.map((pass) => pass.name));
    for (const [index, row] of rows.entries()) {
      const cell = row[1]!;
      const listed = cell.startsWith('every input but')
        ? KINDS.filter((kind) => !backticked(cell).includes(kind))
        : backticked(cell);
      expect([...listed].sort()).toEqual([...INSTANCE_PASSES[index]!.changes].sort());
    }
  });
});
