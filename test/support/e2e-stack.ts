import { Client } from 'pg';
import type request from 'supertest';
import { eventually } from './scripted-participant';
import { testDatabaseUrl } from './services';

const API = '/onap/policy/clamp/acm/v2';
/** Polls of 20 ms: about 30 s, for a process that has to start (or a participant that has to register). */
const START_POLLS = 1500;

/**
 * Waits until a runtime process answers its health endpoint (it may still be starting: errors are retried).
 * `attempts` is for a stack that starts slower, e.g. on a broker of its own.
 */
export async function runtimeAnswering(api: () => request.Agent, attempts = START_POLLS): Promise<void> {
  await eventually(
    'the runtime to answer',
    async () => {
      const response = await api()
        .get('/onap/policy/clamp/acm/actuator/health')
        .catch(() => undefined);
      return response?.status === 200 ? true : undefined;
    },
    attempts,
  );
}

/** Waits until the runtime knows a participant (its REGISTER was applied). */
export async function participantKnown(
  api: () => request.Agent,
  participantId: string,
  attempts = START_POLLS,
): Promise<void> {
  await eventually(
    `participant ${participantId} to register`,
    async () => ((await api().get(`${API}/participants/${participantId}`)).status === 200 ? true : undefined),
    attempts,
  );
}

export interface CommissionOptions {
  /** How the definition is written; ONAP takes JSON as well as YAML. */
  readonly contentType?: 'application/yaml' | 'application/json';
  /** Polls of 20 ms for PRIMED; eventually's default unless the stack is slower. */
  readonly attempts?: number;
}

/** Commissions a definition over HTTP and primes it; resolves with its id once it is PRIMED. */
export async function commissionedAndPrimed(
  api: () => request.Agent,
  definition: string,
  options: CommissionOptions = {},
): Promise<string> {
  const commissioned = await api()
    .post(`${API}/compositions`)
    .set('Content-Type', options.contentType ?? 'application/yaml')
    .send(definition)
    .expect(201);
  const compositionId = (commissioned.body as { compositionId: string }).compositionId;
  await api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
  await eventually(
    'PRIMED',
    async () => {
      // The composition was just created: any other answer than 200 is a fault, told at once, not as a timeout.
      const state = (await api().get(`${API}/compositions/${compositionId}`).expect(200)).body as { state: string };
      return state.state === 'PRIMED' ? true : undefined;
    },
    options.attempts,
  );
  return compositionId;
}

/** Drops the schema a runtime process used. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
