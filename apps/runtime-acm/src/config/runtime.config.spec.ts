import { loadRuntimeConfig } from './runtime.config';

describe('loadRuntimeConfig: registration limits', () => {
  it('defaults to limits a real fleet never reaches', () => {
    const config = loadRuntimeConfig({});
    expect({
      maxParticipants: config.maxParticipants,
      maxParticipantReplicas: config.maxParticipantReplicas,
      registrationRateLimit: config.registrationRateLimit,
      registrationRateWindowMs: config.registrationRateWindowMs,
    }).toEqual({
      maxParticipants: 1000,
      maxParticipantReplicas: 64,
      registrationRateLimit: 600,
      registrationRateWindowMs: 60000,
    });
  });

  it('reads the settings and refuses values out of range, naming each variable', () => {
    const config = loadRuntimeConfig({
      MAX_PARTICIPANTS: '5',
      MAX_PARTICIPANT_REPLICAS: '2',
      REGISTRATION_RATE_LIMIT: '10',
      REGISTRATION_RATE_WINDOW: '1000',
    });
    expect([
      config.maxParticipants,
      config.maxParticipantReplicas,
      config.registrationRateLimit,
      config.registrationRateWindowMs,
    ]).toEqual([5, 2, 10, 1000]);
    expect(() =>
      loadRuntimeConfig({
        MAX_PARTICIPANTS: '0',
        MAX_PARTICIPANT_REPLICAS: 'many',
        REGISTRATION_RATE_LIMIT: '-1',
        REGISTRATION_RATE_WINDOW: '10',
      }),
    ).toThrow(
      /MAX_PARTICIPANTS: must be an integer from 1[\s\S]*MAX_PARTICIPANT_REPLICAS: must be an integer[\s\S]*REGISTRATION_RATE_LIMIT: must be an integer[\s\S]*REGISTRATION_RATE_WINDOW: must be an integer from 100/,
    );
  });
});

describe('sensitive property settings', () => {
  it('keeps encryption off and clear reading refused by default, as ONAP does', () => {
    const config = loadRuntimeConfig({});
    expect(config.encryptionEnabled).toBe(false);
    expect(config.encryptionKey).toBeNull();
    expect(config.sensitiveRevealAllowed).toBe(false);
  });

  it('refuses to start with encryption on and no key, naming the variable and the rule', () => {
    expect(() => loadRuntimeConfig({ MSG_ENABLE_ENCRYPTION: 'true' })).toThrow(
      /MSG_ENCRYPTION_KEY: must be set when MSG_ENABLE_ENCRYPTION is true/,
    );
  });

  it('takes the key from the environment when encryption is on', () => {
    const config = loadRuntimeConfig({
      MSG_ENABLE_ENCRYPTION: 'true',
      MSG_ENCRYPTION_KEY: 'a passphrase',
      SENSITIVE_REVEAL_ALLOWED: 'true',
    });
    expect(config.encryptionEnabled).toBe(true);
    expect(config.encryptionKey).toBe('a passphrase');
    expect(config.sensitiveRevealAllowed).toBe(true);
  });

  it('refuses a switch that is not true or false', () => {
    expect(() => loadRuntimeConfig({ MSG_ENABLE_ENCRYPTION: 'yes' })).toThrow(
      /MSG_ENABLE_ENCRYPTION: must be true or false, got "yes"/,
    );
  });
});

describe('PROPERTY_VALIDATION', () => {
  it('defaults to warn, so that loosely typed ONAP definitions keep working', () => {
    expect(loadRuntimeConfig({}).propertyValidation).toBe('warn');
  });

  it.each([
    ['strict', 'strict'],
    ['OFF', 'off'],
    ['Warn', 'warn'],
  ])('reads %s as %s', (text, mode) => {
    expect(loadRuntimeConfig({ PROPERTY_VALIDATION: text }).propertyValidation).toBe(mode);
  });

  it('refuses another value, naming the variable and the allowed values', () => {
    expect(() => loadRuntimeConfig({ PROPERTY_VALIDATION: 'loose' })).toThrow(
      'PROPERTY_VALIDATION: must be one of strict, warn, off, got "loose"',
    );
  });
});

