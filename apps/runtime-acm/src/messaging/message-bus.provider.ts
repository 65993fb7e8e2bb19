import { InMemoryMessageBus, KafkaMessageBus, MessageBus } from '@acm/messaging';
import type { BusLogger } from '@acm/messaging';
import type { FactoryProvider } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';

const logger = new Logger('Bus');

const busLogger: BusLogger = (level, message) => {
  switch (level) {
    case 'error':
      logger.error(message);
      break;
    case 'warn':
      logger.warn(message);
      break;
    case 'info':
      logger.log(message);
      break;
    case 'debug':
      logger.debug(message);
      break;
  }
};

/** Kafka when KAFKA_BOOTSTRAP_SERVERS is set, else the in-process bus (the embedded default). */
export const messageBusProvider: FactoryProvider<MessageBus> = {
  provide: MessageBus,
  inject: [RUNTIME_CONFIG],
  useFactory: (config: RuntimeConfig): MessageBus =>
    config.kafkaBrokers === null
      ? new InMemoryMessageBus({ logger: busLogger })
      : new KafkaMessageBus({
          brokers: config.kafkaBrokers,
          clientId: 'acm-runtime',
          ...(config.kafkaSecurity.ssl ? { ssl: config.kafkaSecurity.ssl } : {}),
          ...(config.kafkaSecurity.sasl ? { sasl: config.kafkaSecurity.sasl } : {}),
          logger: busLogger,
        }),
};
