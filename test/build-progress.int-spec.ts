import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './support/runtime-harness';

interface Step {
  name: string;
  commands: ReadonlyArray<ReadonlyArray<string>>;
}

interface BuildScript {
  BUILD: ReadonlyArray<ReadonlyArray<Step>>;
  runBuild(
    stages: ReadonlyArray<ReadonlyArray<Step>>,
    options: { cwd?: string; print?: (line: string) => void },
  ): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { BUILD, runBuild } = require(join(REPO_ROOT, 'scripts', 'build.js')) as BuildScript;

/** A step of stand-in commands that exit with `code` (node itself, so the test compiles nothing). */
const step = (name: string, code = 0): Step => ({
  name,
  commands: [[process.execPath, '-e', `process.exit(${code})`]],
});

/**
 * `npm run build` (which `npm start` runs on a fresh clone) says what it is doing: a line as each step starts and one
 * as it ends with its duration. Driven with stand-in steps, so nothing is compiled.
 */
describe('scripts/build.js', () => {
  it('prints each step as it starts and as it ends, with its duration, stage after stage', async () => {
    const lines: string[] = [];
    await runBuild([[step('first'), step('beside')], [step('after')]], { print: (line) => lines.push(line) });

    expect(lines.slice(0, 2)).toEqual(['build 1/3 first …', 'build 2/3 beside …']);
    const ended = (label: string): number =>
      lines.findIndex((line) => new RegExp(`^${label} \\d+(\\.\\d)? s$`).test(line));
    const afterStarts = lines.indexOf('build 3/3 after …');
    expect(ended('build 1/3 first')).toBeGreaterThan(1);
    expect(ended('build 2/3 beside')).toBeGreaterThan(1);
    expect(afterStarts).toBeGreaterThan(Math.max(ended('build 1/3 first'), ended('build 2/3 beside')));
    expect(ended('build 3/3 after')).toBeGreaterThan(afterStarts);
    expect(lines.at(-1)).toMatch(/^build done in \d+(\.\d)? s$/);
    expect(lines).toHaveLength(7);
  });

  it('stops at a failed step with its exit code and says which step failed', async () => {
    const lines: string[] = [];
    await expect(
      runBuild([[step('broken', 3)], [step('never')]], { print: (line) => lines.push(line) }),
    ).rejects.toMatchObject({ exitCode: 3 });

    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('build 1/2 broken …');
    expect(lines[1]).toMatch(/^build 1\/2 broken failed after \d+(\.\d)? s$/);
  });

  it('is what `npm run build` runs: TypeScript beside the console, then the embedded snapshot', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts['build']).toBe('node scripts/build.js');
    expect(BUILD.map((stage) => stage.map(({ name }) => name))).toEqual([
      ['TypeScript (tsc, tsc-alias)', 'web console (vite)'],
      ['embedded database snapshot'],
    ]);
  });
});
