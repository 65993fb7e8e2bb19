import { loadSimulatorConfig, parseSupportedElementTypes } from './config';
import { parseFailOperations, parseSimConfig, startupSimConfig } from './sim-config';

describe('simulator configuration', () => {
  it('defaults to ONAP simulator values', () => {
    expect(loadSimulatorConfig({})).toEqual({
      port: 8085,
      host: '0.0.0.0',
      participantId: '101c62b3-8918-41b9-a747-d21eb79c6c90',
      supportedElementTypes: [
        { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' },
      ],
      kafkaBrokers: ['127.0.0.1:9092'],
      kafkaSecurity: { protocol: 'PLAINTEXT' },
      topics: { operation: 'policy-acruntime-participant', sync: 'acm-ppnt-sync' },
      failOperations: [],
      tracing: null,
      user: 'participantUser',
      password: 'zb!XztG34',
      observeAll: false,
    });
    expect(loadSimulatorConfig({ SIM_OBSERVE: 'true' }).observeAll).toBe(true);
  });

  it('reads every variable', () => {
    expect(
      loadSimulatorConfig({
        SIM_PORT: '9000',
        PARTICIPANT_ID: '101c62b3-8918-41b9-a747-d21eb79c6c91',
        PARTICIPANT_SUPPORTED_ELEMENT_TYPES: 'a.B:1.0.0, c.D:2.0.1',
        KAFKA_BOOTSTRAP_SERVERS: 'k1:9092,k2:9092',
        OPERATION_TOPIC: 'op',
        SYNC_TOPIC: 'sync',
        PARTICIPANT_GROUP_ID: 'g',
        HEARTBEAT_MS: '1000',
        SIM_TIMERS_MS: '0',
        SIM_FAIL_OPERATIONS: 'deploy,migratePrecheck',
        SIM_USER: 'u',
        SIM_PASSWORD: 'p',
      }),
    ).toMatchObject({
      port: 9000,
      participantId: '101c62b3-8918-41b9-a747-d21eb79c6c91',
      supportedElementTypes: [
        { typeName: 'a.B', typeVersion: '1.0.0' },
        { typeName: 'c.D', typeVersion: '2.0.1' },
      ],
      kafkaBrokers: ['k1:9092', 'k2:9092'],
      topics: { operation: 'op', sync: 'sync' },
      groupId: 'g',
      heartbeatMs: 1000,
      timersMs: 0,
      failOperations: ['deploy', 'migratePrecheck'],
      user: 'u',
      password: 'p',
    });
  });

  it.each([
    [{ SIM_PORT: 'x' }, 'SIM_PORT'],
    [{ PARTICIPANT_ID: 'nope' }, 'PARTICIPANT_ID'],
    [{ PARTICIPANT_SUPPORTED_ELEMENT_TYPES: 'noversion' }, 'PARTICIPANT_SUPPORTED_ELEMENT_TYPES'],
    [{ HEARTBEAT_MS: '0' }, 'HEARTBEAT_MS'],
    [{ SIM_FAIL_OPERATIONS: 'deploy,explode' }, 'SIM_FAIL_OPERATIONS'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => loadSimulatorConfig(env)).toThrow(name);
  });

  it('reads the Kafka security settings as the runtime does, listing every problem', () => {
    expect(
      loadSimulatorConfig({
        KAFKA_SECURITY_PROTOCOL: 'SASL_PLAINTEXT',
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'p',
      }).kafkaSecurity,
    ).toEqual({
      protocol: 'SASL_PLAINTEXT',
      sasl: { mechanism: 'scram-sha-256', username: 'u', password: 'p' },
    });
    expect(() =>
      loadSimulatorConfig({ KAFKA_SECURITY_PROTOCOL: 'SASL_SSL', KAFKA_SSL_CA_FILE: '/no/such/ca.crt' }),
    ).toThrow(/KAFKA_SSL_CA_FILE: cannot read[\s\S]*KAFKA_SASL_MECHANISM: must be one of/);
  });

  it('reads the OTEL_* settings as the runtime does, under its own service name, listing every problem', () => {
    expect(loadSimulatorConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toMatchObject({
      serviceName: 'acm-participant-simulator',
      otlpUrl: 'http://localhost:4318/v1/traces',
    });
    expect(() => loadSimulatorConfig({ KAFKA_SECURITY_PROTOCOL: 'TLS', OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      /KAFKA_SECURITY_PROTOCOL: must be one of[\s\S]*OTEL_TRACES_EXPORTER: must be one of otlp, console, none/,
    );
  });

  it('signs records with PARTICIPANT_PRINCIPAL and PARTICIPANT_SIGNING_SECRET, both or neither', () => {
    const secret = 'a-secret-of-at-least-32-characters!';

    expect(loadSimulatorConfig({ PARTICIPANT_PRINCIPAL: 'sim', PARTICIPANT_SIGNING_SECRET: secret }).signing).toEqual({
      principal: 'sim',
      secret,
    });
    expect(() => loadSimulatorConfig({ PARTICIPANT_PRINCIPAL: 'sim' })).toThrow('set both to sign records, or neither');
    expect(() => loadSimulatorConfig({ PARTICIPANT_SIGNING_SECRET: secret })).toThrow('set both');
    expect(() => loadSimulatorConfig({ PARTICIPANT_PRINCIPAL: 'sim', PARTICIPANT_SIGNING_SECRET: 'short' })).toThrow(
      'PARTICIPANT_SIGNING_SECRET: must hold at least 32 characters',
    );
  });

  it('parses element types with colons in the name by the last colon', () => {
    expect(parseSupportedElementTypes('urn:x:Type:1.0.0')).toEqual([{ typeName: 'urn:x:Type', typeVersion: '1.0.0' }]);
  });

  it('builds the start-up SimConfig from ONAP defaults, SIM_TIMERS_MS and SIM_FAIL_OPERATIONS', () => {
    expect(startupSimConfig()).toMatchObject({ deployTimerMs: 1000, undeployTimerMs: 1000, lockTimerMs: 100 });
    const config = startupSimConfig({ timersMs: 0, failOperations: parseFailOperations('prime, rollback') });
    expect(config).toMatchObject({ deployTimerMs: 0, primeSuccess: false, rollback: false, deploySuccess: true });
  });

  it('keeps start-up props unless a PUT replaces them', () => {
    const base = startupSimConfig({ config: { deployProps: { a: 1 } } });
    const parsed = parseSimConfig({ updateProps: { b: 2 } }, base);
    expect(parsed).toMatchObject({ ok: true, config: { deployProps: { a: 1 }, updateProps: { b: 2 } } });
    expect(parseSimConfig([], base)).toEqual({ ok: false, problems: ['body: must be a JSON object'] });
  });
});
