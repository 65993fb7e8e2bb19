import { RESEND_LIMITS } from '@acm/domain';
import type { RetentionPolicy } from '@acm/domain';
import { readKafkaSecurity, readTracingSettings } from '@acm/messaging';
import type { KafkaSecurity, TracingSettings } from '@acm/messaging';
import { readParticipantBindings } from './participant-bindings-setting';
import type { ParticipantBindingMap } from './participant-bindings-setting';
import type { AccessPolicy, ApprovalRule } from '@acm/domain';
import { readConsoleLoginSettings } from './console-login-setting';
import type { ConsoleLoginSettings } from './console-login-setting';
import { readOidcSettings } from './oidc-setting';
import { readPolicyFile } from './policy-file-setting';
import type { OidcSettings } from './oidc-setting';
import { readUsersFile } from './users-file-setting';
import type { BasicUsers } from './users-file-setting';

/**
 * The runtime's settings, read from the environment once at boot. This is the only file that reads
 * process.env; everything else receives a RuntimeConfig. Every variable is listed in the README.
 */
export interface RuntimeConfig {
  /** PORT: HTTP port (ONAP's is 6969). */
  readonly port: number;
  /** HOST: address to listen on. */
  readonly host: string;
  /** BASIC_AUTH: when true every request needs HTTP Basic credentials. */
  readonly basicAuth: boolean;
  /** RUNTIME_USER / RUNTIME_PASSWORD: the one user of HTTP Basic auth. */
  readonly user: string;
  readonly password: string;
  /** RUNTIME_USERS_FILE: several HTTP Basic users (name:scrypt hash lines), instead of the one above; null: unset. */
  readonly users: BasicUsers | null;
  /** OIDC_*: bearer tokens of an OpenID Connect provider, accepted besides HTTP Basic; null: OIDC_ISSUER unset. */
  readonly oidc: OidcSettings | null;
  /** OIDC_CONSOLE_*: the console signs in through the OpenID Connect provider; null: it uses HTTP Basic. */
  readonly consoleLogin: ConsoleLoginSettings | null;
  /** RUNTIME_POLICY_FILE: roles per project for users and groups; null: unset, every authenticated user is admin. */
  readonly policy: AccessPolicy | null;
  /** The `approvals:` rules of RUNTIME_POLICY_FILE: orders that wait for approvals; empty: none does. */
  readonly approvalRules: readonly ApprovalRule[];
  /** DATABASE_URL: a PostgreSQL URL; when absent an embedded PostgreSQL (PGlite) is used. */
  readonly databaseUrl: string | null;
  /** DATABASE_SCHEMA: the PostgreSQL schema for the runtime's tables (created if missing); default public. */
  readonly databaseSchema: string | null;
  /** DATABASE_POOL_SIZE: connections in the pool. */
  readonly databasePoolSize: number;
  /**
   * DATABASE_STATEMENT_TIMEOUT_MS: the deadline of every statement on a PostgreSQL server (0: none), and of a session
   * idle inside a transaction; the client waits 1 s longer. Not applied to the embedded database.
   */
  readonly databaseStatementTimeoutMs: number;
  /** DATA_DIR: where the embedded database keeps its files. */
  readonly dataDir: string;
  /** MAX_BODY_BYTES: larger request bodies are refused with 413. */
  readonly maxBodyBytes: number;
  /**
   * CORS_ORIGINS: origins (`scheme://host[:port]`) whose pages may call the API from a browser (CORS, with
   * credentials); empty, the default: no preflight is granted, so no other site's page can send a JSON request.
   */
  readonly corsOrigins: readonly string[];
  /**
   * PUBLIC_URL: the runtime's URL as its clients reach it (scheme, host, port, any path before the context path), for
   * the URLs it hands out (signed signal URLs); null: the address the request arrived on. Never the Host header.
   */
  readonly publicUrl: string | null;
  /** MAX_EVENT_STREAMS: open `GET /v2/events` streams of this replica beyond which a new one is refused (429). */
  readonly maxEventStreams: number;
  /** MAX_EVENT_STREAMS_PER_CLIENT: open streams of one client address beyond which a new one is refused (429). */
  readonly maxEventStreamsPerClient: number;
  /** EVENT_FEED_POLL_MS: how often a replica reads the event feed when no notification woke it. */
  readonly eventFeedPollMs: number;
  /** NOTIFY_TIMEOUT_MS: how long a webhook delivery waits for the receiver's answer. */
  readonly notifyTimeoutMs: number;
  /** NOTIFY_MAX_ATTEMPTS: attempts at one event before it is dead-lettered. */
  readonly notifyMaxAttempts: number;
  /** NOTIFY_RETRY_BASE_MS / NOTIFY_RETRY_MAX_MS: the first retry's wait, doubled per failure up to the maximum. */
  readonly notifyRetryBaseMs: number;
  readonly notifyRetryMaxMs: number;
  /** TOSCA_ELEMENT_NAME: the node type every element derives from. */
  readonly toscaElementName: string;
  /** TOSCA_COMPOSITION_NAME: the node type of the composition node template. */
  readonly toscaCompositionName: string;
  /** LOG_LEVEL: error, warn, log, debug or verbose. */
  readonly logLevel: LogLevelName;
  /** LOG_FORMAT: json (one object a line) or pretty (for a terminal); unset, pretty only when stdout is a TTY. */
  readonly logFormat: LogFormat;
  /** METRICS_AUTH: whether /actuator/prometheus needs the HTTP Basic credentials (when BASIC_AUTH is on). */
  readonly metricsAuth: boolean;
  /** KAFKA_BOOTSTRAP_SERVERS: comma-separated brokers; when absent an in-process bus is used. */
  readonly kafkaBrokers: string[] | null;
  /**
   * KAFKA_SECURITY_PROTOCOL, KAFKA_SASL_* and KAFKA_SSL_*: TLS and SASL towards the brokers (docs/messaging.md),
   * with the PEM files already read.
   */
  readonly kafkaSecurity: KafkaSecurity;
  /** KAFKA_GROUP_ID: the runtime replicas' consumer group on the operation topic. */
  readonly kafkaGroupId: string;
  /** RUNTIME_OPERATION_TOPIC / RUNTIME_SYNC_TOPIC: ONAP's topic names by default. */
  readonly operationTopic: string;
  readonly syncTopic: string;
  /** HEART_BEAT: supervision scan period in ms (timeouts, silent replicas, unsent messages). */
  readonly heartBeatMs: number;
  /** MAX_STATUS_WAIT: a replica silent for longer is OFF_LINE. */
  readonly maxStatusWaitMs: number;
  /** MAX_OPERATION_WAIT: default operation timeout when no element or metadata sets one. */
  readonly maxOperationWaitMs: number;
  /** MAX_WAIT_MS: silence of an open phase after which supervision sends it again (0: never). */
  readonly maxWaitMs: number;
  /** MAX_RETRY_COUNT: how many times a silent phase is sent again, the delay doubling each time. */
  readonly maxRetryCount: number;
  /** NO_PROGRESS_TIMEOUT: an element silent for longer is reported stuck, not failed (0: off). */
  readonly noProgressTimeoutMs: number;
  /**
   * MAX_PARALLEL_ELEMENTS: most elements in flight (dispatched, not answered) across every running operation of the
   * runtime, all replicas on the database together; it also caps each operation's `maxParallelElements`. Waiting
   * elements go oldest operation first, then in the plan's order. Null (unset): no limit and no extra statement or
   * lock on the ACK path (ONAP's behaviour).
   */
  readonly maxParallelElements: number | null;
  /** MAX_PARTICIPANTS: participants with an ON_LINE replica beyond which a new participant is refused. */
  readonly maxParticipants: number;
  /** MAX_PARTICIPANT_REPLICAS: ON_LINE replicas of one participant beyond which a new replica is refused. */
  readonly maxParticipantReplicas: number;
  /** REGISTRATION_RATE_LIMIT: new participants or replicas admitted per REGISTRATION_RATE_WINDOW. */
  readonly registrationRateLimit: number;
  /** REGISTRATION_RATE_WINDOW: the rate window in ms. */
  readonly registrationRateWindowMs: number;
  /** SIMULATOR: run a built-in simulator participant (auto = only on the in-process bus). */
  readonly simulator: boolean;
  /** SIMULATOR_ELEMENT_TYPES: the built-in simulator's element types, comma-separated type:version. */
  readonly simulatorElementTypes: string;
  /** SIMULATOR_TIMERS_MS: how long each built-in simulator operation takes. */
  readonly simulatorTimersMs: number;
  /** MSG_ENABLE_ENCRYPTION (ONAP's switch): store properties flagged `metadata.sensitive` encrypted. */
  readonly encryptionEnabled: boolean;
  /** MSG_ENCRYPTION_KEY: the passphrase the AES key is derived from; required when encryption is on. */
  readonly encryptionKey: string | null;
  /**
   * SIGNAL_KEY: the secret signed signal URLs are made with (HMAC-SHA256); unset, one is derived from
   * MSG_ENCRYPTION_KEY, else from RUNTIME_USER/RUNTIME_PASSWORD (see security/signal-token.ts).
   */
  readonly signalKey: string | null;
  /** SENSITIVE_REVEAL_ALLOWED: whether a GET with `showSensitive=true` may return sensitive values in clear. */
  readonly sensitiveRevealAllowed: boolean;
  /**
   * PROPERTY_VALIDATION: what instance property problems do: refuse the request (strict), accept it and report them
   * in the history and the log (warn), or nothing (off).
   */
  readonly propertyValidation: PropertyValidationMode;
  /**
   * OTEL_*: OpenTelemetry tracing (README "Tracing"); null when off, the default. On when OTEL_TRACES_EXPORTER names
   * an exporter, or, with it unset, when an OTLP endpoint is set; OTEL_SDK_DISABLED=true keeps it off.
   */
  readonly tracing: TracingSettings | null;
  /**
   * PARTICIPANT_BINDINGS: participantId → the principal that alone may answer for it and the secret its records are
   * signed with (a JSON file, or inline JSON); null when unset: records are taken on their word, as ONAP does.
   */
  readonly participantBindings: ParticipantBindingMap | null;
  /** PARTICIPANT_SIGNATURE_WINDOW_MS: how far a bound participant's signing time may be from its record's time. */
  readonly participantSignatureWindowMs: number;
  /**
   * RETENTION_*: how long the history of finished operations (their messages, answers and events) is kept, pruned by
   * supervision in batches (README "Retention and export"); null when RETENTION_ENABLED is false.
   */
  readonly retention: RetentionSettings | null;
}

