import type { ImportLine } from './onap-import/onap-importer';
import { IMPORT_EXIT, exitCodeOf, parseImportArguments } from './import-onap';

const line = (outcome: ImportLine['outcome']): ImportLine => ({
  kind: 'instance',
  id: 'i',
  label: 'I 1.0.0',
  outcome,
  detail: null,
});

describe('import:onap arguments', () => {
  it('reads --from, --from-schema, --dry-run and --transitional', () => {
    expect(
      parseImportArguments(
        ['--from', 'postgres://u:p@h:5432/clampacm', '--from-schema', 'onap', '--dry-run', '--transitional=as-failed'],
        {},
      ),
    ).toEqual({ from: 'postgres://u:p@h:5432/clampacm', fromSchema: 'onap', dryRun: true, transitional: 'as-failed' });
  });

  it('takes the URL from ONAP_DATABASE_URL, and defaults to public, a real run, refusing transitions', () => {
    expect(parseImportArguments([], { ONAP_DATABASE_URL: 'postgres://h/clampacm' })).toEqual({
      from: 'postgres://h/clampacm',
      fromSchema: 'public',
      dryRun: false,
      transitional: 'refuse',
    });
  });

  it('names what is wrong with the command line', () => {
    expect(parseImportArguments([], {})).toEqual({ problem: 'name ONAP’s database with --from or ONAP_DATABASE_URL' });
    expect(parseImportArguments(['--from', 'x', '--transitional=maybe'], {})).toEqual({
      problem: '--transitional must be one of refuse, as-failed, as-target, got "maybe"',
    });
    expect(parseImportArguments(['--from', 'x', '--force'], {})).toMatchObject({
      problem: expect.stringContaining("Unknown option '--force'") as unknown,
    });
  });
});

describe('import:onap exit code', () => {
  it('is 3 when a row was refused, 0 when every row is imported, unchanged or kept', () => {
    const report = (outcomes: Array<ImportLine['outcome']>) => ({
      schemaVersion: '1801',
      dryRun: false,
      lines: outcomes.map(line),
    });
    expect(exitCodeOf(report(['imported', 'unchanged', 'kept']))).toBe(IMPORT_EXIT.DONE);
    expect(exitCodeOf(report(['imported', 'refused']))).toBe(3);
  });
});
