import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordingRuntime } from '../../../test/support/acmctl-recording-runtime';
import type { WindowBody } from './commands/windows';

const WINDOW = '00000000-0000-4000-8000-0000000000c1';

const window = (overrides: Partial<WindowBody> = {}): WindowBody => ({
  windowId: WINDOW,
  name: 'weekend-nights',
  cron: '0 22 * * SAT,SUN',
  durationSeconds: 14400,
  timeZone: 'Europe/Paris',
  kind: 'allow',
  outside: 'wait',
  scope: { compositionIds: [], metadata: { site: 'prod' } },
  openNow: false,
  nextStart: '2026-12-12T21:00:00.000Z',
  ...overrides,
});

describe('acmctl windows', () => {
  const runtime = new RecordingRuntime('acmctl-windows-');
  const { received } = runtime;
  const run = (args: string[]) => runtime.run(args);

  beforeAll(() => runtime.start());
  afterAll(() => runtime.stop());
  beforeEach(() => runtime.reset());

  const columns = (printed: string): string[] => printed.split('\n').map((line) => line.trimEnd().replace(/ +/g, ' '));

  it('lists the windows, open or not, with their scope and next start', async () => {
    runtime.answer = {
      windows: [
        window(),
        window({
          name: 'freeze',
          kind: 'deny',
          openNow: true,
          nextStart: null,
          scope: { compositionIds: ['c1'], metadata: {} },
        }),
      ],
    };
    const { printed, error } = await run(['windows', 'list']);
    expect(error).toBeNull();
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /onap/policy/clamp/acm/v2/windows',
    ]);
    expect(columns(printed)).toEqual([
      'WINDOW NAME KIND CRON TIME ZONE DURATION OUTSIDE SCOPE OPEN NEXT START',
      `${WINDOW} weekend-nights allow 0 22 * * SAT,SUN Europe/Paris 14400s wait site=prod no 2026-12-12T21:00:00.000Z`,
      `${WINDOW} freeze deny 0 22 * * SAT,SUN Europe/Paris 14400s wait compositions c1 yes none within a year`,
    ]);
  });

  it('gets one window, and prints the runtime answer as JSON with -o json', async () => {
    runtime.answer = window();
    const got = await run(['windows', 'get', WINDOW]);
    expect(got.error).toBeNull();
    expect(columns(got.printed)[1]).toContain('weekend-nights allow');
    const json = await run(['-o', 'json', 'windows', 'get', WINDOW]);
    expect(JSON.parse(json.printed)).toEqual(window());
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual([
      `GET /onap/policy/clamp/acm/v2/windows/${WINDOW}`,
      `GET /onap/policy/clamp/acm/v2/windows/${WINDOW}`,
    ]);
  });

  it('creates a window from a YAML file and deletes one', async () => {
    const file = join(runtime.dir, 'window.yaml');
    writeFileSync(
      file,
      'name: weekend-nights\ncron: "0 22 * * SAT,SUN"\nduration: 4h\ntimeZone: Europe/Paris\nkind: allow\n',
    );
    runtime.answer = window();
    const created = await run(['windows', 'create', file]);
    expect(created.error).toBeNull();
    expect(created.printed).toContain(WINDOW);
    runtime.answer = {};
    const deleted = await run(['windows', 'delete', WINDOW]);
    expect(deleted.error).toBeNull();
    expect(deleted.printed).toBe(`deleted window ${WINDOW}`);
    expect(received).toEqual([
      {
        method: 'POST',
        url: '/onap/policy/clamp/acm/v2/windows',
        body: JSON.stringify({
          name: 'weekend-nights',
          cron: '0 22 * * SAT,SUN',
          duration: '4h',
          timeZone: 'Europe/Paris',
          kind: 'allow',
        }),
      },
      { method: 'DELETE', url: `/onap/policy/clamp/acm/v2/windows/${WINDOW}`, body: '' },
    ]);
  });
});