export interface RetentionSettings extends RetentionPolicy {
  /** RETENTION_BATCH_SIZE: operations removed per statement; a pass runs statements until nothing is due. */
  readonly batchSize: number;
}

export const PROPERTY_VALIDATION_MODES = ['strict', 'warn', 'off'] as const;
export type PropertyValidationMode = (typeof PROPERTY_VALIDATION_MODES)[number];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LOG_LEVEL_NAMES = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];

const DAY_MS = 24 * 3600 * 1000;

export const DEFAULTS = {
  PORT: '6969',
  HOST: '0.0.0.0',
  BASIC_AUTH: 'true',
  RUNTIME_USER: 'runtimeUser',
  RUNTIME_PASSWORD: 'zb!XztG34',
  DATABASE_POOL_SIZE: '10',
  DATABASE_STATEMENT_TIMEOUT_MS: '5000',
  DATA_DIR: './data',
  MAX_BODY_BYTES: String(5 * 1024 * 1024),
  MAX_EVENT_STREAMS: '1000',
  MAX_EVENT_STREAMS_PER_CLIENT: '20',
  EVENT_FEED_POLL_MS: '1000',
  NOTIFY_TIMEOUT_MS: '5000',
  NOTIFY_MAX_ATTEMPTS: '8',
  NOTIFY_RETRY_BASE_MS: '1000',
  NOTIFY_RETRY_MAX_MS: '300000',
  TOSCA_ELEMENT_NAME: 'org.onap.policy.clamp.acm.AutomationCompositionElement',
  TOSCA_COMPOSITION_NAME: 'org.onap.policy.clamp.acm.AutomationComposition',
  LOG_LEVEL: 'log',
  METRICS_AUTH: 'true',
  KAFKA_GROUP_ID: 'acm-runtime',
  RUNTIME_OPERATION_TOPIC: 'policy-acruntime-participant',
  RUNTIME_SYNC_TOPIC: 'acm-ppnt-sync',
  HEART_BEAT: '5000',
  MAX_STATUS_WAIT: '150000',
  MAX_OPERATION_WAIT: '200000',
  MAX_WAIT_MS: '20000',
  MAX_RETRY_COUNT: '3',
  NO_PROGRESS_TIMEOUT: '0',
  MAX_PARTICIPANTS: '1000',
  MAX_PARTICIPANT_REPLICAS: '64',
  REGISTRATION_RATE_LIMIT: '600',
  REGISTRATION_RATE_WINDOW: '60000',
  SIMULATOR: 'auto',
  SIMULATOR_ELEMENT_TYPES: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0',
  SIMULATOR_TIMERS_MS: '100',
  MSG_ENABLE_ENCRYPTION: 'false',
  SENSITIVE_REVEAL_ALLOWED: 'false',
  PROPERTY_VALIDATION: 'warn',
  RETENTION_ENABLED: 'true',
  RETENTION_MAX_AGE: String(7 * DAY_MS),
  RETENTION_FAILED_MAX_AGE: String(30 * DAY_MS),
  RETENTION_KEEP_LAST: '10',
  RETENTION_MAX_OPERATIONS: '100',
  RETENTION_BATCH_SIZE: '200',
  PARTICIPANT_SIGNATURE_WINDOW_MS: '300000',
} as const;

