import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { PASSWORD, REPO_ROOT, USER, readRepoFile } from '../support/runtime-harness';

interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The package as a user gets it: `npm pack` of the built checkout, installed from the tarball in a scratch folder
 * (dependencies from npm's cache when it has them), and acmctl run there by `npx acmctl` against a running runtime.
 */
describe('the packed package', () => {
  let runtime: EmbeddedRuntime;
  let scratch: string;
  let connection: string[];

  const npxAcmctl = (args: string[]): Promise<CliResult> =>
    new Promise((resolve, reject) => {
      const child = spawn('npx', ['--no-install', 'acmctl', ...args, ...connection], {
        cwd: scratch,
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? scratch, XDG_CONFIG_HOME: scratch },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('package-runtime');
    connection = ['--url', `http://127.0.0.1:${runtime.port}`, '--user', USER, '--password', PASSWORD];
    scratch = mkdtempSync(join(tmpdir(), 'acm-package-'));
    execFileSync('npm', ['pack', '--pack-destination', scratch, '--silent'], { cwd: REPO_ROOT, stdio: 'pipe' });
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true }));
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', `./${tarball ?? 'missing.tgz'}`],
      { cwd: scratch, stdio: 'pipe' },
    );
  }, 600_000);

  afterAll(async () => {
    await runtime?.stop();
    if (scratch !== undefined) {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("answers acmctl --version with the package's version", async () => {
    const manifest = JSON.parse(readRepoFile('package.json')) as { version: string };
    const answer = await npxAcmctl(['--version']);
    expect(answer).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
  });

  it('commissions, primes and deploys with --wait, and lists definitions and instances with their states', async () => {
    const definition = join(REPO_ROOT, 'tosca/examples/sim-three-phase.yaml');
    const commissioned = await npxAcmctl(['definitions', 'commission', definition, '-o', 'json']);
    expect(commissioned.stderr).toBe('');
    const compositionId = (JSON.parse(commissioned.stdout) as { compositionId: string }).compositionId;
    expect(await npxAcmctl(['definitions', 'prime', compositionId, '--wait'])).toMatchObject({ code: 0 });

    const listed = await npxAcmctl(['definitions', 'list']);
    expect(listed.stdout.split('\n')[0]).toMatch(/^COMPOSITION\s+NAME\s+VERSION\s+PROJECT\s+STATE\s+RESULT$/);
    expect(listed.stdout).toMatch(
      new RegExp(`${compositionId}\\s+acm\\.example\\.SimThreePhase\\s+1\\.0\\.0\\s+default\\s+PRIMED\\s+NO_ERROR`),
    );

    const instanceFile = join(scratch, 'instance.json');
    writeFileSync(instanceFile, readFileSync(join(REPO_ROOT, 'tosca/examples/instances/sim-three-phase.json')));
    const created = await npxAcmctl([
      'instances',
      'create',
      instanceFile,
      '--composition',
      compositionId,
      '-o',
      'json',
    ]);
    const instanceId = (JSON.parse(created.stdout) as { instanceId: string }).instanceId;
    const deployed = await npxAcmctl(['instances', 'deploy', compositionId, instanceId, '--wait']);
    expect(deployed.code).toBe(0);
    expect(deployed.stdout.trimEnd().split('\n').pop()).toBe(`DEPLOY ${instanceId}: done`);

    const instances = await npxAcmctl(['instances', 'list', '--instance-ids', instanceId]);
    expect(instances.stdout.split('\n')[0]).toMatch(/PROJECT\s+DEPLOY\s+LOCK\s+RESULT\s+ALLOWED ORDERS$/);
    expect(instances.stdout).toMatch(
      /default\s+DEPLOYED\s+LOCKED\s+NO_ERROR\s+UNDEPLOY,UPDATE,MIGRATE,UNLOCK,MIGRATE_PRECHECK,REVIEW/,
    );
  });
});
