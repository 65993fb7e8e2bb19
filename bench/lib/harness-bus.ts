import { KafkaMessageBus } from '@acm/messaging';
import { log } from './util';

/** A Kafka bus of the harness itself, with the product's settings; its errors go to the progress log. */
export function harnessBus(brokers: string[], clientId: string, label: string): KafkaMessageBus {
  return new KafkaMessageBus({
    brokers,
    clientId,
    logger: (level, message) => {
      if (level === 'error') {
        log(`${label}: ${message}`);
      }
    },
  });
}
