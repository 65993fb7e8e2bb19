import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { readmeShellBlocks, runWalk, startEmbeddedRuntime } from '../support/readme-walk';

/**
 * The README's curl walk, pasted whole into bash against the runtime as `npm start` runs it: every order
 * waits for the state before it, so no step is refused and the walk ends with the definition deleted.
 */
describe("the README's walks against the embedded default", () => {
  let runtime: EmbeddedRuntime;

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('readme-walk-runtime');
  }, 120_000);

  afterAll(async () => {
    await runtime?.stop();
  });

  it('runs pasted as one block: every call succeeds, from commissioning to deleting the definition', async () => {
    const [walk] = readmeShellBlocks('Try it with curl');
    expect(walk).toContain('wait_for');
    const script = walk!.replaceAll('localhost:6969', `127.0.0.1:${runtime.port}`);
    const result = await runWalk(script);

    expect(result.stderr).not.toContain('gave up waiting');
    expect(result.exitCode).toBe(0);
    const refused = result.calls.filter((call) => call.status >= 400 || call.status === 0);
    expect(refused).toEqual([]);
    const orders = result.calls.filter((call) => call.method !== 'GET').map((call) => `${call.method} ${call.status}`);
    expect(orders).toEqual([
      'POST 201', // commission
      'PUT 202', // prime
      'POST 201', // instance
      'PUT 202', // deploy
      'PUT 202', // undeploy
      'DELETE 202', // instance
      'PUT 202', // deprime
      'DELETE 200', // definition
    ]);
    expect(result.stdout).toContain('"deployState": "DEPLOYED"');
    expect(result.stdout).toContain('"event":"COMPLETED"');
    // The walk ends with the deleted definition's id.
    expect(result.stdout.trim()).toMatch(/[0-9a-f]{8}-[0-9a-f-]{27}$/);
  }, 120_000);

  it('runs the acmctl walk pasted as one block: each --wait ends done, and the definition is deleted', async () => {
    const [walk] = readmeShellBlocks('Try it with acmctl');
    expect(walk).toContain('--wait');
    const script = walk!.replaceAll('localhost:6969', `127.0.0.1:${runtime.port}`);
    // acmctl login writes its profile to the user's config directory: a fresh one, as for a new user.
    const home = mkdtempSync(join(tmpdir(), 'acmctl-walk-'));
    try {
      const result = await runWalk(script, { HOME: home, XDG_CONFIG_HOME: home });

      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      const done = [...result.stdout.matchAll(/^(\w+) [0-9a-f-]{36}: done$/gm)].map((match) => match[1]);
      expect(done).toEqual(['PRIME', 'DEPLOY', 'UNDEPLOY', 'DELETE', 'DEPRIME']);
      expect(result.stdout).toContain('PHASE_STARTED phase 2: acm.example.phases.Phase2A, acm.example.phases.Phase2B');
      expect(result.stdout).toMatch(/DEPLOY COMPLETED {2}\d+ ms\n {2}phase 0 {2}\d+ ms/);
      expect(result.stdout).toContain('flowchart');
      expect(result.stdout).toMatch(/^3 +PHASE_STARTED +2 +acm\.example\.phases\.Phase2/m);
      expect(result.stdout.trim()).toMatch(/deleted [0-9a-f-]{36}$/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 180_000);

  it('answers the plan of the "Plan before apply" section, and the deploy then runs those steps', async () => {
    const [walk] = readmeShellBlocks('Try it with curl');
    const [planWalk] = readmeShellBlocks('Plan before apply');
    // The section reuses AUTH, BASE and wait_for of the walk above, as a reader's shell still has them.
    const prelude = walk!.slice(0, walk!.indexOf('# Commission a definition'));
    const script = (prelude + planWalk!).replaceAll('localhost:6969', `127.0.0.1:${runtime.port}`);
    const result = await runWalk(script);

    expect(result.stderr).not.toContain('gave up waiting');
    expect(result.exitCode).toBe(0);
    expect(result.calls.filter((call) => call.status >= 400 || call.status === 0)).toEqual([]);
    // Every line the section shows as a comment is what the walk printed.
    const promised = planWalk!
      .split('\n')
      .filter((line) => line.startsWith('# {') || line.startsWith('# ['))
      .map((line) => line.slice(2));
    expect(promised).toHaveLength(4);
    for (const line of promised) {
      expect(result.stdout).toContain(line);
    }
    expect(result.stdout).toContain('flowchart LR');
  }, 120_000);
});
