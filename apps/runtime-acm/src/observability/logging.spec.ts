import type { DestinationStream } from 'pino';
import { EventLog } from './event-log';
import { PinoNestLogger, createLogger } from './logging';
import { withRequestContext } from './request-context';
import { basicUser } from './request-log';

function capture(): {
  destination: DestinationStream;
  text: () => string;
  lines: () => Array<Record<string, unknown>>;
} {
  const chunks: string[] = [];
  const text = (): string => chunks.join('');
  return {
    destination: { write: (chunk: string) => chunks.push(chunk) },
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('the runtime logger', () => {
  it('writes JSON lines at the level LOG_LEVEL names, with the request context', () => {
    const out = capture();
    const logger = createLogger({ level: 'log', format: 'json', destination: out.destination });
    logger.debug('hidden at log level');
    withRequestContext({ requestId: 'r-1', user: 'runtimeUser' }, () => logger.info({ a: 1 }, 'shown'));
    expect(out.lines()).toEqual([
      expect.objectContaining({ level: 'info', msg: 'shown', a: 1, requestId: 'r-1', user: 'runtimeUser' }),
    ]);
  });

  it('censors credentials and element properties wherever a caller put them', () => {
    const out = capture();
    const logger = createLogger({ level: 'log', format: 'json', destination: out.destination });
    logger.info(
      {
        password: 'p1',
        headers: { authorization: 'Basic cnVudGltZVVzZXI6eg==' },
        element: { properties: { baseUrl: 'http://x/?token=t' } },
      },
      'careless',
    );
    expect(out.text()).not.toMatch(/p1|cnVudGltZVVzZXI6eg==|token=t/);
    expect(out.lines()[0]).toMatchObject({ password: '[REDACTED]', headers: { authorization: '[REDACTED]' } });
  });

  it('writes pretty lines without colour codes unless the output is a terminal', () => {
    const plain = capture();
    createLogger({ level: 'log', format: 'pretty', destination: plain.destination, colours: false }).warn('plain');
    expect(plain.text()).toContain('WARN');
    expect(plain.text()).toContain('plain');
    expect(plain.text()).not.toContain('\u001b[');
    const coloured = capture();
    createLogger({ level: 'log', format: 'pretty', destination: coloured.destination, colours: true }).warn('tty');
    expect(coloured.text()).toContain('\u001b[');
  });

  it("carries Nest's Logger calls, context and stack included, and keeps Nest's start-up chatter at debug", () => {
    const out = capture();
    const nest = new PinoNestLogger(createLogger({ level: 'log', format: 'json', destination: out.destination }));
    nest.log('Mapped {/x, GET} route', 'RouterExplorer');
    nest.warn('careful', 'Engine');
    nest.error('broken', 'Error: broken\n    at here', 'Outbox');
    expect(out.lines()).toEqual([
      expect.objectContaining({ level: 'warn', context: 'Engine', msg: 'careful' }),
      expect.objectContaining({
        level: 'error',
        context: 'Outbox',
        msg: 'broken',
        stack: 'Error: broken\n    at here',
      }),
    ]);
  });
});

describe(EventLog.name, () => {
  const ids = {
    compositionId: 'c-1',
    instanceId: 'i-1',
    operationId: 'o-1',
    subjectId: 'i-1',
    actor: { kind: 'runtime', rule: 'hand-over' },
    at: 0,
  } as const;

  it('writes timeouts, resends and failures with their ids, warnings for what needs an operator', () => {
    const out = capture();
    new EventLog(createLogger({ level: 'log', format: 'json', destination: out.destination })).committed(
      [
        { ...ids, event: 'PHASE_RESENT', detail: { phase: 1, messageId: 'm-1', elementIds: [] } },
        { ...ids, event: 'TIMEOUT', detail: {} },
        {
          ...ids,
          event: 'PROPERTY_PROBLEMS',
          detail: {
            order: 'CREATE',
            mode: 'warn',
            problems: [{ path: 'x', rule: 'type', message: 'got secret-value' }],
          },
        },
      ],
      [{ participantId: 'p-1', replicaId: null, from: 'ON_LINE', to: 'OFF_LINE' }],
    );
    expect(out.lines()).toEqual([
      expect.objectContaining({ level: 'info', event: 'PHASE_RESENT', phase: 1, messageId: 'm-1', operationId: 'o-1' }),
      expect.objectContaining({ level: 'warn', event: 'TIMEOUT', compositionId: 'c-1', instanceId: 'i-1' }),
      expect.objectContaining({ level: 'warn', event: 'PROPERTY_PROBLEMS', problems: 1 }),
      expect.objectContaining({ event: 'PARTICIPANT_STATE', participantId: 'p-1', from: 'ON_LINE', to: 'OFF_LINE' }),
    ]);
    // A problem's text may quote the value it refused: only the count is logged.
    expect(out.text()).not.toContain('secret-value');
  });
});

describe(basicUser.name, () => {
  it('reads the user of a Basic header and nothing of the password', () => {
    expect(basicUser(`Basic ${Buffer.from('runtimeUser:zb!XztG34').toString('base64')}`)).toBe('runtimeUser');
    expect(basicUser('Bearer abc')).toBeUndefined();
    expect(basicUser(undefined)).toBeUndefined();
  });
});
