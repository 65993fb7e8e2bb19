/** The Kafka bus of a participant process, as its environment describes it. */
import { KafkaMessageBus } from '@acm/messaging';

import type { ParticipantLogger } from '../types';
import type { ParticipantEnvironment } from './environment';

/**
 * A Kafka bus on the environment's brokers, with its TLS and SASL settings. The Kafka client's own chatter (retried
 * leader elections and the like) stays out of the process's log unless it is a warning or an error.
 *
 * @publicApi The bus of a participant process on Kafka.
 */
export function participantKafkaBus(
  environment: Pick<ParticipantEnvironment, 'kafkaBrokers' | 'kafkaSecurity'>,
  clientId: string,
  logger: ParticipantLogger,
): KafkaMessageBus {
  const { ssl, sasl } = environment.kafkaSecurity;
  return new KafkaMessageBus({
    brokers: environment.kafkaBrokers,
    clientId,
    ...(ssl ? { ssl } : {}),
    ...(sasl ? { sasl } : {}),
    logger: warningsAndErrors(logger),
  });
}

/** The logger that passes on warnings and errors only. */
export function warningsAndErrors(logger: ParticipantLogger): ParticipantLogger {
  return (level, message, context) => {
    if (level === 'error' || level === 'warn') {
      logger(level, message, context);
    }
  };
}
