/**
 * The simulator participant process: the simulated participant on Kafka, plus ONAP's control API on
 * `SIM_PORT`. Stops cleanly on SIGINT/SIGTERM: it sends DEREGISTER, then closes the HTTP server and Kafka.
 */
import { createServer } from 'node:http';

import { answerClientError } from '@acm/input-guards';
import { startTracing } from '@acm/messaging';
import { participantKafkaBus, stopOnSignals } from '@acm/participant-sdk';
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

async function main(): Promise<void> {
  const config = loadSimulatorConfig();
  // Before anything starts a span; with tracing off the SDK is never loaded.
  const tracing = config.tracing === null ? null : await startTracing(config.tracing);
  const bus = participantKafkaBus(config, 'acm-participant-simulator', toPino);
  const simulator = await createSimulator({
    bus,
    logger: toPino,
    participantId: config.participantId,
    supportedElementTypes: config.supportedElementTypes,
    topics: config.topics,
    failOperations: config.failOperations,
    auth: { user: config.user, password: config.password },
    observeAll: config.observeAll,
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

  stopOnSignals({ logger: toPino, participant: () => simulator.close(), server, bus, tracing });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
