import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { E2E_LOG_DIR, ProductProcess, RUNTIME_SCRIPT, freePort } from '../support/processes';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { BASE, PASSWORD, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

/** What the built-in participant's replicas say, as GET /participants answers. */
async function replicaStates(port: number): Promise<string[]> {
  const answer = await request(`http://127.0.0.1:${port}`).get(`${BASE}/participants`).auth(USER, PASSWORD);
  expect(answer.status).toBe(200);
  type Information = { participant: { replicas: Record<string, { participantState: string }> } };
  return (answer.body as Information[]).flatMap((information) =>
    Object.values(information.participant.replicas).map((replica) => replica.participantState),
  );
}

describe('one runtime per embedded data directory', () => {
  let first: EmbeddedRuntime;

  beforeAll(async () => {
    first = await startEmbeddedRuntime('data-dir-first');
  }, 120_000);

  afterAll(async () => {
    await first?.stop();
  });

  it('refuses a second start on the same DATA_DIR, naming it and the holding pid, and changes nothing', async () => {
    const dataDir = resolve(first.process.env['DATA_DIR'] ?? '');
    const lockFile = join(dataDir, 'runtime.pid');
    expect(readFileSync(lockFile, 'utf8')).toBe(`${first.process.pid}\n`);
    await eventually('the built-in participant to register', async () =>
      (await replicaStates(first.port)).join() === 'ON_LINE' ? true : undefined,
    );

    const second = new ProductProcess('data-dir-second', RUNTIME_SCRIPT, {
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
    });
    second.start();
    expect(await second.exit()).toBe(1);

    const log = readFileSync(join(E2E_LOG_DIR, 'data-dir-second.log'), 'utf8');
    expect(log).toContain(`DATA_DIR ${dataDir} is in use by the runtime with pid ${first.process.pid}`);
    // The first runtime holds its directory still, its participant's replica untouched, and answers.
    expect(readFileSync(lockFile, 'utf8')).toBe(`${first.process.pid}\n`);
    expect(await replicaStates(first.port)).toEqual(['ON_LINE']);
  });

  it('gives the directory up on a clean stop, its replica logged as deregistered', async () => {
    const dataDir = resolve(first.process.env['DATA_DIR'] ?? '');
    const log = join(E2E_LOG_DIR, 'data-dir-first.log');
    const logged = readFileSync(log, 'utf8').length;
    await first.process.stop();
    expect(() => readFileSync(join(dataDir, 'runtime.pid'), 'utf8')).toThrow(/ENOENT/);
    // The log is piped to its file: its last lines may land just after the process ended.
    await eventually('the stop to be logged', () =>
      /"event":"PARTICIPANT_STATE".*"from":"ON_LINE","to":"DEREGISTERED"/.test(readFileSync(log, 'utf8').slice(logged))
        ? true
        : undefined,
    );
  });
});
