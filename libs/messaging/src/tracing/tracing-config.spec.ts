import { readTracingSettings } from './tracing-config';

const read = (env: Record<string, string>) => readTracingSettings(env, 'svc');

describe('readTracingSettings', () => {
  it('is off by default, and with OTEL_TRACES_EXPORTER=none', () => {
    expect(read({})).toEqual({ settings: null, problems: [] });
    expect(read({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      settings: null,
      problems: [],
    });
  });

  it('is on with an exporter named, with the standard defaults', () => {
    expect(read({ OTEL_TRACES_EXPORTER: 'otlp' }).settings).toEqual({
      serviceName: 'svc',
      exporter: 'otlp',
      otlpUrl: 'http://localhost:4318/v1/traces',
      otlpProtocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      propagators: ['tracecontext'],
      scheduleDelayMs: 5000,
    });
    expect(read({ OTEL_TRACES_EXPORTER: 'Console' }).settings?.exporter).toBe('console');
  });

  it('is on with only an endpoint set (OTLP), the signal endpoint taken as it is', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).settings).toMatchObject({
      exporter: 'otlp',
      otlpUrl: 'http://collector:4318/v1/traces',
    });
    expect(
      read({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/custom',
      }).settings?.otlpUrl,
    ).toBe('https://traces.example/custom');
  });

  it('stays off with OTEL_SDK_DISABLED=true whatever else is set', () => {
    expect(read({ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp' }).settings).toBeNull();
  });

  it('reads the service name, protocol, sampler, propagators and export delay', () => {
    expect(
      read({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_SERVICE_NAME: 'acm-east',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_PROPAGATORS: 'tracecontext, baggage',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }).settings,
    ).toMatchObject({
      serviceName: 'acm-east',
      otlpProtocol: 'http/json',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      propagators: ['tracecontext', 'baggage'],
      scheduleDelayMs: 200,
    });
    expect(
      read({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_PROPAGATORS: 'none', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })
        .settings,
    ).toMatchObject({ propagators: [], otlpProtocol: 'http/json' });
  });

  it.each([
    [{ OTEL_SDK_DISABLED: 'yes' }, 'OTEL_SDK_DISABLED: must be true or false, got "yes"'],
    [{ OTEL_TRACES_EXPORTER: 'jaeger' }, 'OTEL_TRACES_EXPORTER: must be one of otlp, console, none, got "jaeger"'],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL',
    ],
    [
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x/v1/traces' },
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http:// or https:// URL',
    ],
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      'OTEL_EXPORTER_OTLP_PROTOCOL: must be one of http/protobuf, http/json (grpc is not supported), got "grpc"',
    ],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: must be one of'],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER: must be one of always_on, always_off'],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' },
      'OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1 for traceidratio, got "1.5"',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' },
      'OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1',
    ],
    [
      { OTEL_PROPAGATORS: 'tracecontext,b3' },
      'OTEL_PROPAGATORS: each must be one of tracecontext, baggage, none, got "b3"',
    ],
    [{ OTEL_BSP_SCHEDULE_DELAY: '-1' }, 'OTEL_BSP_SCHEDULE_DELAY: must be an integer from 0 to 3600000 (ms), got "-1"'],
  ])('refuses %j, naming the variable and the rule', (env, problem) => {
    const result = read({ OTEL_TRACES_EXPORTER: 'otlp', ...env });
    expect(result.settings).toBeNull();
    expect(result.problems).toEqual([expect.stringContaining(problem)]);
  });

  it('reports every problem at once, even with tracing off', () => {
    expect(read({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_SAMPLER: 'x', OTEL_PROPAGATORS: 'xray' }).problems).toEqual([
      expect.stringMatching(/^OTEL_TRACES_SAMPLER/),
      expect.stringMatching(/^OTEL_PROPAGATORS/),
    ]);
  });
});
