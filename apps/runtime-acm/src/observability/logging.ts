import type { LoggerService } from '@nestjs/common';
import { context, trace } from '@opentelemetry/api';
import pino from 'pino';
import type { DestinationStream, Level, Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { LogFormat, LogLevelName } from '../config/runtime.config';
import { currentRequestContext } from './request-context';

/** DI token of the runtime's pino logger. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/** Nest's level names (LOG_LEVEL keeps them) to pino's. */
const LEVELS: Record<LogLevelName, Level> = {
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/**
 * Keys whose values never reach a log line, wherever they sit (one or two levels deep): credentials and the
 * properties of elements, which may hold sensitive values. Log calls do not pass them; this is the safety net.
 */
const REDACTED_KEYS = ['authorization', 'password', 'properties', 'outProperties', 'credentials', 'token', 'secret'];

export interface LoggingOptions {
  readonly level: LogLevelName;
  readonly format: LogFormat;
  /** Where lines go; standard output by default. Tests pass a stream to read them. */
  readonly destination?: DestinationStream;
  /** Whether the destination is a terminal: colours only then. */
  readonly colours?: boolean;
  /** Tracing on: each line written inside a span carries its `traceId` and `spanId`. */
  readonly traceIds?: boolean;
}

/** The active span's ids, for a log line (none outside a span). */
function traceFields(): { traceId?: string; spanId?: string } {
  const span = trace.getSpanContext(context.active());
  return span !== undefined && trace.isSpanContextValid(span) ? { traceId: span.traceId, spanId: span.spanId } : {};
}

/**
 * The runtime's one logger: a JSON object a line (or pino-pretty's lines for a terminal), each with the request
 * context of the work that wrote it (X-ONAP-RequestID, user, participant message type).
 */
export function createLogger(options: LoggingOptions): Logger {
  const out = options.destination ?? pino.destination({ dest: 1, sync: true });
  // pino-pretty's formatter, applied in the same write: synchronous like the JSON lines, no transport thread.
  const prettify = prettyFactory({
    colorize: options.colours ?? (options.destination === undefined && process.stdout.isTTY === true),
    ignore: 'pid,hostname',
    // One line per entry on a terminal: the fields follow the message instead of a line each.
    singleLine: true,
  });
  const stream: DestinationStream =
    options.format === 'pretty' ? { write: (line: string) => out.write(prettify(line)) } : out;
  return pino(
    {
      level: LEVELS[options.level],
      base: { service: 'acm-runtime' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: REDACTED_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
        censor: '[REDACTED]',
      },
      mixin:
        options.traceIds === true
          ? () => ({ ...currentRequestContext(), ...traceFields() })
          : () => ({ ...currentRequestContext() }),
    },
    stream,
  );
}

const FRAMEWORK_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Nest's LoggerService on pino: every `new Logger('Context')` of the runtime writes through it. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    // Nest passes (message, stack?, context?).
    const context = typeof rest[rest.length - 1] === 'string' ? rest[rest.length - 1] : undefined;
    const stack = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
    this.logger.error({ context, ...(stack === undefined ? {} : { stack }) }, text(message));
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: Level, message: unknown, rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? rest[rest.length - 1] : undefined;
    // Nest's start-up lines (one per module and route) are for debugging the wiring, not for operators.
    const effective = level === 'info' && FRAMEWORK_CONTEXTS.has(String(context)) ? 'debug' : level;
    this.logger[effective]({ context }, text(message));
  }
}

function text(message: unknown): string {
  if (message instanceof Error) {
    return message.stack ?? message.message;
  }
  return typeof message === 'string' ? message : JSON.stringify(message);
}
