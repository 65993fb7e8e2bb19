import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import type { DestinationStream } from 'pino';
import request from 'supertest';
import type { Test } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createRuntimeApp } from '../../apps/runtime-acm/src/bootstrap';
import { loadRuntimeConfig } from '../../apps/runtime-acm/src/config/runtime.config';
import { ParticipantProtocolService } from '../../apps/runtime-acm/src/application/participant-protocol.service';
import { eventually } from './scripted-participant';
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

export async function startRuntime(
  env: Record<string, string> = {},
  options: { logDestination?: DestinationStream } = {},
): Promise<RuntimeHarness> {
  const schema = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const config = loadRuntimeConfig({ DATABASE_URL: testDatabaseUrl(), LOG_LEVEL: 'error', SIMULATOR: 'false', ...env });
  const { app } = await createRuntimeApp(config, { schema, ...options });
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

/**
 * The next revision of `tosca/examples/sim-single-element.yaml`, a target to migrate to: another definition name,
 * and its element's node template at version 2.0.0.
 */
export function simSingleElementNextRevision(): string {
  const next = readRepoFile('tosca/examples/sim-single-element.yaml')
    .replace('name: acm.example.SimSingleElement', 'name: acm.example.SimSingleElementNext')
    .replace(
      /acm\.example\.single\.SimElement:\n {6}version: 1\.0\.0/,
      'acm.example.single.SimElement:\n      version: 2.0.0',
    )
    .replace(
      /- name: acm\.example\.single\.SimElement\n {12}version: 1\.0\.0/,
      '- name: acm.example.single.SimElement\n            version: 2.0.0',
    );
  if (!next.includes('version: 2.0.0')) {
    throw new Error('sim-single-element.yaml changed: its next revision no longer applies');
  }
  return next;
}

/** Waits until a participant's REGISTER was applied (GET participants/{id} answers 200). */
export async function participantRegistered(runtime: RuntimeHarness, participantId: string): Promise<void> {
  await eventually('the participant to register', async () => {
    const response = await runtime.http.get(`${BASE}/participants/${participantId}`);
    return response.status === 200 ? true : undefined;
  });
}

/** Commissions a YAML definition and primes it; resolves with its id once it is PRIMED. */
export async function commissionAndPrime(runtime: RuntimeHarness, yaml: string): Promise<string> {
  const created = await runtime.http
    .post(`${BASE}/compositions`)
    .set('Content-Type', 'application/yaml')
    .send(yaml)
    .expect(201);
  const compositionId = (created.body as { compositionId: string }).compositionId;
  await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
  await eventually('PRIMED', async () => {
    const got = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
    return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
  });
  return compositionId;
}

/** Creates an instance from an example body (its composition id filled in) with fresh element ids and name. */
export async function createInstanceFrom(
  runtime: RuntimeHarness,
  compositionId: string,
  instanceJson: string,
): Promise<{ instanceId: string; elementIds: string[] }> {
  const body = JSON.parse(instanceJson.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as {
    name: string;
    elements: Record<string, { id: string }>;
  };
  const elements = Object.fromEntries(
    Object.values(body.elements).map((element) => {
      const id = randomUUID();
      return [id, { ...element, id }];
    }),
  );
  const created = await runtime.http
    .post(`${BASE}/compositions/${compositionId}/instances`)
    .send({ ...body, name: `${body.name}-${randomUUID().slice(0, 8)}`, elements })
    .expect(201);
  return { instanceId: (created.body as { instanceId: string }).instanceId, elementIds: Object.keys(elements) };
}

/** Sends an order (`{deployOrder: 'DEPLOY'}`, ...) and expects it accepted. */
export async function orderInstance(
  runtime: RuntimeHarness,
  compositionId: string,
  instanceId: string,
  body: Record<string, string>,
): Promise<void> {
  await runtime.http.put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).send(body).expect(202);
}

/** GET of an instance, read as the caller's view of it. */
export async function instanceOf<T>(runtime: RuntimeHarness, compositionId: string, instanceId: string): Promise<T> {
  return (await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
    .body as T;
}

/** The history events of an instance, oldest first. */
export async function historyOf<T>(runtime: RuntimeHarness, compositionId: string, instanceId: string): Promise<T[]> {
  const history = await runtime.http
    .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`)
    .expect(200);
  return (history.body as { events: T[] }).events;
}
