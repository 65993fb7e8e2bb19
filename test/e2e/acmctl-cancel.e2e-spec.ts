import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { PASSWORD, REPO_ROOT, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const ACMCTL = join(REPO_ROOT, 'dist/apps/acmctl/src/main.js');
const SIM_PARAMETERS = '/onap/policy/simparticipant/v2/parameters';

interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built binary as a user runs it, without a terminal (stdout is a pipe). */
function acmctl(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ACMCTL, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `acmctl instances deploy --wait` while another user cancels the deploy: the waiting command shows the CANCELLED
 * event, says who cancelled it, and exits 8 (the runtime as `npm start` runs it, the binary as a user runs it).
 */
describe('acmctl waiting on a deploy that is cancelled', () => {
  let runtime: EmbeddedRuntime;
  let configDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('acmctl-cancel-runtime');
    configDir = mkdtempSync(join(tmpdir(), 'acmctl-cancel-config-'));
    env = { XDG_CONFIG_HOME: configDir, HOME: configDir };
    const login = await acmctl(
      ['login', '--url', `http://127.0.0.1:${runtime.port}`, '--user', USER, '--password', PASSWORD],
      env,
    );
    expect(login).toMatchObject({ code: 0 });
  }, 120_000);

  afterAll(async () => {
    await runtime?.stop();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('shows CANCELLED and exits 8', async () => {
    const commissioned = await acmctl(
      ['definitions', 'commission', 'tosca/examples/sim-three-phase.yaml', '-o', 'json'],
      env,
    );
    expect(commissioned.code).toBe(0);
    const compositionId = (JSON.parse(commissioned.stdout) as { compositionId: string }).compositionId;
    expect(await acmctl(['definitions', 'prime', compositionId, '--wait'], env)).toMatchObject({ code: 0 });
    const file = join(configDir, 'CliCancelled.json');
    writeFileSync(file, readFileSync(join(REPO_ROOT, 'tosca/examples/instances/sim-three-phase.json'), 'utf8'));
    const created = await acmctl(['instances', 'create', file, '--composition', compositionId, '-o', 'json'], env);
    expect(created.stderr).toBe('');
    const instanceId = (JSON.parse(created.stdout) as { instanceId: string }).instanceId;

    const api = request.agent(`http://127.0.0.1:${runtime.port}`).auth(USER, PASSWORD);
    const instancePath = `/onap/policy/clamp/acm/v2/compositions/${compositionId}/instances/${instanceId}`;
    // The simulator's elements take long enough for the cancel to land while phase 0 runs.
    await api.put(SIM_PARAMETERS).send({ deployTimerMs: 30_000 }).expect(200);
    try {
      const waiting = acmctl(['instances', 'deploy', compositionId, instanceId, '--wait'], env);
      await eventually('the deploy running', async () => {
        const got = (await api.get(instancePath).expect(200)).body as { deployState: string };
        return got.deployState === 'DEPLOYING' ? true : undefined;
      });
      const cancelled = await acmctl(['instances', 'cancel', compositionId, instanceId], env);
      expect(cancelled).toMatchObject({ code: 0, stdout: `CANCEL ${instanceId}: accepted\n` });

      const waited = await waiting;
      expect(waited.code).toBe(8);
      const events = waited.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(' ')[2]);
      expect(events[0]).toBe('ORDERED');
      expect(events.at(-1)).toBe('CANCELLED');
      expect(waited.stderr).toContain(`DEPLOY CANCELLED by ${USER}`);
    } finally {
      await api.put(SIM_PARAMETERS).send({}).expect(200);
    }
  }, 240_000);
});
