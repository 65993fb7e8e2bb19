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
    // One line an entry, its fields included, however many it carries.
    const fields = capture();
    createLogger({ level: 'log', format: 'pretty', destination: fields.destination, colours: false }).info(
      { event: 'COMPLETED', order: 'DEPLOY', durationMs: 1234, nested: { a: 1, b: [1, 2] } },
      'COMPLETED DEPLOY of instance i-1 after 1.234 s',
    );
    expect(fields.text().trimEnd().split('\n')).toHaveLength(1);
    expect(fields.text()).toMatch(/COMPLETED DEPLOY of instance i-1 after 1\.234 s.*"durationMs":1234/);
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

  it('names elements beside their ids, and gives the order and its duration on the lines that end an operation', () => {
    const out = capture();
    const context = {
      ...ids,
      operation: { order: 'DEPLOY', startedAt: 1000 },
      elementNames: new Map([['e-1', 'acm.example.Web']]),
    };
    new EventLog(createLogger({ level: 'log', format: 'json', destination: out.destination })).committed(
      [
        { ...context, event: 'PHASE_STARTED', detail: { phase: 0, messageId: 'm-1', elementIds: ['e-1'] }, at: 1000 },
        {
          ...context,
          event: 'ELEMENT_RESULT',
          detail: {
            elementId: 'e-1',
            participantId: 'p-1',
            phase: 0,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            result: true,
            message: null,
          },
          at: 1500,
        },
        { ...context, event: 'TIMEOUT', detail: {}, at: 2000 },
        { ...context, event: 'FAILED', detail: { message: 'no' }, at: 2500 },
        { ...context, event: 'COMPLETED', detail: { deployState: 'DEPLOYED', lockState: 'LOCKED' }, at: 3250 },
      ] as never,
      [{ participantId: 'p-1', replicaId: 'r-1', from: 'ON_LINE', to: 'DEREGISTERED' }],
    );
    const lines = out.lines();
    expect(lines[0]).toMatchObject({ elementIds: ['e-1'], elementNames: ['acm.example.Web'] });
    expect(lines[1]).toMatchObject({
      elementId: 'e-1',
      elementName: 'acm.example.Web',
      msg: 'element acm.example.Web (e-1) of instance i-1: DEPLOYED/LOCKED',
    });
    expect(lines.slice(2, 5)).toEqual([
      expect.objectContaining({
        event: 'TIMEOUT',
        order: 'DEPLOY',
        durationMs: 1000,
        msg: 'TIMEOUT DEPLOY of instance i-1 after 1.000 s',
      }),
      expect.objectContaining({ event: 'FAILED', order: 'DEPLOY', durationMs: 1500 }),
      expect.objectContaining({
        event: 'COMPLETED',
        order: 'DEPLOY',
        durationMs: 2250,
        msg: 'COMPLETED DEPLOY of instance i-1 after 2.250 s',
      }),
    ]);
    expect(lines[5]).toMatchObject({ msg: 'participant p-1 replica r-1: ON_LINE -> DEREGISTERED' });
  });
});

describe(basicUser.name, () => {
  it('reads the user of a Basic header and nothing of the password', () => {
    expect(basicUser(`Basic ${Buffer.from('runtimeUser:zb!XztG34').toString('base64')}`)).toBe('runtimeUser');
    expect(basicUser('Bearer abc')).toBeUndefined();
    expect(basicUser(undefined)).toBeUndefined();
  });
});
