import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import type { Test } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createRuntimeApp } from '../../apps/runtime-acm/src/bootstrap';
import { loadRuntimeConfig } from '../../apps/runtime-acm/src/config/runtime.config';
import { ParticipantProtocolService } from '../../apps/runtime-acm/src/engine/participant-protocol.service';
import { testDatabaseUrl } from './services';

export const BASE = '/onap/policy/clamp/acm/v2';
export const USER = 'runtimeUser';
export const PASSWORD = 'zb!XztG34';

/** A runtime app on the real PostgreSQL, in a schema of its own that is dropped afterwards. */
export interface RuntimeHarness {
  readonly app: INestApplication;
  readonly http: TestAgent<Test>;
  readonly schema: string;
  close(): Promise<void>;
}

export async function startRuntime(env: Record<string, string> = {}): Promise<RuntimeHarness> {
  const schema = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const config = loadRuntimeConfig({ DATABASE_URL: testDatabaseUrl(), LOG_LEVEL: 'error', SIMULATOR: 'false', ...env });
  const { app } = await createRuntimeApp(config, { schema });
  await app.init();
  const http = request.agent(app.getHttpServer()).auth(USER, PASSWORD);
  return {
    app,
    http,
    schema,
    async close(): Promise<void> {
      await app.close();
      const client = new Client({ connectionString: testDatabaseUrl() });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** Registers a participant replica the way a REGISTER message from the bus would. */
export async function registerParticipant(
  app: INestApplication,
  participantId: string,
  types: Array<{ typeName: string; typeVersion: string }>,
): Promise<void> {
  await app.get(ParticipantProtocolService).register({
    messageType: 'PARTICIPANT_REGISTER',
    messageId: randomUUID(),
    timestamp: new Date().toISOString(),
    participantId,
    replicaId: randomUUID(),
    participantSupportedElementType: types.map((type) => ({ id: randomUUID(), ...type })),
  });
}

export const REPO_ROOT = join(__dirname, '..', '..');

export function readRepoFile(relativePath: string): string {
  return readFileSync(join(REPO_ROOT, relativePath), 'utf8');
}
