/**
 * The simulator participant process: the simulated participant on Kafka, plus ONAP's control API on
 * `SIM_PORT`. Stops cleanly on SIGINT/SIGTERM: it sends DEREGISTER, then closes the HTTP server and Kafka.
 */
import { createServer } from 'node:http';

import { answerClientError } from '@acm/input-guards';
import { KafkaMessageBus, startTracing } from '@acm/messaging';
import { SIM_API_PATH, createSimulator, loadSimulatorConfig } from '@acm/simulator';
import pino from 'pino';

/** JSON lines on standard output like the runtime's; the SDK's and the bus's pluggable loggers write through it. */
const logger = pino({
  base: { service: 'acm-participant-simulator' },
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
});

const toPino = (level: 'error' | 'warn' | 'info' | 'debug', message: string, context?: Record<string, unknown>): void =>
  logger[level](context ?? {}, message);

/** The Kafka client's own chatter (retried leader elections and the like) stays out unless it is a warning. */
const busLogger = (
  level: 'error' | 'warn' | 'info' | 'debug',
  message: string,
  context?: Record<string, unknown>,
): void => {
  if (level === 'error' || level === 'warn') {
    toPino(level, message, context);
  }
};

async function main(): Promise<void> {
  const config = loadSimulatorConfig();
  // Before anything starts a span; with tracing off the SDK is never loaded.
  const tracing = config.tracing === null ? null : await startTracing(config.tracing);
  const bus = new KafkaMessageBus({
    brokers: config.kafkaBrokers,
    clientId: 'acm-participant-simulator',
    ...(config.kafkaSecurity.ssl ? { ssl: config.kafkaSecurity.ssl } : {}),
    ...(config.kafkaSecurity.sasl ? { sasl: config.kafkaSecurity.sasl } : {}),
    logger: busLogger,
  });
  const simulator = await createSimulator({
    bus,
    logger: toPino,
    participantId: config.participantId,
    supportedElementTypes: config.supportedElementTypes,
    topics: config.topics,
    failOperations: config.failOperations,
    auth: { user: config.user, password: config.password },
    ...(config.groupId === undefined ? {} : { groupId: config.groupId }),
    ...(config.signing === undefined ? {} : { signing: config.signing }),
    ...(config.heartbeatMs === undefined ? {} : { heartbeatMs: config.heartbeatMs }),
    ...(config.timersMs === undefined ? {} : { timersMs: config.timersMs }),
  });
  const server = createServer(simulator.controlHandler);
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  logger.info(
    `ACM participant simulator ${config.participantId} (replica ${simulator.participant.replicaId}) on Kafka ${config.kafkaBrokers.join(',')}; control API http://localhost:${config.port}${SIM_API_PATH}`,
  );

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    logger.info(`${signal}: deregistering and stopping`);
    void simulator
      .close()
      .then(() => new Promise<void>((resolve) => server.close(() => resolve())))
      .then(() => bus.close())
      // Last, so the spans of the final ACKs are exported.
      .then(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'Stopping failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