type Env = Readonly<Record<string, string | undefined>>;

class ConfigProblems {
  readonly problems: string[] = [];

  integer(env: Env, name: keyof typeof DEFAULTS, min: number, max: number): number {
    const text = env[name] ?? DEFAULTS[name];
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name}: must be an integer from ${min} to ${max}, got "${text}"`);
    }
    return value;
  }

  boolean(env: Env, name: keyof typeof DEFAULTS): boolean {
    const text = (env[name] ?? DEFAULTS[name]).toLowerCase();
    if (text !== 'true' && text !== 'false') {
      this.problems.push(`${name}: must be true or false, got "${text}"`);
    }
    return text === 'true';
  }

  text(env: Env, name: keyof typeof DEFAULTS): string {
    const value = env[name] ?? DEFAULTS[name];
    if (value.trim() === '') {
      this.problems.push(`${name}: must not be empty`);
    }
    return value;
  }
}

/**
 * Builds the configuration, or throws one error that lists every invalid variable. `terminal` tells whether
 * standard output is a TTY (the default log format depends on it).
 */
export function loadRuntimeConfig(
  env: Env = process.env,
  terminal: boolean = process.stdout.isTTY === true,
): RuntimeConfig {
  const check = new ConfigProblems();
  const logLevel = check.text(env, 'LOG_LEVEL');
  if (!(LOG_LEVEL_NAMES as readonly string[]).includes(logLevel)) {
    check.problems.push(`LOG_LEVEL: must be one of ${LOG_LEVEL_NAMES.join(', ')}, got "${logLevel}"`);
  }
  const logFormat = env['LOG_FORMAT']?.trim().toLowerCase() || (terminal ? 'pretty' : 'json');
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) {
    check.problems.push(`LOG_FORMAT: must be one of ${LOG_FORMATS.join(', ')}, got "${env['LOG_FORMAT'] ?? ''}"`);
  }
  const schema = env['DATABASE_SCHEMA']?.trim() ? env['DATABASE_SCHEMA'].trim() : null;
  if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    check.problems.push(`DATABASE_SCHEMA: must be a lower-case SQL identifier (letters, digits, _), got "${schema}"`);
  }
  const kafkaText = env['KAFKA_BOOTSTRAP_SERVERS']?.trim();
  const kafkaBrokers = kafkaText ? kafkaText.split(',').map((broker) => broker.trim()) : null;
  const kafka = readKafkaSecurity(env);
  check.problems.push(...kafka.problems);
  const tracing = readTracingSettings(env, 'acm-runtime');
  check.problems.push(...tracing.problems);
  const simulator = check.text(env, 'SIMULATOR').toLowerCase();
  if (!['true', 'false', 'auto'].includes(simulator)) {
    check.problems.push(`SIMULATOR: must be true, false or auto, got "${simulator}"`);
  }
  const parallelText = env['MAX_PARALLEL_ELEMENTS']?.trim();
  const maxParallelElements = parallelText ? Number(parallelText) : null;
  if (maxParallelElements !== null && (!Number.isSafeInteger(maxParallelElements) || maxParallelElements < 1)) {
    check.problems.push(`MAX_PARALLEL_ELEMENTS: must be a positive integer or unset, got "${parallelText}"`);
  }
  const propertyValidation = check.text(env, 'PROPERTY_VALIDATION').toLowerCase();
  if (!(PROPERTY_VALIDATION_MODES as readonly string[]).includes(propertyValidation)) {
    check.problems.push(
      `PROPERTY_VALIDATION: must be one of ${PROPERTY_VALIDATION_MODES.join(', ')}, got "${propertyValidation}"`,
    );
  }
  const corsOrigins = readOrigins(env['CORS_ORIGINS'], check.problems);
  const publicUrl = readPublicUrl(env['PUBLIC_URL'], check.problems);
  const bindings = readParticipantBindings(env['PARTICIPANT_BINDINGS']);
  check.problems.push(...bindings.problems);
  const usersFile = readUsersFile(env['RUNTIME_USERS_FILE']);
  check.problems.push(...usersFile.problems);
  const oidc = readOidcSettings(env);
  check.problems.push(...oidc.problems);
  const consoleLogin = readConsoleLoginSettings(env, oidc.settings?.issuer ?? null);
  check.problems.push(...consoleLogin.problems);
  const policyFile = readPolicyFile(env['RUNTIME_POLICY_FILE']);
  check.problems.push(...policyFile.problems);
  const config: RuntimeConfig = {
    port: check.integer(env, 'PORT', 0, 65535),
    host: check.text(env, 'HOST'),
    basicAuth: check.boolean(env, 'BASIC_AUTH'),
    user: check.text(env, 'RUNTIME_USER'),
    password: check.text(env, 'RUNTIME_PASSWORD'),
    users: usersFile.users,
    oidc: oidc.settings,
    consoleLogin: consoleLogin.settings,
    policy: policyFile.policy,
    approvalRules: policyFile.approvalRules,
    databaseUrl: env['DATABASE_URL']?.trim() ? env['DATABASE_URL'].trim() : null,
    databaseSchema: schema,
    databasePoolSize: check.integer(env, 'DATABASE_POOL_SIZE', 1, 1000),
    databaseStatementTimeoutMs: check.integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 0, 3_600_000),
    dataDir: check.text(env, 'DATA_DIR'),
    maxBodyBytes: check.integer(env, 'MAX_BODY_BYTES', 1024, 1024 * 1024 * 1024),
    corsOrigins,
    publicUrl,
    maxEventStreams: check.integer(env, 'MAX_EVENT_STREAMS', 1, 1_000_000),
    maxEventStreamsPerClient: check.integer(env, 'MAX_EVENT_STREAMS_PER_CLIENT', 1, 1_000_000),
    eventFeedPollMs: check.integer(env, 'EVENT_FEED_POLL_MS', 50, 60_000),
    notifyTimeoutMs: check.integer(env, 'NOTIFY_TIMEOUT_MS', 100, 120_000),
    notifyMaxAttempts: check.integer(env, 'NOTIFY_MAX_ATTEMPTS', 1, 100),
    notifyRetryBaseMs: check.integer(env, 'NOTIFY_RETRY_BASE_MS', 10, 3_600_000),
    notifyRetryMaxMs: check.integer(env, 'NOTIFY_RETRY_MAX_MS', 10, 86_400_000),
    toscaElementName: check.text(env, 'TOSCA_ELEMENT_NAME'),
    toscaCompositionName: check.text(env, 'TOSCA_COMPOSITION_NAME'),
    logLevel: logLevel as LogLevelName,
    logFormat: logFormat as LogFormat,
    metricsAuth: check.boolean(env, 'METRICS_AUTH'),
    kafkaBrokers: kafkaBrokers,
    kafkaSecurity: kafka.security,
    kafkaGroupId: check.text(env, 'KAFKA_GROUP_ID'),
    operationTopic: check.text(env, 'RUNTIME_OPERATION_TOPIC'),
    syncTopic: check.text(env, 'RUNTIME_SYNC_TOPIC'),
    heartBeatMs: check.integer(env, 'HEART_BEAT', 100, 24 * 3600 * 1000),
    maxStatusWaitMs: check.integer(env, 'MAX_STATUS_WAIT', 100, 7 * 24 * 3600 * 1000),
    maxOperationWaitMs: check.integer(env, 'MAX_OPERATION_WAIT', 100, 7 * 24 * 3600 * 1000),
    maxWaitMs: check.integer(env, 'MAX_WAIT_MS', 0, RESEND_LIMITS.maxWaitMs),
    maxRetryCount: check.integer(env, 'MAX_RETRY_COUNT', 0, RESEND_LIMITS.maxRetryCount),
    noProgressTimeoutMs: check.integer(env, 'NO_PROGRESS_TIMEOUT', 0, 7 * 24 * 3600 * 1000),
    maxParallelElements,
    maxParticipants: check.integer(env, 'MAX_PARTICIPANTS', 1, 1_000_000),
    maxParticipantReplicas: check.integer(env, 'MAX_PARTICIPANT_REPLICAS', 1, 100_000),
    registrationRateLimit: check.integer(env, 'REGISTRATION_RATE_LIMIT', 1, 1_000_000),
    registrationRateWindowMs: check.integer(env, 'REGISTRATION_RATE_WINDOW', 100, 24 * 3600 * 1000),
    simulator: simulator === 'true' || (simulator === 'auto' && kafkaBrokers === null),
    simulatorElementTypes: check.text(env, 'SIMULATOR_ELEMENT_TYPES'),
    simulatorTimersMs: check.integer(env, 'SIMULATOR_TIMERS_MS', 0, 3_600_000),
    encryptionEnabled: check.boolean(env, 'MSG_ENABLE_ENCRYPTION'),
    encryptionKey: env['MSG_ENCRYPTION_KEY'] ? env['MSG_ENCRYPTION_KEY'] : null,
    signalKey: env['SIGNAL_KEY'] ? env['SIGNAL_KEY'] : null,
    sensitiveRevealAllowed: check.boolean(env, 'SENSITIVE_REVEAL_ALLOWED'),
    propertyValidation: propertyValidation as PropertyValidationMode,
    tracing: tracing.settings,
    retention: readRetention(check, env),
    participantBindings: bindings.bindings,
    participantSignatureWindowMs: check.integer(env, 'PARTICIPANT_SIGNATURE_WINDOW_MS', 1000, 24 * 3600 * 1000),
  };
  if (config.encryptionEnabled && config.encryptionKey === null) {
    check.problems.push(
      'MSG_ENCRYPTION_KEY: must be set when MSG_ENABLE_ENCRYPTION is true (the passphrase sensitive properties are ' +
        'encrypted with)',
    );
  }
  if (check.problems.length > 0) {
    throw new Error(`Invalid environment variables:\n  ${check.problems.join('\n  ')}`);
  }
  return config;
}

/** CORS_ORIGINS: comma-separated origins, each exactly as a browser sends it in its Origin header. */
function readOrigins(text: string | undefined, problems: string[]): string[] {
  const origins = (text ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    if (urlOrNull(origin)?.origin !== origin) {
      problems.push(`CORS_ORIGINS: each entry must be an origin such as https://console.example:8443, got "${origin}"`);
    }
  }
  return origins;
}

