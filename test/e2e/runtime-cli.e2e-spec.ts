import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/runtime-harness';

interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A built CLI of the runtime (dist/apps/runtime-acm/src/cli/NAME.js) as npm runs it. */
function cli(name: string, args: string[]): CliResult {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, `dist/apps/runtime-acm/src/cli/${name}.js`), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the runtime's CLIs (built, one shared entry)", () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'acm-cli-'));
  });

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it.each([
    ['docs-tosca', 'usage: npm run docs:tosca -- FILE [--out PAGE.md]'],
    ['openapi', 'usage: node dist/apps/runtime-acm/src/cli/openapi.js FILE.json'],
    ['embedded-snapshot', 'usage: node dist/apps/runtime-acm/src/cli/embedded-snapshot.js DIRECTORY'],
  ])('%s without its argument prints its usage and exits 2', (name, usage) => {
    expect(cli(name, [])).toEqual({ code: 2, stdout: '', stderr: `${usage}\n` });
  });

  it('docs-tosca writes the page for a template and exits 0', () => {
    const out = join(directory, 'page.md');
    const result = cli('docs-tosca', ['tosca/examples/sim-single-element.yaml', '--out', out]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(out, 'utf8')).toMatch(/^# acm\.example\.single\.Composition 1\.0\.0\n/);
  });

  it('docs-tosca answers a template it cannot document with its problems and exit 1', () => {
    const result = cli('docs-tosca', ['package.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('package.json is not a commissionable composition:');
  });

  // A synchronous throw (docs-tosca) and a rejection (openapi) end the same way: the stack, then exit 1.
  it.each([
    ['docs-tosca', 'no-such-template.yaml'],
    ['openapi', 'no-such-folder/openapi.json'],
  ])('%s prints the stack of an error and exits 1', (name, file) => {
    const result = cli(name, [join(directory, file)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error: ENOENT: no such file or directory[^\n]*\n {4}at /);
  });
});
