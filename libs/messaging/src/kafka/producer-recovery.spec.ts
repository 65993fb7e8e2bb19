/**
 * The producer's recovery from a broker that forgot it (kafkajs stands in: what the broker answers
 * after it came back as a new cluster cannot be produced on demand by a healthy test broker).
 */
import { KafkaJSProtocolError } from 'kafkajs';

import { KafkaMessageBus } from './kafka-message-bus';

interface FakeProducer {
  sends: unknown[];
  disconnected: boolean;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(request: unknown): Promise<void>;
}

const producers: FakeProducer[] = [];
/** What the n-th producer's sends fail with (undefined: they succeed). */
let failuresByProducer: Array<Error | undefined> = [];

jest.mock('kafkajs', () => {
  const actual = jest.requireActual<typeof import('kafkajs')>('kafkajs');
  class FakeKafka {
    producer(): FakeProducer {
      const failure = failuresByProducer[producers.length];
      const producer: FakeProducer = {
        sends: [],
        disconnected: false,
        connect: () => Promise.resolve(),
        disconnect: () => {
          producer.disconnected = true;
          return Promise.resolve();
        },
        send: (request) => {
          producer.sends.push(request);
          return failure === undefined ? Promise.resolve() : Promise.reject(failure);
        },
      };
      producers.push(producer);
      return producer;
    }
  }
  return { ...actual, Kafka: FakeKafka };
});

/** A broker error as kafkajs builds it from a protocol error code, wrapped like its retrier does. */
function brokerError(type: string): Error {
  const protocol = new KafkaJSProtocolError({ type, message: type, code: 45, retriable: false } as never);
  return Object.assign(new Error('retries exceeded'), { cause: protocol });
}

describe('KafkaMessageBus producer recovery', () => {
  beforeEach(() => {
    producers.splice(0);
  });

  it.each(['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_EPOCH'])(
    're-initialises the producer and sends again when the broker answers %s',
    async (type) => {
      failuresByProducer = [brokerError(type), undefined];
      const logged: string[] = [];
      const bus = new KafkaMessageBus({
        brokers: ['127.0.0.1:1'],
        allowAutoTopicCreation: false,
        logger: (level, message) => logged.push(`${level} ${message}`),
      });

      await bus.publish('topic', [{ key: 'k', value: 'v' }]);

      expect(producers).toHaveLength(2);
      expect(producers[0]!.disconnected).toBe(true);
      expect(producers[1]!.sends).toHaveLength(1);
      expect(logged).toContain('warn The broker no longer knows this producer; re-initialising it');
      await bus.publish('topic', [{ key: 'k', value: 'w' }]);
      expect(producers).toHaveLength(2);
      await bus.close();
    },
  );

  it('rethrows other send failures and keeps the producer', async () => {
    failuresByProducer = [brokerError('REQUEST_TIMED_OUT')];
    const bus = new KafkaMessageBus({
      brokers: ['127.0.0.1:1'],
      allowAutoTopicCreation: false,
      logger: () => undefined,
    });

    await expect(bus.publish('topic', [{ key: 'k', value: 'v' }])).rejects.toThrow('retries exceeded');
    expect(producers).toHaveLength(1);
    expect(producers[0]!.disconnected).toBe(false);
    await bus.close();
  });
});
