import { createServer } from 'node:net';
import { POSTGRES_IMAGE, containersToStart, kafkaImage } from './service-selection';

/** What the global setup started, to stop in the global teardown. */
export interface StartedTestServices {
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Starts the selected containers and points the suites at them through TEST_DATABASE_URL and
 * TEST_KAFKA_BOOTSTRAP_SERVERS (Jest's workers inherit the setup's environment). testcontainers is loaded
 * only here, so runs on the scripts' services never load it.
 */
export async function startTestContainers(env: Env): Promise<StartedTestServices> {
  const wanted = containersToStart(env);
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async (): Promise<void> => {
    await Promise.allSettled(stops.reverse().map((stop) => stop()));
  };
  try {
    if (wanted.postgres) {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const postgres = await new PostgreSqlContainer(POSTGRES_IMAGE)
        .withDatabase('acm')
        .withUsername('acm')
        .withPassword('acm')
        .withCommand(['postgres', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'max_connections=200'])
        .start();
      stops.push(() => postgres.stop());
      env['TEST_DATABASE_URL'] = postgres.getConnectionUri();
    }
    if (wanted.kafka) {
      const { GenericContainer, Wait } = await import('testcontainers');
      // Kafka hands clients the advertised address, so the host port must be known before the broker starts.
      const port = await freePort();
      const kafka = await new GenericContainer(kafkaImage(env))
        .withExposedPorts({ container: port, host: port })
        .withEnvironment({
          KAFKA_NODE_ID: '1',
          KAFKA_PROCESS_ROLES: 'broker,controller',
          KAFKA_LISTENERS: `PLAINTEXT://:${port},CONTROLLER://:9093`,
          KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`,
          KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
          KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
          KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
          KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
          KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
          KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
          KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
          KAFKA_NUM_PARTITIONS: '10',
        })
        .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
        .start();
      stops.push(() => kafka.stop());
      env['TEST_KAFKA_BOOTSTRAP_SERVERS'] = `127.0.0.1:${port}`;
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { stop: stopAll };
}