/** PUBLIC_URL: an http(s) URL without credentials, query or fragment; kept without its trailing slash. */
function readPublicUrl(text: string | undefined, problems: string[]): string | null {
  const trimmed = text?.trim();
  if (!trimmed) {
    return null;
  }
  const url = urlOrNull(trimmed);
  if (
    url === null ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    problems.push(
      `PUBLIC_URL: must be an http or https URL without credentials, query or fragment, such as ` +
        `https://acm.example.com, got "${trimmed}"`,
    );
    return null;
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function urlOrNull(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function readRetention(check: ConfigProblems, env: Env): RetentionSettings | null {
  const enabled = check.boolean(env, 'RETENTION_ENABLED');
  const settings: RetentionSettings = {
    maxAgeMs: check.integer(env, 'RETENTION_MAX_AGE', 1000, 3650 * DAY_MS),
    failedMaxAgeMs: check.integer(env, 'RETENTION_FAILED_MAX_AGE', 1000, 3650 * DAY_MS),
    keepLast: check.integer(env, 'RETENTION_KEEP_LAST', 0, 1_000_000),
    maxOperations: check.integer(env, 'RETENTION_MAX_OPERATIONS', 1, 1_000_000),
    batchSize: check.integer(env, 'RETENTION_BATCH_SIZE', 1, 10_000),
  };
  if (settings.failedMaxAgeMs < settings.maxAgeMs) {
    check.problems.push(
      `RETENTION_FAILED_MAX_AGE: must not be below RETENTION_MAX_AGE (failures are kept longer), got ` +
        `${settings.failedMaxAgeMs} < ${settings.maxAgeMs}`,
    );
  }
  if (settings.keepLast > settings.maxOperations) {
    check.problems.push(
      `RETENTION_KEEP_LAST: must not be above RETENTION_MAX_OPERATIONS, got ${settings.keepLast} > ` +
        `${settings.maxOperations}`,
    );
  }
  return enabled ? settings : null;
}

/** DI token for the configuration object. */
export const RUNTIME_CONFIG = Symbol('RUNTIME_CONFIG');
