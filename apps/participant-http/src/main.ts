/**
 * The HTTP participant process: ONAP's http participant on Kafka, plus its health route on `HTTP_PORT` (6969).
 * Stops cleanly on SIGINT/SIGTERM: it sends DEREGISTER, then closes the HTTP server and Kafka.
 */
import { createServer } from 'node:http';

import { answerClientError } from '@acm/input-guards';
import { startTracing } from '@acm/messaging';
import { participantKafkaBus, stopOnSignals } from '@acm/participant-sdk';
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

async function main(): Promise<void> {
  const config = loadHttpParticipantConfig();
  const tracing = config.tracing === null ? null : await startTracing(config.tracing);
  const bus = participantKafkaBus(config, HTTP_SERVICE_NAME, toPino);
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

  stopOnSignals({ logger: toPino, participant: () => participant.stop(), server, bus, tracing });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
