import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_KAFKA_VERSION,
  POSTGRES_IMAGE,
  containersToStart,
  kafkaImage,
  selectTestServices,
} from './support/service-selection';

// Stand-ins that record loading: no Docker engine here, and the point is when (and whether) they load.
const loaded: string[] = [];
jest.mock('testcontainers', () => {
  loaded.push('testcontainers');
  throw new Error('testcontainers loaded');
});
jest.mock('@testcontainers/postgresql', () => {
  loaded.push('@testcontainers/postgresql');
  throw new Error('@testcontainers/postgresql loaded');
});

describe('test services selection (ACM_TEST_SERVICES)', () => {
  beforeEach(() => {
    loaded.length = 0;
  });

  it('uses the scripts by default and on request', () => {
    expect(selectTestServices({})).toBe('scripts');
    expect(selectTestServices({ ACM_TEST_SERVICES: '' })).toBe('scripts');
    expect(selectTestServices({ ACM_TEST_SERVICES: 'scripts' })).toBe('scripts');
  });

  it('uses containers when asked, in any case', () => {
    expect(selectTestServices({ ACM_TEST_SERVICES: 'containers' })).toBe('containers');
    expect(selectTestServices({ ACM_TEST_SERVICES: ' Containers ' })).toBe('containers');
  });

  it('refuses another value, naming the variable and the choices', () => {
    expect(() => selectTestServices({ ACM_TEST_SERVICES: 'docker' })).toThrow(
      'ACM_TEST_SERVICES: must be scripts or containers, got "docker"',
    );
  });

  it('starts only the containers the run has no address for', () => {
    expect(containersToStart({})).toEqual({ postgres: false, kafka: false });
    expect(containersToStart({ ACM_TEST_SERVICES: 'containers' })).toEqual({ postgres: true, kafka: true });
    expect(containersToStart({ ACM_TEST_SERVICES: 'containers', TEST_DATABASE_URL: 'postgres://x@db/acm' })).toEqual({
      postgres: false,
      kafka: true,
    });
    expect(containersToStart({ ACM_TEST_SERVICES: 'containers', TEST_KAFKA_BOOTSTRAP_SERVERS: 'broker:9092' })).toEqual(
      { postgres: true, kafka: false },
    );
  });

  it('runs the PostgreSQL major and the Kafka version of scripts/services-up.sh', () => {
    const script = readFileSync(join(__dirname, '..', 'scripts', 'services-up.sh'), 'utf8');
    expect(/ACM_KAFKA_VERSION:-([0-9.]+)/.exec(script)?.[1]).toBe(DEFAULT_KAFKA_VERSION);
    expect(/postgresql\/(\d+)\/bin/.exec(script)?.[1]).toBe(POSTGRES_IMAGE.split(':')[1]);
    expect(kafkaImage({})).toBe(`apache/kafka:${DEFAULT_KAFKA_VERSION}`);
    expect(kafkaImage({ ACM_KAFKA_VERSION: '4.1.0' })).toBe('apache/kafka:4.1.0');
  });

  it('never loads testcontainers on the scripts, and loads it when containers are selected', async () => {
    const { default: globalSetup } = await import('./support/global-setup');
    const saved = process.env['ACM_TEST_SERVICES'];
    const savedUrl = process.env['TEST_DATABASE_URL'];
    try {
      delete process.env['ACM_TEST_SERVICES'];
      await expect(globalSetup()).resolves.toBeUndefined();
      expect(loaded).toEqual([]);

      process.env['ACM_TEST_SERVICES'] = 'containers';
      delete process.env['TEST_DATABASE_URL'];
      await expect(globalSetup()).rejects.toThrow('@testcontainers/postgresql loaded');
      expect(loaded).toEqual(['@testcontainers/postgresql']);
    } finally {
      if (saved === undefined) {
        delete process.env['ACM_TEST_SERVICES'];
      } else {
        process.env['ACM_TEST_SERVICES'] = saved;
      }
      if (savedUrl === undefined) {
        delete process.env['TEST_DATABASE_URL'];
      } else {
        process.env['TEST_DATABASE_URL'] = savedUrl;
      }
    }
  });
});
