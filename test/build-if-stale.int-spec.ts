import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './support/runtime-harness';

/**
 * `npm start` builds only a missing or stale dist. The script runs in a scratch tree whose `build` script
 * only counts its runs, so the check is exercised without compiling the project.
 */
describe('scripts/build-if-stale.js', () => {
  let tree: string;
  const builds = (): number => Number(readFileSync(join(tree, 'builds.txt'), 'utf8').trim() || '0');
  const check = (...args: string[]): void => {
    execFileSync(process.execPath, [join(tree, 'scripts', 'build-if-stale.js'), ...args], { cwd: tree, stdio: 'pipe' });
  };

  beforeEach(() => {
    tree = mkdtempSync(join(tmpdir(), 'acm-build-check-'));
    mkdirSync(join(tree, 'scripts'));
    mkdirSync(join(tree, 'apps', 'a'), { recursive: true });
    mkdirSync(join(tree, 'libs', 'b'), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'scripts', 'build-if-stale.js'), join(tree, 'scripts', 'build-if-stale.js'));
    writeFileSync(join(tree, 'apps', 'a', 'main.ts'), 'export const a = 1;\n');
    writeFileSync(join(tree, 'libs', 'b', 'index.ts'), 'export const b = 1;\n');
    writeFileSync(join(tree, 'tsconfig.json'), '{}\n');
    writeFileSync(join(tree, 'builds.txt'), '0\n');
    // The stand-in build empties dist like the real one, then counts itself.
    const build =
      "rm -rf dist && mkdir dist && node -e \"const f='builds.txt';require('fs').writeFileSync(f,String(Number(require('fs').readFileSync(f,'utf8'))+1))\"";
    writeFileSync(join(tree, 'package.json'), JSON.stringify({ name: 'scratch', private: true, scripts: { build } }));
  });

  afterEach(() => rmSync(tree, { recursive: true, force: true }));

  it('builds a missing dist once, then not again while nothing changed', () => {
    check();
    expect(builds()).toBe(1);
    check();
    check();
    expect(builds()).toBe(1);
  });

  it('builds again when a source changes, appears or disappears, or when forced', () => {
    check();
    const later = new Date(Date.now() + 10_000);
    utimesSync(join(tree, 'libs', 'b', 'index.ts'), later, later);
    check();
    expect(builds()).toBe(2);
    writeFileSync(join(tree, 'apps', 'a', 'extra.ts'), 'export const c = 1;\n');
    check();
    expect(builds()).toBe(3);
    unlinkSync(join(tree, 'apps', 'a', 'extra.ts'));
    check();
    expect(builds()).toBe(4);
    check('--force');
    expect(builds()).toBe(5);
    check();
    expect(builds()).toBe(5);
  });

  it('builds again when dist was removed', () => {
    check();
    rmSync(join(tree, 'dist'), { recursive: true, force: true });
    check();
    expect(builds()).toBe(2);
  });
});
