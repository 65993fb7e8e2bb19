import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, readRepoFile } from './support/runtime-harness';

const check = (dir: string) =>
  spawnSync('bash', [join(REPO_ROOT, 'scripts/check-onap-reference.sh')], {
    env: { PATH: process.env['PATH'] ?? '', ONAP_REFERENCE_DIR: dir },
    encoding: 'utf8',
  });

describe("the check of ONAP's reference files", () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'onap-reference-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('says in one line where the files come from and how to point at them, when they are missing', () => {
    const result = check(join(scratch, 'missing'));
    expect(result.status).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`not in ${join(scratch, 'missing')}`);
    expect(lines[0]).toContain('onap/policy-clamp');
    expect(lines[0]).toContain('ONAP_REFERENCE_DIR');
  });

  it('says nothing when ONAP_REFERENCE_DIR holds them', () => {
    mkdirSync(join(scratch, 'csit-data'));
    const result = check(scratch);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
  });

  it('runs in CI before the conformance stage', () => {
    const ci = readRepoFile('.ci/run');
    const checkAt = ci.indexOf('bash scripts/check-onap-reference.sh');
    expect(checkAt).toBeGreaterThan(0);
    expect(checkAt).toBeLessThan(ci.indexOf('step conformance'));
  });
});