describe('Kafka security settings', () => {
  it('stops the start with one message listing every Kafka security problem and the other settings', () => {
    expect(() =>
      loadRuntimeConfig({
        KAFKA_BOOTSTRAP_SERVERS: '127.0.0.1:9093',
        KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
        KAFKA_SASL_MECHANISM: 'OAUTH',
        KAFKA_SSL_CA_FILE: '/no/such/ca.crt',
        HEART_BEAT: 'soon',
      }),
    ).toThrow(
      /Invalid environment variables:\n {2}KAFKA_SSL_CA_FILE: cannot read "\/no\/such\/ca.crt" \(ENOENT\)\n {2}KAFKA_SASL_MECHANISM: must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512[\s\S]*KAFKA_SASL_JAAS_CONFIG \(or KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD\): required[\s\S]*HEART_BEAT: must be an integer/,
    );
  });

  it('is PLAINTEXT by default, as ONAP', () => {
    expect(loadRuntimeConfig({}).kafkaSecurity).toEqual({ protocol: 'PLAINTEXT' });
  });
});

describe('MAX_PARALLEL_ELEMENTS', () => {
  it('is unset by default: no limit, as ONAP', () => {
    expect(loadRuntimeConfig({}).maxParallelElements).toBeNull();
    expect(loadRuntimeConfig({ MAX_PARALLEL_ELEMENTS: ' ' }).maxParallelElements).toBeNull();
  });

  it('takes a positive integer and refuses anything else, naming the variable and the rule', () => {
    expect(loadRuntimeConfig({ MAX_PARALLEL_ELEMENTS: '10' }).maxParallelElements).toBe(10);
    for (const bad of ['0', '-3', '2.5', 'ten']) {
      expect(() => loadRuntimeConfig({ MAX_PARALLEL_ELEMENTS: bad })).toThrow(
        `MAX_PARALLEL_ELEMENTS: must be a positive integer or unset, got "${bad}"`,
      );
    }
  });
});

