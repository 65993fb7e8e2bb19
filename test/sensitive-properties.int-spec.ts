import { randomUUID } from 'node:crypto';
import { UnitOfWork } from '@acm/domain';
import { Client } from 'pg';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, registerParticipant, startRuntime } from './support/runtime-harness';
import { testDatabaseUrl } from './support/services';

const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const KEY = 'integration test passphrase';
const TOKEN = `token-${randomUUID()}`;
const PASSWORD = `password-${randomUUID()}`;
const definitionYaml = readRepoFile('tosca/examples/sim-sensitive.yaml');
const instanceJson = readRepoFile('tosca/examples/instances/sim-sensitive.json')
  .replace('SECRET-TOKEN-PLACEHOLDER', TOKEN)
  .replace('SECRET-PASSWORD-PLACEHOLDER', PASSWORD);

interface ElementBody {
  id: string;
  definition: { name: string; version: string };
  properties: Record<string, unknown>;
}

/** A body of the example instance with fresh ids and name, and `properties` changed by `change`. */
function instanceBody(
  compositionId: string,
  change: (properties: Record<string, unknown>) => Record<string, unknown> = (properties) => properties,
): { body: Record<string, unknown>; elementId: string } {
  const body = JSON.parse(instanceJson.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as Record<string, unknown>;
  const [element] = Object.values(body['elements'] as Record<string, ElementBody>);
  if (element === undefined) {
    throw new Error('the example instance has no element');
  }
  const elementId = randomUUID();
  return {
    elementId,
    body: {
      ...body,
      name: `sensitive-${elementId.slice(0, 8)}`,
      elements: { [elementId]: { ...element, id: elementId, properties: change(element.properties) } },
    },
  };
}

async function storedProperties(schema: string, elementId: string): Promise<Record<string, unknown> | null> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    const result = await client.query<{ properties: Record<string, unknown> }>(
      `SELECT properties FROM "${schema}".automation_composition_element WHERE element_id = $1`,
      [elementId],
    );
    return result.rows[0]?.properties ?? null;
  } finally {
    await client.end();
  }
}

async function commissionAndPrime(runtime: RuntimeHarness): Promise<string> {
  const response = await runtime.http
    .post(`${BASE}/compositions`)
    .set('Content-Type', 'application/yaml')
    .send(definitionYaml.replace('name: acm.example.SimSensitiveProperties', `name: acm.s.${randomUUID().slice(0, 8)}`))
    .expect(201);
  const compositionId = (response.body as { compositionId: string }).compositionId;
  // Stands in for the participants' PRIME_ACKs: this suite has no participant on its bus.
  await runtime.app.get(UnitOfWork).transaction(async (store) => {
    const found = await store.definitions.find(compositionId);
    if (!found) {
      throw new Error(`no definition ${compositionId}`);
    }
    await store.definitions.update({ ...found.value, state: 'PRIMED' }, found.version);
  });
  return compositionId;
}

