/**
 * OpenTelemetry tracing settings from the standard OTEL_* variables, shared by the runtime and the simulator.
 * Tracing is off unless an exporter is named (OTEL_TRACES_EXPORTER=otlp or console) or, with OTEL_TRACES_EXPORTER
 * unset, an OTLP endpoint is given; OTEL_SDK_DISABLED=true turns it off whatever else is set. Reading is pure: the
 * SDK is loaded only by `startTracing`, and only when these settings say it is on.
 */

type Env = Readonly<Record<string, string | undefined>>;

export const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];
export const PROPAGATORS = ['tracecontext', 'baggage', 'none'] as const;
export type Propagator = Exclude<(typeof PROPAGATORS)[number], 'none'>;

/** The variables read here, for the lists of known deployment variables. */
export const TRACING_VARIABLES = [
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_SERVICE_NAME',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_PROPAGATORS',
  'OTEL_BSP_SCHEDULE_DELAY',
] as const;

export interface TracingSettings {
  readonly serviceName: string;
  readonly exporter: 'otlp' | 'console';
  /** Where OTLP spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  readonly otlpUrl: string;
  readonly otlpProtocol: OtlpProtocol;
  readonly sampler: TracesSampler;
  /** The ratio of the traceidratio samplers (OTEL_TRACES_SAMPLER_ARG, default 1). */
  readonly samplerRatio: number;
  /** Empty for OTEL_PROPAGATORS=none: spans are recorded, nothing crosses a process. */
  readonly propagators: readonly Propagator[];
  /** OTEL_BSP_SCHEDULE_DELAY: the longest a finished span waits before it is exported, in ms. */
  readonly scheduleDelayMs: number;
}

const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

function value(env: Env, name: string): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
}

function httpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The tracing settings, null when tracing is off, and every problem of the OTEL_* variables (each naming its
 * variable and rule), so the caller can report them with its own.
 */
export function readTracingSettings(
  env: Env,
  defaultServiceName: string,
): { settings: TracingSettings | null; problems: string[] } {
  const problems: string[] = [];
  const disabledText = (value(env, 'OTEL_SDK_DISABLED') ?? 'false').toLowerCase();
  if (disabledText !== 'true' && disabledText !== 'false') {
    problems.push(`OTEL_SDK_DISABLED: must be true or false, got "${disabledText}"`);
  }
  const tracesEndpoint = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  for (const [name, url] of [
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', endpoint],
  ] as const) {
    if (url !== undefined && !httpUrl(url)) {
      problems.push(`${name}: must be an http:// or https:// URL, got "${url}"`);
    }
  }
  const exporterText = (
    value(env, 'OTEL_TRACES_EXPORTER') ?? (tracesEndpoint !== undefined || endpoint !== undefined ? 'otlp' : 'none')
  ).toLowerCase();
  if (!(TRACES_EXPORTERS as readonly string[]).includes(exporterText)) {
    problems.push(`OTEL_TRACES_EXPORTER: must be one of ${TRACES_EXPORTERS.join(', ')}, got "${exporterText}"`);
  }
  const protocolName = value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (value(env, protocolName) ?? 'http/protobuf').toLowerCase();
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    problems.push(
      `${protocolName}: must be one of ${OTLP_PROTOCOLS.join(', ')} (grpc is not supported), got "${protocol}"`,
    );
  }
  const sampler = (value(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  if (!(TRACES_SAMPLERS as readonly string[]).includes(sampler)) {
    problems.push(`OTEL_TRACES_SAMPLER: must be one of ${TRACES_SAMPLERS.join(', ')}, got "${sampler}"`);
  }
  const ratioText = value(env, 'OTEL_TRACES_SAMPLER_ARG');
  const samplerRatio = ratioText === undefined ? 1 : Number(ratioText);
  if (ratioText !== undefined && sampler.endsWith('traceidratio') && !(samplerRatio >= 0 && samplerRatio <= 1)) {
    problems.push(`OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1 for ${sampler}, got "${ratioText}"`);
  }
  const propagatorNames = (value(env, 'OTEL_PROPAGATORS') ?? 'tracecontext')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const unknown = propagatorNames.filter((name) => !(PROPAGATORS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    problems.push(`OTEL_PROPAGATORS: each must be one of ${PROPAGATORS.join(', ')}, got "${unknown.join(',')}"`);
  }
  const delayText = value(env, 'OTEL_BSP_SCHEDULE_DELAY') ?? '5000';
  const scheduleDelayMs = Number(delayText);
  if (!Number.isInteger(scheduleDelayMs) || scheduleDelayMs < 0 || scheduleDelayMs > 3_600_000) {
    problems.push(`OTEL_BSP_SCHEDULE_DELAY: must be an integer from 0 to 3600000 (ms), got "${delayText}"`);
  }
  if (problems.length > 0 || disabledText === 'true' || exporterText === 'none') {
    return { settings: null, problems };
  }
  const base = (endpoint ?? DEFAULT_OTLP_ENDPOINT).replace(/\/+$/, '');
  return {
    settings: {
      serviceName: value(env, 'OTEL_SERVICE_NAME') ?? defaultServiceName,
      exporter: exporterText as 'otlp' | 'console',
      otlpUrl: tracesEndpoint ?? `${base}/v1/traces`,
      otlpProtocol: protocol as OtlpProtocol,
      sampler: sampler as TracesSampler,
      samplerRatio,
      propagators: propagatorNames.includes('none')
        ? []
        : propagatorNames.filter((name): name is Propagator => name !== 'none'),
      scheduleDelayMs,
    },
    problems,
  };
}
