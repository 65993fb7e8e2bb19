import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { freePort } from '../support/processes';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { PASSWORD, REPO_ROOT, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const ACMCTL = join(REPO_ROOT, 'dist/apps/acmctl/src/main.js');

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

describe('acmctl against the runtime as npm start runs it', () => {
  let runtime: EmbeddedRuntime;
  let configDir: string;
  let env: Record<string, string>;
  let compositionId: string;
  let instancesCreated = 0;

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('acmctl-runtime');
    configDir = mkdtempSync(join(tmpdir(), 'acmctl-config-'));
    env = { XDG_CONFIG_HOME: configDir, HOME: configDir };
    const login = await acmctl(
      ['login', '--url', `http://127.0.0.1:${runtime.port}`, '--user', USER, '--password', PASSWORD],
      env,
    );
    expect(login).toMatchObject({ code: 0 });
    const commissioned = await acmctl(
      ['definitions', 'commission', 'tosca/examples/sim-three-phase.yaml', '-o', 'json'],
      env,
    );
    expect(commissioned.code).toBe(0);
    compositionId = (JSON.parse(commissioned.stdout) as { compositionId: string }).compositionId;
    const primed = await acmctl(['definitions', 'prime', compositionId, '--wait'], env);
    expect(primed.stdout).toContain('COMPLETED state=PRIMED');
    expect(primed.code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await runtime?.stop();
    rmSync(configDir, { recursive: true, force: true });
  });

  async function createInstance(name: string): Promise<string> {
    const example = readFileSync(join(REPO_ROOT, 'tosca/examples/instances/sim-three-phase.json'), 'utf8');
    // each instance of the suite needs its own name and element ids (element ids are unique across instances)
    const suffix = (++instancesCreated).toString(16).padStart(4, '0');
    const file = join(configDir, `${name}.json`);
    writeFileSync(
      file,
      example.replace('SimThreePhaseInstance', name).replaceAll('-8000-00000000', `-8000-${suffix}0000`),
    );
    const created = await acmctl(['instances', 'create', file, '--composition', compositionId, '-o', 'json'], env);
    expect(created.stderr).toBe('');
    return (JSON.parse(created.stdout) as { instanceId: string }).instanceId;
  }

  it('deploys three phases with --wait, one line per event in order, and exits 0', async () => {
    const instanceId = await createInstance('CliDeploy');

    const deployed = await acmctl(['instances', 'deploy', compositionId, instanceId, '--wait'], env);

    expect(deployed.stderr).toBe('');
    expect(deployed.code).toBe(0);
    const lines = deployed.stdout.trimEnd().split('\n');
    expect(lines.pop()).toBe(`DEPLOY ${instanceId}: done`);
    const events = lines.map((line) => line.split(' ')[2]).filter((event) => event !== undefined);
    expect(events).toEqual([
      'ORDERED',
      ...[0, 1, 2].flatMap(() => ['PHASE_STARTED', 'ELEMENT_RESULT', 'ELEMENT_RESULT', 'PHASE_COMPLETED']),
      'COMPLETED',
    ]);
    expect(deployed.stdout).toContain('PHASE_STARTED phase 2: acm.example.phases.Phase2A, acm.example.phases.Phase2B');
    const shown = await acmctl(['instances', 'get', compositionId, instanceId, '-o', 'json'], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED' });
    const timeline = await acmctl(['history', compositionId, instanceId, '--timeline'], env);
    expect(timeline.stdout).toMatch(
      /DEPLOY COMPLETED {2}\d+ ms\n {2}phase 0 {2}\d+ ms\n {2}phase 1 {2}\d+ ms\n {2}phase 2 {2}\d+ ms/,
    );

    // an order the state does not allow: the runtime's errorDetails, exit code 4
    const refused = await acmctl(['instances', 'deploy', compositionId, instanceId], env);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('answered 400');
    expect(refused.stderr).toContain('Not valid order');
    expect(refused.stderr).toContain('allowed now: UNDEPLOY');

    // a delete waits until the instance is gone (its history outlives it)
    const undeployed = await acmctl(['instances', 'undeploy', compositionId, instanceId, '--wait'], env);
    expect(undeployed.code).toBe(0);
    const deleted = await acmctl(
      ['--timeout', '20000', 'instances', 'delete', compositionId, instanceId, '--wait'],
      env,
    );
    expect(deleted.stderr).toBe('');
    expect(deleted.code).toBe(0);
    const gone = await acmctl(['instances', 'get', compositionId, instanceId], env);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('answered 404');
  });

  it('exports histories as NDJSON: an instance to stdout, the whole runtime to a file; an unknown one exits 4', async () => {
    const instanceId = await createInstance('ExportedInstance');
    expect((await acmctl(['instances', 'deploy', compositionId, instanceId, '--wait'], env)).code).toBe(0);
    type Line = { record: string; subjectId: string; sequence?: number; order?: string };
    const parse = (text: string): Line[] =>
      text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Line);

    const exported = await acmctl(['history', 'export', compositionId, instanceId], env);
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const lines = parse(exported.stdout);
    expect(lines.every((line) => line.subjectId === instanceId)).toBe(true);
    expect(lines.filter((line) => line.record === 'operation').map((line) => line.order)).toEqual(['DEPLOY']);
    expect(lines[0]?.record).toBe('operation');
    const sequences = lines.filter((line) => line.record === 'event').map((line) => line.sequence ?? 0);
    expect(sequences.length).toBeGreaterThan(3);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));

    const file = join(configDir, 'runtime-history.ndjson');
    const toFile = await acmctl(['history', 'export', '--file', file], env);
    expect(toFile).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const all = parse(readFileSync(file, 'utf8'));
    expect(all.filter((line) => line.subjectId === instanceId)).toEqual(lines);
    expect(all.some((line) => line.subjectId === compositionId)).toBe(true);

    const unknown = await acmctl(['history', 'export', compositionId, '00000000-0000-4000-8000-000000000000'], env);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('404');
  });

  it('exits 2 with the failure when the participant fails the deploy', async () => {
    const instanceId = await createInstance('CliDeployFails');
    const api = request(`http://127.0.0.1:${runtime.port}`);
    const failing = await api
      .put('/onap/policy/simparticipant/v2/parameters')
      .auth(USER, PASSWORD)
      .send({ deploySuccess: false, deployTimerMs: 0 });
    expect(failing.status).toBe(200);
    try {
      const deployed = await acmctl(['instances', 'deploy', compositionId, instanceId, '--wait'], env);

      expect(deployed.code).toBe(2);
      // The first failed element ends the operation; which of the two phase-0 elements answers first is up to
      // the participant.
      expect(deployed.stdout).toMatch(/ELEMENT_RESULT acm\.example\.phases\.Phase0[AB] UNDEPLOYED\/NONE FAILED/);
      expect(deployed.stderr).toContain('DEPLOY FAILED: Deploy failed!');
    } finally {
      await api.put('/onap/policy/simparticipant/v2/parameters').auth(USER, PASSWORD).send({});
    }
  });

  it('pauses a running deploy, shows it paused, resumes it to DEPLOYED, and refuses a pause when nothing runs', async () => {
    const instanceId = await createInstance('CliPause');
    const api = request(`http://127.0.0.1:${runtime.port}`);
    // Slow elements keep the operation running while acmctl pauses it.
    await api.put('/onap/policy/simparticipant/v2/parameters').auth(USER, PASSWORD).send({ deployTimerMs: 5000 });
    try {
      expect(await acmctl(['instances', 'deploy', compositionId, instanceId], env)).toMatchObject({ code: 0 });

      const paused = await acmctl(['instances', 'pause', compositionId, instanceId], env);
      expect(paused.stderr).toBe('');
      expect(paused.code).toBe(0);
      expect(paused.stdout).toMatch(/^PAUSE \S+: DEPLOY \S+: paused, resent \d+, retried \d+$/m);
      const control = await acmctl(['instances', 'control', compositionId, instanceId, '-o', 'json'], env);
      expect(JSON.parse(control.stdout)).toMatchObject({ running: { order: 'DEPLOY', paused: true } });

      const resumed = await acmctl(['instances', 'resume', compositionId, instanceId, '--wait'], env);
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      expect(resumed.stdout.trimEnd().split('\n').pop()).toBe(`RESUME ${instanceId}: done`);
      const shown = await acmctl(['instances', 'get', compositionId, instanceId, '-o', 'json'], env);
      expect(JSON.parse(shown.stdout)).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED' });

      const refused = await acmctl(['instances', 'pause', compositionId, instanceId], env);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain('answered 409');
    } finally {
      await api.put('/onap/policy/simparticipant/v2/parameters').auth(USER, PASSWORD).send({});
    }
  });

  it('cancels a running deploy, leaving a state from which undeploy works', async () => {
    const instanceId = await createInstance('CliCancel');
    const api = request(`http://127.0.0.1:${runtime.port}`);
    await api.put('/onap/policy/simparticipant/v2/parameters').auth(USER, PASSWORD).send({ deployTimerMs: 5000 });
    try {
      expect(await acmctl(['instances', 'deploy', compositionId, instanceId], env)).toMatchObject({ code: 0 });

      const cancelled = await acmctl(['instances', 'cancel', compositionId, instanceId], env);
      expect(cancelled.stderr).toBe('');
      expect(cancelled).toMatchObject({ code: 0, stdout: `CANCEL ${instanceId}: accepted\n` });
      const shown = await acmctl(['instances', 'get', compositionId, instanceId, '-o', 'json'], env);
      expect(JSON.parse(shown.stdout)).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'FAILED' });
      const control = await acmctl(['instances', 'control', compositionId, instanceId], env);
      expect(control.stdout).toBe('nothing runs\n');

      const undeployed = await acmctl(['instances', 'undeploy', compositionId, instanceId, '--wait'], env);
      expect(undeployed.stderr).toBe('');
      expect(undeployed.code).toBe(0);
    } finally {
      await api.put('/onap/policy/simparticipant/v2/parameters').auth(USER, PASSWORD).send({});
    }
  });

  it('signals a wait condition, and prints a signed URL that signals it without credentials', async () => {
    const commissioned = await acmctl(
      ['definitions', 'commission', 'tosca/examples/sim-approval.yaml', '-o', 'json'],
      env,
    );
    const approvalComposition = (JSON.parse(commissioned.stdout) as { compositionId: string }).compositionId;
    expect(await acmctl(['definitions', 'prime', approvalComposition, '--wait'], env)).toMatchObject({ code: 0 });
    const example = readFileSync(join(REPO_ROOT, 'tosca/examples/instances/sim-approval.json'), 'utf8');
    const file = join(configDir, 'CliApproval.json');
    writeFileSync(
      file,
      example.replace('SimApprovalInstance', 'CliApproval').replaceAll('-8000-0000000130', '-8000-00000a0130'),
    );
    const created = await acmctl(
      ['instances', 'create', file, '--composition', approvalComposition, '-o', 'json'],
      env,
    );
    const instanceId = (JSON.parse(created.stdout) as { instanceId: string }).instanceId;
    const approval = '5e1f0000-0000-4000-8000-00000a013002';
    expect(await acmctl(['instances', 'deploy', approvalComposition, instanceId], env)).toMatchObject({ code: 0 });
    const api = request(`http://127.0.0.1:${runtime.port}`);
    const instancePath = `/onap/policy/clamp/acm/v2/compositions/${approvalComposition}/instances/${instanceId}`;
    await eventually('the approval waiting', async () => {
      const current = (await api.get(instancePath).auth(USER, PASSWORD)).body as {
        elements: Record<string, { outProperties?: { waitCondition?: { outcome?: string } } }>;
      };
      return current.elements[approval]?.outProperties?.waitCondition?.outcome === 'WAITING' ? true : undefined;
    });

    const refused = await acmctl(
      ['instances', 'signal', approvalComposition, instanceId, approval, '--status', 'MAYBE'],
      env,
    );
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('status: must be SUCCESS or FAILURE');
    const url = await acmctl(['instances', 'signal-url', approvalComposition, instanceId, approval], env);
    expect(url.code).toBe(0);
    expect(url.stdout).toMatch(/\/elements\/5e1f0000-0000-4000-8000-00000a013002\/signal\?token=\d+\.[\w-]{43}\n$/);
    const signed = await acmctl(
      [
        'instances',
        'signal',
        approvalComposition,
        instanceId,
        approval,
        '--status',
        'SUCCESS',
        '--id',
        'cli-1',
        '--reason',
        'ok',
      ],
      env,
    );
    expect(signed.stderr).toBe('');
    expect(signed).toMatchObject({ code: 0, stdout: `SIGNAL ${approval}: COMPLETED (1/1)\n` });
    const again = await acmctl(
      ['instances', 'signal', approvalComposition, instanceId, approval, '--status', 'SUCCESS', '--id', 'cli-1'],
      env,
    );
    expect(again.stdout).toBe(`SIGNAL ${approval}: DUPLICATE (1/1)\n`);
    await eventually('DEPLOYED', async () => {
      const current = (await api.get(instancePath).auth(USER, PASSWORD)).body as { deployState: string };
      return current.deployState === 'DEPLOYED' ? true : undefined;
    });
  });

  it('exits 6 with the runtime answer on wrong credentials, overriding the profile from the environment', async () => {
    const result = await acmctl(['definitions', 'list'], { ...env, ACM_PASSWORD: 'wrong' });

    expect(result.code).toBe(6);
    expect(result.stderr).toContain('answered 401');
    expect(result.stderr).toContain('wrong user name or password');
  });

  it('exits 5 naming the network error when no runtime listens', async () => {
    const closedPort = await freePort();

    const result = await acmctl(['definitions', 'list', '--url', `http://127.0.0.1:${closedPort}`], env);

    expect(result.code).toBe(5);
    expect(result.stderr).toContain(`cannot reach the runtime at http://127.0.0.1:${closedPort}: ECONNREFUSED`);
  });

  it('exits 1 on a file that is neither JSON nor YAML, before calling the runtime', async () => {
    const file = join(configDir, 'broken.yaml');
    writeFileSync(file, '{ name: [unclosed\n');

    const result = await acmctl(['definitions', 'commission', file], env);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('neither JSON nor YAML');
  });

  it("prints a definition's generated docs as Markdown, or HTML with --html", async () => {
    const markdown = await acmctl(['docs', compositionId], env);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toMatch(/^# /);
    expect(markdown.stdout).toContain('acm.example.phases.Phase2B');

    const html = await acmctl(['docs', compositionId, '--html'], env);
    expect(html.code).toBe(0);
    expect(html.stdout).toContain('<h1');
  });

  it('prints bash and zsh completion scripts that bash accepts and that complete sub-commands', async () => {
    const bash = await acmctl(['completion', 'bash'], env);
    const zsh = await acmctl(['completion', 'zsh'], env);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain(bash.stdout.trim());

    // The script, sourced in bash, completes "acmctl inst" and "acmctl instances dep".
    const completing = spawnSync(
      'bash',
      [
        '-c',
        `${bash.stdout}
COMP_WORDS=(acmctl inst); COMP_CWORD=1; _acmctl; echo "\${COMPREPLY[*]}"
COMP_WORDS=(acmctl instances dep); COMP_CWORD=2; _acmctl; echo "\${COMPREPLY[*]}"`,
      ],
      { encoding: 'utf8' },
    );
    expect(completing.stdout.split('\n')).toEqual(['instances', 'deploy', '']);

    const unknown = await acmctl(['completion', 'fish'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('shell must be bash or zsh');
  });
});
