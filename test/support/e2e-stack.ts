import { Client } from 'pg';
import type request from 'supertest';
import { eventually } from './scripted-participant';
import { testDatabaseUrl } from './services';

const API = '/onap/policy/clamp/acm/v2';

/** Waits until a runtime process answers its health endpoint (it may still be starting: errors are retried). */
export async function runtimeAnswering(api: () => request.Agent): Promise<void> {
  await eventually(
    'the runtime to answer',
    async () => {
      const response = await api()
        .get('/onap/policy/clamp/acm/actuator/health')
        .catch(() => undefined);
      return response?.status === 200 ? true : undefined;
    },
    1500,
  );
}

/** Waits until the runtime knows a participant (its REGISTER was applied). */
export async function participantKnown(api: () => request.Agent, participantId: string): Promise<void> {
  await eventually(
    'the participant to register',
    async () => ((await api().get(`${API}/participants/${participantId}`)).status === 200 ? true : undefined),
    1500,
  );
}

/** Commissions a YAML definition over HTTP and primes it; resolves with its id once it is PRIMED. */
export async function commissionedAndPrimed(api: () => request.Agent, yaml: string): Promise<string> {
  const commissioned = await api()
    .post(`${API}/compositions`)
    .set('Content-Type', 'application/yaml')
    .send(yaml)
    .expect(201);
  const compositionId = (commissioned.body as { compositionId: string }).compositionId;
  await api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
  await eventually('PRIMED', async () => {
    const state = (await api().get(`${API}/compositions/${compositionId}`)).body as { state: string };
    return state.state === 'PRIMED' ? true : undefined;
  });
  return compositionId;
}

/** Drops the schema a runtime process used. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
