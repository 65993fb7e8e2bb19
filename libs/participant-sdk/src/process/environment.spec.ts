import { DEFAULT_TOPICS } from '@acm/contracts';
import { envInteger, envText, readParticipantEnvironment } from './environment';

const DEFAULTS = { participantId: '101c62b3-8918-41b9-a747-d21eb79c6c03', serviceName: 'a-participant' };

describe('reading a participant process environment', () => {
  it('reads a text without its blanks, and a blank one as unset', () => {
    expect(envText({ A: '  x  ' }, 'A')).toBe('x');
    expect(envText({ A: '   ' }, 'A')).toBeUndefined();
    expect(envText({}, 'A')).toBeUndefined();
  });

  it('reads a whole number within its range, naming the variable and the range otherwise', () => {
    expect(envInteger({ N: ' 42 ' }, 'N', 0, 100)).toBe(42);
    expect(envInteger({ N: '' }, 'N', 0, 100)).toBeUndefined();
    for (const value of ['-1', '1.5', '1e3', '101', 'ten', '99999999999999999999']) {
      expect(() => envInteger({ N: value }, 'N', 0, 100)).toThrow(
        `N: expected an integer from 0 to 100, got "${value}"`,
      );
    }
  });

  it('defaults to the given participant id, brokers on localhost, and ONAP topics', () => {
    expect(readParticipantEnvironment({}, DEFAULTS)).toEqual({
      participantId: DEFAULTS.participantId,
      kafkaBrokers: ['127.0.0.1:9092'],
      kafkaSecurity: expect.anything(),
      topics: DEFAULT_TOPICS,
      tracing: null,
    });
  });

  it('reads every common variable', () => {
    const secret = 's'.repeat(64);
    expect(
      readParticipantEnvironment(
        {
          PARTICIPANT_ID: '00000000-0000-4000-8000-000000000001',
          KAFKA_BOOTSTRAP_SERVERS: ' a:1, ,b:2 ',
          OPERATION_TOPIC: 'ops',
          SYNC_TOPIC: 'sync',
          HEARTBEAT_MS: '500',
          PARTICIPANT_PRINCIPAL: 'me',
          PARTICIPANT_SIGNING_SECRET: secret,
          OTEL_TRACES_EXPORTER: 'console',
        },
        DEFAULTS,
      ),
    ).toMatchObject({
      participantId: '00000000-0000-4000-8000-000000000001',
      kafkaBrokers: ['a:1', 'b:2'],
      topics: { operation: 'ops', sync: 'sync' },
      heartbeatMs: 500,
      signing: { principal: 'me', secret },
      tracing: { serviceName: 'a-participant', exporter: 'console' },
    });
  });

  it.each([
    [{ PARTICIPANT_ID: 'not-a-uuid' }, 'PARTICIPANT_ID: expected a UUID, got "not-a-uuid"'],
    [{ HEARTBEAT_MS: '0' }, 'HEARTBEAT_MS: expected an integer from 1 to 2147483647, got "0"'],
    [{ PARTICIPANT_PRINCIPAL: 'me' }, 'set both to sign records, or neither'],
    [{ PARTICIPANT_PRINCIPAL: 'me', PARTICIPANT_SIGNING_SECRET: 'short' }, 'PARTICIPANT_SIGNING_SECRET: must hold'],
    [
      { KAFKA_SECURITY_PROTOCOL: 'TLS', OTEL_TRACES_EXPORTER: 'zipkin' },
      /KAFKA_SECURITY_PROTOCOL[\s\S]*OTEL_TRACES_EXPORTER/,
    ],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => readParticipantEnvironment(env, DEFAULTS)).toThrow(message);
  });
});