describe('log format and metrics auth', () => {
  it('logs JSON unless standard output is a terminal, and takes LOG_FORMAT when set', () => {
    expect(loadRuntimeConfig({}, false).logFormat).toBe('json');
    expect(loadRuntimeConfig({}, true).logFormat).toBe('pretty');
    expect(loadRuntimeConfig({ LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
    expect(loadRuntimeConfig({ LOG_FORMAT: 'Pretty' }, false).logFormat).toBe('pretty');
  });

  it('keeps metrics behind the credentials unless METRICS_AUTH is false', () => {
    expect(loadRuntimeConfig({}).metricsAuth).toBe(true);
    expect(loadRuntimeConfig({ METRICS_AUTH: 'false' }).metricsAuth).toBe(false);
  });

  it('lists every invalid observability setting in one message', () => {
    expect(() => loadRuntimeConfig({ LOG_FORMAT: 'xml', METRICS_AUTH: 'maybe', LOG_LEVEL: 'loud' })).toThrow(
      /LOG_LEVEL: must be one of[\s\S]*LOG_FORMAT: must be one of json, pretty, got "xml"[\s\S]*METRICS_AUTH: must be true or false/,
    );
  });
});

describe('OTEL_* (tracing)', () => {
  it('keeps tracing off by default', () => {
    expect(loadRuntimeConfig({}).tracing).toBeNull();
  });

  it('turns it on with an OTLP endpoint, under the service name acm-runtime', () => {
    expect(loadRuntimeConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toMatchObject({
      serviceName: 'acm-runtime',
      exporter: 'otlp',
      otlpUrl: 'http://collector:4318/v1/traces',
    });
  });

  it('stops the start with the one message that lists every invalid variable, OTEL_* among the others', () => {
    expect(() =>
      loadRuntimeConfig({ PORT: 'x', OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toThrow(
      /Invalid environment variables:[\s\S]*OTEL_TRACES_EXPORTER: must be one of[\s\S]*OTEL_EXPORTER_OTLP_PROTOCOL: must be one of[\s\S]*PORT: must be an integer/,
    );
  });
});

describe('DATABASE_STATEMENT_TIMEOUT_MS', () => {
  it('gives every statement 5 s by default, takes 0 for none, and refuses anything else', () => {
    expect(loadRuntimeConfig({}).databaseStatementTimeoutMs).toBe(5000);
    expect(loadRuntimeConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).databaseStatementTimeoutMs).toBe(0);
    expect(loadRuntimeConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '2500' }).databaseStatementTimeoutMs).toBe(2500);
    expect(() => loadRuntimeConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(
      /DATABASE_STATEMENT_TIMEOUT_MS: must be an integer from 0 to 3600000, got "-1"/,
    );
  });
});

describe('HTTP exposure settings', () => {
  it('grants no CORS, builds URLs from the bound address and caps event streams by default', () => {
    const config = loadRuntimeConfig({});
    expect([config.corsOrigins, config.publicUrl, config.maxEventStreams, config.maxEventStreamsPerClient]).toEqual([
      [],
      null,
      1000,
      20,
    ]);
  });

  it('reads CORS_ORIGINS as a list of origins and PUBLIC_URL without its trailing slash', () => {
    const config = loadRuntimeConfig({
      CORS_ORIGINS: ' https://console.example:8443 ,http://localhost:3000',
      PUBLIC_URL: 'https://acm.example.com/gateway/',
    });
    expect(config.corsOrigins).toEqual(['https://console.example:8443', 'http://localhost:3000']);
    expect(config.publicUrl).toBe('https://acm.example.com/gateway');
  });

  it('refuses an origin with a path, a PUBLIC_URL with a query or credentials, and stream caps below 1', () => {
    expect(() =>
      loadRuntimeConfig({
        CORS_ORIGINS: 'https://console.example/app',
        PUBLIC_URL: 'https://user:secret@acm.example.com/?a=1',
        MAX_EVENT_STREAMS: '0',
        MAX_EVENT_STREAMS_PER_CLIENT: 'x',
      }),
    ).toThrow(
      /CORS_ORIGINS: each entry must be an origin[\s\S]*PUBLIC_URL: must be an http or https URL without credentials, query or fragment[\s\S]*MAX_EVENT_STREAMS: must be an integer from 1[\s\S]*MAX_EVENT_STREAMS_PER_CLIENT: must be an integer from 1/,
    );
  });
});

describe('RETENTION_*', () => {
  it('prunes by default: a week for successes, a month for failures and the last 10, 100 per instance', () => {
    expect(loadRuntimeConfig({}).retention).toEqual({
      maxAgeMs: 7 * 24 * 3600 * 1000,
      failedMaxAgeMs: 30 * 24 * 3600 * 1000,
      keepLast: 10,
      maxOperations: 100,
      batchSize: 200,
    });
  });

  it('is off with RETENTION_ENABLED=false and reads every setting', () => {
    expect(loadRuntimeConfig({ RETENTION_ENABLED: 'false' }).retention).toBeNull();
    expect(
      loadRuntimeConfig({
        RETENTION_MAX_AGE: '60000',
        RETENTION_FAILED_MAX_AGE: '120000',
        RETENTION_KEEP_LAST: '1',
        RETENTION_MAX_OPERATIONS: '2',
        RETENTION_BATCH_SIZE: '5',
      }).retention,
    ).toEqual({ maxAgeMs: 60000, failedMaxAgeMs: 120000, keepLast: 1, maxOperations: 2, batchSize: 5 });
  });

  it('refuses failures kept shorter than successes, a keep-last above the count and values out of range', () => {
    expect(() =>
      loadRuntimeConfig({
        RETENTION_MAX_AGE: '60000',
        RETENTION_FAILED_MAX_AGE: '30000',
        RETENTION_KEEP_LAST: '5',
        RETENTION_MAX_OPERATIONS: '4',
        RETENTION_BATCH_SIZE: '0',
      }),
    ).toThrow(
      /RETENTION_BATCH_SIZE: must be an integer from 1 to 10000, got "0"[\s\S]*RETENTION_FAILED_MAX_AGE: must not be below RETENTION_MAX_AGE[\s\S]*RETENTION_KEEP_LAST: must not be above RETENTION_MAX_OPERATIONS/,
    );
  });
});
