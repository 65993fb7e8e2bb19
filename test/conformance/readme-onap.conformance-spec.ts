import { join } from 'node:path';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { readmeShellBlocks, runWalk, startEmbeddedRuntime } from '../support/readme-walk';
import { ONAP_DIR } from './onap-files';

/** The README's "ONAP's own files" walk, on ONAP's csit files, against the embedded default. */
describe("the README's walk with ONAP's own csit files", () => {
  let runtime: EmbeddedRuntime;

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('readme-onap-runtime');
  }, 120_000);

  afterAll(async () => {
    await runtime?.stop();
  });

  it('commissions, primes (waiting for PRIMED) and instantiates ONAP files unchanged', async () => {
    const [walk, onap] = readmeShellBlocks('Try it with curl');
    // "AUTH, BASE and wait_for as above": the lines of the first walk before its first step.
    const setup = walk!.slice(0, walk!.indexOf('# Commission'));
    expect(setup).toContain('wait_for()');
    const script = (setup + onap!)
      .replaceAll('localhost:6969', `127.0.0.1:${runtime.port}`)
      .replace('ONAP=policy-clamp/csit/resources/tests/data', `ONAP='${join(ONAP_DIR, 'csit-data')}'`);
    const result = await runWalk(script);

    expect(result.stderr).not.toContain('gave up waiting');
    expect(result.exitCode).toBe(0);
    expect(result.calls.filter((call) => call.method !== 'GET').map((call) => `${call.method} ${call.status}`)).toEqual(
      ['POST 201', 'PUT 202', 'POST 201'],
    );
    expect(result.stdout.trim()).toMatch(/^[0-9a-f]{8}-[0-9a-f-]{27}$/m);
  }, 120_000);
});
