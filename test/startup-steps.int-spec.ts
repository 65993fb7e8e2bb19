import { startRuntime } from './support/runtime-harness';
import type { RuntimeHarness } from './support/runtime-harness';

describe('start-up steps in the log', () => {
  const log: string[] = [];
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime(
      { LOG_LEVEL: 'debug' },
      { logDestination: { write: (chunk: string) => log.push(chunk) } },
    );
  });

  afterAll(async () => {
    await runtime.close();
  });

  it('says at debug level how long opening the database, building the Nest application and the HTTP setup took', () => {
    const lines = log
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const steps = lines.filter((line) => line['msg'] === 'Start-up steps');
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({
      level: 'debug',
      modulesLoadedAtMs: expect.any(Number),
      databaseMs: expect.any(Number),
      nestMs: expect.any(Number),
      httpSetupMs: expect.any(Number),
    });
  });

  it('writes no such line above debug level', async () => {
    const quiet: string[] = [];
    const other = await startRuntime(
      { LOG_LEVEL: 'log' },
      { logDestination: { write: (chunk: string) => quiet.push(chunk) } },
    );
    await other.close();
    expect(quiet.join('')).not.toContain('Start-up steps');
  });
});
