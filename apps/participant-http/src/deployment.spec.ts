import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { load } from 'js-yaml';

import { loadHttpParticipantConfig } from './config';
import { HEALTH_PATH } from './health';

const ROOT = join(__dirname, '../../..');

interface ComposeService {
  command?: string[];
  environment?: Record<string, unknown>;
  healthcheck?: { test: string[] };
}

describe('how the HTTP participant is started', () => {
  it('has an npm script that runs the built main.ts', () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts['start:participant-http']).toBe('node dist/apps/participant-http/src/main.js');
    expect(existsSync(join(ROOT, 'apps/participant-http/src/main.ts'))).toBe(true);
  });

  it('has a compose service with only variables it reads and accepts, probing its health route', () => {
    const compose = load(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
      services: Record<string, ComposeService>;
    };
    const service = compose.services['participant-http'];
    expect(service?.command).toEqual(['node', 'dist/apps/participant-http/src/main.js']);
    const env = Object.fromEntries(
      Object.entries(service?.environment ?? {}).map(([key, value]) => [key, String(value)]),
    );
    const known = ['KAFKA_BOOTSTRAP_SERVERS', 'HEARTBEAT_MS', 'PARTICIPANT_ID', 'PARTICIPANT_GROUP_ID', 'HTTP_PORT'];
    expect(Object.keys(env).filter((name) => !known.includes(name))).toEqual([]);
    expect(loadHttpParticipantConfig(env)).toMatchObject({ kafkaBrokers: ['kafka:9092'], port: 6969 });
    expect(service?.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:6969${HEALTH_PATH}`);
  });
});
