/**
 * The HTTP participant process: ONAP's http participant on Kafka, plus its health route on `HTTP_PORT` (6969).
 * Stops cleanly on SIGINT/SIGTERM: it sends DEREGISTER, then closes the HTTP server and Kafka.
 */
import { createServer } from 'node:http';

import { answerClientError } from '@acm/input-guards';
import { KafkaMessageBus, startTracing } from '@acm/messaging';
import pino from 'pino';

import { HTTP_SERVICE_NAME, loadHttpParticipantConfig } from './config';
import { HEALTH_PATH, healthHandler } from './health';
import { createHttpParticipant } from './http-participant';

const logger = pino({
  base: { service: HTTP_SERVICE_NAME },
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
});

const toPino = (level: 'error' | 'warn' | 'info' | 'debug', message: string, context?: Record<string, unknown>): void =>
  logger[level](context ?? {}, message);

/** The Kafka client's own chatter stays out unless it is a warning. */
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
  const config = loadHttpParticipantConfig();
  const tracing = config.tracing === null ? null : await startTracing(config.tracing);
  const bus = new KafkaMessageBus({
    brokers: config.kafkaBrokers,
    clientId: HTTP_SERVICE_NAME,
    ...(config.kafkaSecurity.ssl ? { ssl: config.kafkaSecurity.ssl } : {}),
    ...(config.kafkaSecurity.sasl ? { sasl: config.kafkaSecurity.sasl } : {}),
    logger: busLogger,
  });
  const participant = createHttpParticipant({
    bus,
    logger: toPino,
    participantId: config.participantId,
    groupId: config.groupId,
    topics: config.topics,
    secrets: { env: process.env, ...(config.secretsDir === undefined ? {} : { dir: config.secretsDir }) },
    ...(config.heartbeatMs === undefined ? {} : { heartbeatMs: config.heartbeatMs }),
    ...(config.signing === undefined ? {} : { signing: config.signing }),
  });
  await participant.start();
  const server = createServer(healthHandler({ user: config.user, password: config.password }));
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  logger.info(
    `ACM HTTP participant ${config.participantId} (replica ${participant.replicaId}) on Kafka ${config.kafkaBrokers.join(',')}; health http://localhost:${config.port}${HEALTH_PATH}`,
  );

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    logger.info(`${signal}: deregistering and stopping`);
    void participant
      .stop()
      .then(() => new Promise<void>((resolve) => server.close(() => resolve())))
      .then(() => bus.close())
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