describe('sensitive properties with MSG_ENABLE_ENCRYPTION on (PostgreSQL)', () => {
  let runtime: RuntimeHarness;
  let compositionId: string;

  beforeAll(async () => {
    runtime = await startRuntime({
      MSG_ENABLE_ENCRYPTION: 'true',
      MSG_ENCRYPTION_KEY: KEY,
      SENSITIVE_REVEAL_ALLOWED: 'true',
    });
    await registerParticipant(runtime.app, randomUUID(), [{ typeName: SIM_TYPE, typeVersion: '1.0.0' }]);
    compositionId = await commissionAndPrime(runtime);
  });

  afterAll(async () => {
    await runtime.close();
  });

  it('stores a sensitive property and a sensitive data-type field encrypted, the rest as given', async () => {
    const { body, elementId } = instanceBody(compositionId);
    await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);

    const stored = await storedProperties(runtime.schema, elementId);
    expect(stored?.['baseUrl']).toEqual(expect.stringMatching(/^ENCRYPTED:[A-Za-z0-9+/]+=*$/));
    const credentials = stored?.['credentials'] as Record<string, unknown>;
    expect(credentials['user']).toBe('operator');
    expect(credentials['password']).toEqual(expect.stringMatching(/^ENCRYPTED:/));
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
    expect(stored?.['configurationEntities']).toEqual({ greeting: { text: 'hello' } });
  });

  it('masks them in GET, in the instance lists and in history, and answers them in clear when asked', async () => {
    const { body, elementId } = instanceBody(compositionId);
    const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const path = `${BASE}/compositions/${compositionId}/instances/${instanceId}`;

    const masked = await runtime.http.get(path).expect(200);
    const properties = (masked.body as { elements: Record<string, ElementBody> }).elements[elementId]?.properties;
    expect(properties?.['baseUrl']).toBe('******');
    expect(properties?.['credentials']).toEqual({ user: 'operator', password: '******' });
    for (const listPath of [`${BASE}/compositions/${compositionId}/instances`, `${BASE}/instances`]) {
      const list = await runtime.http.get(listPath).expect(200);
      expect(JSON.stringify(list.body)).toContain('******');
      expect(JSON.stringify(list.body)).not.toMatch(new RegExp(`${TOKEN}|${PASSWORD}|ENCRYPTED:`));
    }
    const history = await runtime.http.get(`${path}/history`).expect(200);
    expect(JSON.stringify(history.body)).not.toMatch(new RegExp(`${TOKEN}|${PASSWORD}|ENCRYPTED:`));

    const clear = await runtime.http.get(`${path}?showSensitive=true`).expect(200);
    const clearProperties = (clear.body as { elements: Record<string, ElementBody> }).elements[elementId]?.properties;
    expect(clearProperties?.['baseUrl']).toBe(`http://sim.example:30800/?token=${TOKEN}`);
    expect(clearProperties?.['credentials']).toEqual({ user: 'operator', password: PASSWORD });
  });

  it('keeps the stored secret when an answer is sent back with the mask, and encrypts a new one', async () => {
    const { body, elementId } = instanceBody(compositionId);
    const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const path = `${BASE}/compositions/${compositionId}/instances/${instanceId}`;
    const before = await storedProperties(runtime.schema, elementId);
    const answer = (await runtime.http.get(path).expect(200)).body as Record<string, unknown>;
    const answered = (answer['elements'] as Record<string, ElementBody>)[elementId];
    if (answered === undefined) {
      throw new Error('the answer lacks the element');
    }
    const changed = { ...answered, properties: { ...answered.properties, baseUrl: 'http://new.example/?token=new' } };

    await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({ ...answer, elements: { [elementId]: changed } })
      .expect(200);

    const after = await storedProperties(runtime.schema, elementId);
    expect((after?.['credentials'] as Record<string, unknown>)['password']).toBe(
      (before?.['credentials'] as Record<string, unknown>)['password'],
    );
    expect(after?.['baseUrl']).toEqual(expect.stringMatching(/^ENCRYPTED:/));
    expect(after?.['baseUrl']).not.toBe(before?.['baseUrl']);
    const clear = await runtime.http.get(`${path}?showSensitive=true`).expect(200);
    const clearProperties = (clear.body as { elements: Record<string, ElementBody> }).elements[elementId]?.properties;
    expect(clearProperties?.['baseUrl']).toBe('http://new.example/?token=new');
    expect(clearProperties?.['credentials']).toEqual({ user: 'operator', password: PASSWORD });
  });

  it.each<[string, (properties: Record<string, unknown>) => Record<string, unknown>, RegExp]>([
    [
      'a sensitive value that is not text',
      (properties) => ({ ...properties, baseUrl: 30800 }),
      /properties\.baseUrl: a sensitive property \(metadata\.sensitive\) must be a string to be encrypted, got number/,
    ],
    [
      'the mask on a new instance',
      (properties) => ({ ...properties, credentials: { user: 'operator', password: '******' } }),
      /properties\.credentials\.password: \*{6} is how answers mask a sensitive value; give the value itself/,
    ],
    [
      'a value encrypted with another key',
      (properties) => ({
        ...properties,
        baseUrl: 'ENCRYPTED:AAECAwQFBgcICQoLlx31cgCNvIbanpni8AH2Eg3dMdrUYONemcfgaTVsZAgoHocA',
      }),
      /properties\.baseUrl: a value starting with ENCRYPTED: must be one encrypted with this runtime's MSG_ENCRYPTION_KEY/,
    ],
  ])('refuses %s with 400 naming the field and the rule, and stores nothing', async (_, change, rule) => {
    const { body, elementId } = instanceBody(compositionId, change);
    const response = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(400);
    expect((response.body as { errorDetails: string }).errorDetails).toMatch(
      new RegExp(`elements\\.${elementId}\\.${rule.source}`),
    );
    expect(await storedProperties(runtime.schema, elementId)).toBeNull();
  });

  it('refuses a showSensitive that is not true or false', async () => {
    const response = await runtime.http.get(`${BASE}/instances?showSensitive=maybe`).expect(400);
    expect(response.body).toEqual({ errorDetails: 'showSensitive: must be true or false, got "maybe"' });
  });
});

describe('sensitive properties with clear answers not allowed', () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime({ MSG_ENABLE_ENCRYPTION: 'true', MSG_ENCRYPTION_KEY: KEY });
  });

  afterAll(async () => {
    await runtime.close();
  });

  it.each([`${BASE}/instances`, `${BASE}/compositions/${randomUUID()}/history`])(
    'refuses showSensitive=true on %s with 400 naming the setting',
    async (path) => {
      const response = await runtime.http.get(`${path}?showSensitive=true`).expect(400);
      expect(response.body).toEqual({
        errorDetails:
          'showSensitive: answering sensitive values in clear is turned off (SENSITIVE_REVEAL_ALLOWED=false)',
      });
    },
  );
});
