import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { UnitOfWork } from '@acm/domain';
import { load } from 'js-yaml';
import request from 'supertest';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, PASSWORD, USER, readRepoFile, registerParticipant, startRuntime } from './support/runtime-harness';

const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const singleYaml = readRepoFile('tosca/examples/sim-single-element.yaml');
const singleInstance = readRepoFile('tosca/examples/instances/sim-single-element.json');

function instanceBody(compositionId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body = JSON.parse(singleInstance.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as Record<
    string,
    unknown
  >;
  return { ...body, ...overrides };
}

function withFreshElementId(body: Record<string, unknown>): Record<string, unknown> {
  const elements = body['elements'] as Record<string, Record<string, unknown>>;
  const [element] = Object.values(elements);
  const id = randomUUID();
  return { ...body, elements: { [id]: { ...element, id } } };
}

describe('REST API on PostgreSQL', () => {
  let runtime: RuntimeHarness;
  const participantId = randomUUID();

  beforeAll(async () => {
    runtime = await startRuntime({ MAX_BODY_BYTES: '65536' });
    await registerParticipant(runtime.app, participantId, [{ typeName: SIM_TYPE, typeVersion: '1.0.0' }]);
  });

  afterAll(async () => {
    await runtime.close();
  });

  /** Stands in for the participants' PRIME_ACKs, which arrive over Kafka once the engine runs. */
  async function markPrimed(compositionId: string): Promise<void> {
    await runtime.app.get(UnitOfWork).transaction(async (store) => {
      const found = await store.definitions.find(compositionId);
      if (!found) {
        throw new Error(`no definition ${compositionId}`);
      }
      await store.definitions.update({ ...found.value, state: 'PRIMED' }, found.version);
    });
  }

  async function commissionSingle(name = `acm.test.${randomUUID().slice(0, 8)}`): Promise<string> {
    const response = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(singleYaml.replace('name: acm.example.SimSingleElement', `name: ${name}`))
      .expect(201);
    return (response.body as { compositionId: string }).compositionId;
  }

  describe('headers and authentication', () => {
    it('refuses a request without credentials with 401 JSON', async () => {
      const response = await request(runtime.app.getHttpServer()).get(`${BASE}/compositions`).expect(401);
      expect(response.body).toEqual({ errorDetails: 'Unauthorized: HTTP Basic credentials are required' });
      expect(response.headers['www-authenticate']).toContain('Basic');
    });

    it('refuses wrong credentials', async () => {
      await request(runtime.app.getHttpServer()).get(`${BASE}/compositions`).auth('runtimeUser', 'wrong').expect(401);
    });

    it('refuses valid credentials followed by junk in the Authorization header', async () => {
      const token = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
      const server = runtime.app.getHttpServer();
      await request(server).get(`${BASE}/compositions`).set('Authorization', `Basic ${token}`).expect(200);
      const response = await request(server)
        .get(`${BASE}/compositions`)
        .set('Authorization', `Basic ${token} junk`)
        .expect(401);
      expect(response.body).toEqual({ errorDetails: 'Unauthorized: wrong user name or password' });
    });

    it('echoes X-ONAP-RequestID and sends the version headers', async () => {
      const requestId = randomUUID();
      const response = await runtime.http.get(`${BASE}/compositions`).set('X-ONAP-RequestID', requestId).expect(200);
      expect(response.headers['x-onap-requestid']).toBe(requestId);
      expect(response.headers['x-latestversion']).toBe('1.0.0');
      expect(response.headers['x-minorversion']).toBe('0');
      expect(response.headers['x-patchversion']).toBe('0');
    });

    it('keeps an idle keep-alive connection open for 65 s and tells the client so', async () => {
      // Node's 5 s default is about a watching client's pause between two calls: a pooled connection reused just as
      // the server closed it failed with ECONNRESET under load.
      const response = await runtime.http.get(`${BASE}/compositions`).set('Connection', 'keep-alive').expect(200);
      expect(response.headers['connection']).toBe('keep-alive');
      expect(response.headers['keep-alive']).toBe('timeout=65');
    });

    it.each([
      ['the console', '/onap/policy/clamp/acm/console/', "style-src 'self';"],
      ['Swagger UI', '/onap/policy/clamp/acm/swagger-ui', "style-src 'self' 'unsafe-inline';"],
      ['an API answer', `${BASE}/compositions`, "default-src 'none';frame-ancestors 'none'"],
    ])('serves %s with CSP, X-Frame-Options and X-Content-Type-Options', async (_case, path, policy) => {
      const response = await runtime.http.get(path).redirects(1).expect(200);
      expect(response.headers['content-security-policy']).toContain(policy);
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['strict-transport-security']).toBeUndefined();
    });

    it('generates an X-ONAP-RequestID when none is given', async () => {
      const response = await runtime.http.get(`${BASE}/compositions`).expect(200);
      expect(response.headers['x-onap-requestid']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('composition definitions', () => {
    it('walks commission → get → update → list with filters and pages → delete', async () => {
      const name = `acm.test.walk.${randomUUID().slice(0, 8)}`;
      const created = await runtime.http
        .post(`${BASE}/compositions`)
        .set('Content-Type', 'application/yaml')
        .send(singleYaml.replace('name: acm.example.SimSingleElement', `name: ${name}`))
        .expect(201);
      const compositionId = (created.body as { compositionId: string }).compositionId;
      expect(created.headers['location']).toMatch(new RegExp(`${BASE}/compositions/${compositionId}$`));
      expect(created.body).toEqual({
        compositionId,
        affectedAutomationCompositionDefinitions: [
          { name: 'acm.example.SimParticipant', version: '1.0.0' },
          { name: 'acm.example.single.SimElement', version: '1.0.0' },
          { name: 'acm.example.single.Composition', version: '1.0.0' },
        ],
      });

      const got = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
      const definition = got.body as Record<string, any>;
      expect(definition['compositionId']).toBe(compositionId);
      expect(definition['state']).toBe('COMMISSIONED');
      expect(definition['stateChangeResult']).toBe('NO_ERROR');
      expect(definition['serviceTemplate'].metadata.compositionId).toBe(compositionId);
      expect(definition['lastMsg']).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/);
      expect(Object.keys(definition['elementStateMap'])).toEqual(['acm.example.single.SimElement']);
      expect(definition['elementStateMap']['acm.example.single.SimElement']).toMatchObject({
        nodeTemplateId: { name: 'acm.example.single.SimElement', version: '1.0.0' },
        state: 'COMMISSIONED',
      });

      const template = { ...definition['serviceTemplate'], description: 'updated in place' };
      const updated = await runtime.http.post(`${BASE}/compositions`).send(template).expect(200);
      expect((updated.body as { compositionId: string }).compositionId).toBe(compositionId);
      const reread = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
      expect((reread.body as Record<string, any>)['serviceTemplate'].description).toBe('updated in place');

      const second = `${name}.second`;
      await commissionSingle(second);
      const byName = await runtime.http.get(`${BASE}/compositions`).query({ name, version: '1.0.0' }).expect(200);
      expect(
        (byName.body as { service_templates: Array<{ name: string }> }).service_templates.map((t) => t.name),
      ).toEqual([name]);
      const none = await runtime.http.get(`${BASE}/compositions`).query({ name, version: '9.9.9' }).expect(200);
      expect(none.body).toEqual({ service_templates: [] });
      const page0 = await runtime.http.get(`${BASE}/compositions`).query({ page: 0, size: 1 }).expect(200);
      const page1 = await runtime.http.get(`${BASE}/compositions`).query({ page: 1, size: 1 }).expect(200);
      const names0 = (page0.body as { service_templates: Array<{ name: string }> }).service_templates;
      const names1 = (page1.body as { service_templates: Array<{ name: string }> }).service_templates;
      expect(names0).toHaveLength(1);
      expect(names1).toHaveLength(1);
      expect(names0[0]?.name).not.toBe(names1[0]?.name);
      const byParticipant = await runtime.http
        .get(`${BASE}/compositions`)
        .query({ participantId: randomUUID() })
        .expect(200);
      expect(byParticipant.body).toEqual({ service_templates: [] });

      const deleted = await runtime.http.delete(`${BASE}/compositions/${compositionId}`).expect(200);
      expect((deleted.body as { compositionId: string }).compositionId).toBe(compositionId);
      await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(404);
    });

    it('answers in YAML when asked', async () => {
      const compositionId = await commissionSingle();
      const response = await runtime.http
        .get(`${BASE}/compositions/${compositionId}`)
        .set('Accept', 'application/yaml')
        .expect(200);
      expect(response.headers['content-type']).toContain('application/yaml');
      expect((load(response.text) as Record<string, unknown>)['compositionId']).toBe(compositionId);
    });

    it('primes: PRIMING with the participant assigned, then refuses a second prime', async () => {
      const compositionId = await commissionSingle();
      await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
      const got = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
      const definition = got.body as Record<string, any>;
      expect(definition['state']).toBe('PRIMING');
      expect(definition['elementStateMap']['acm.example.single.SimElement'].participantId).toBe(participantId);
      const again = await runtime.http
        .put(`${BASE}/compositions/${compositionId}`)
        .send({ primeOrder: 'PRIME' })
        .expect(400);
      expect((again.body as { errorDetails: string }).errorDetails).toContain(
        'Not valid order PRIME; AcTypeState: PRIMING; StateChangeResult: NO_ERROR',
      );
      const deleting = await runtime.http.delete(`${BASE}/compositions/${compositionId}`).expect(400);
      expect((deleting.body as { errorDetails: string }).errorDetails).toContain('must be COMMISSIONED');
    });

    it('cancels a running prime, and refuses with 409 a cancel when no prime or deprime runs', async () => {
      const compositionId = await commissionSingle();
      const cancel = `${BASE}/compositions/${compositionId}/cancel`;
      const idle = await runtime.http.post(cancel).expect(409);
      expect((idle.body as { errorDetails: string }).errorDetails).toBe(
        'Cannot cancel the composition: no prime or deprime is running; AcTypeState: COMMISSIONED; ' +
          'StateChangeResult: NO_ERROR; allowed now: PRIME, DEPRIME',
      );
      await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
      await runtime.http.post(cancel).expect(202);
      const got = (await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200)).body as Record<
        string,
        unknown
      >;
      expect([got['state'], got['stateChangeResult']]).toEqual(['PRIMING', 'FAILED']);
      const again = await runtime.http.post(cancel).expect(409);
      expect((again.body as { errorDetails: string }).errorDetails).toBe(
        'Cannot cancel the composition: no prime or deprime is running; AcTypeState: PRIMING; ' +
          'StateChangeResult: FAILED; allowed now: PRIME, DEPRIME',
      );
    });

    it('refuses to prime an element type no participant supports', async () => {
      const compositionId = await commissionSingle();
      const template = (
        (await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200)).body as Record<string, any>
      )['serviceTemplate'];
      template.topology_template.node_templates['acm.example.single.SimElement'].type_version = '9.0.0';
      template.node_types['org.onap.policy.clamp.acm.SimAutomationCompositionElement'].version = '9.0.0';
      await runtime.http.post(`${BASE}/compositions`).send(template).expect(200);
      const refused = await runtime.http
        .put(`${BASE}/compositions/${compositionId}`)
        .send({ primeOrder: 'PRIME' })
        .expect(400);
      expect((refused.body as { errorDetails: string }).errorDetails).toContain(
        `Element Type ${SIM_TYPE} 9.0.0 not supported`,
      );
    });

    it.each([
      ['an empty order', {}, 'primeOrder must be PRIME or DEPRIME'],
      ['an unknown order', { primeOrder: 'SHINE' }, 'primeOrder: "SHINE" is not one of NONE, PRIME, DEPRIME'],
    ])('refuses %s with 400', async (_case, body, message) => {
      const compositionId = await commissionSingle();
      const response = await runtime.http.put(`${BASE}/compositions/${compositionId}`).send(body).expect(400);
      expect((response.body as { errorDetails: string }).errorDetails).toContain(message);
    });
  });

  describe('instances', () => {
    let compositionId: string;

    beforeAll(async () => {
      compositionId = await commissionSingle();
      await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
      await markPrimed(compositionId);
    });

    it('walks create → update → get → list → deploy → refused orders → delete', async () => {
      const name = `inst-${randomUUID().slice(0, 8)}`;
      const body = withFreshElementId(instanceBody(compositionId, { name }));
      const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
      const { instanceId } = created.body as { instanceId: string };
      expect(created.body).toEqual({ instanceId, affectedAutomationComposition: { name, version: '1.0.0' } });
      expect(created.headers['location']).toMatch(new RegExp(`/instances/${instanceId}$`));

      const updatedBody = { ...body, instanceId, description: 'changed while undeployed' };
      const updated = await runtime.http
        .post(`${BASE}/compositions/${compositionId}/instances`)
        .send(updatedBody)
        .expect(200);
      expect((updated.body as { instanceId: string }).instanceId).toBe(instanceId);

      const got = await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200);
      const instance = got.body as Record<string, any>;
      expect(instance).toMatchObject({
        name,
        version: '1.0.0',
        instanceId,
        compositionId,
        description: 'changed while undeployed',
        deployState: 'UNDEPLOYED',
        lockState: 'NONE',
        subState: 'NONE',
        stateChangeResult: 'NO_ERROR',
        allowedOrders: ['DEPLOY', 'DELETE', 'UPDATE', 'PREPARE'],
      });
      const [element] = Object.values(instance['elements'] as Record<string, any>);
      expect(element).toMatchObject({
        participantId,
        deployState: 'UNDEPLOYED',
        lockState: 'NONE',
        migrationState: 'DEFAULT',
        properties: { baseUrl: 'http://sim.example:30800' },
      });

      const listed = await runtime.http
        .get(`${BASE}/compositions/${compositionId}/instances`)
        .query({ name, version: '1.0.0' })
        .expect(200);
      expect((listed.body as { automationCompositionList: unknown[] }).automationCompositionList).toHaveLength(1);
      const all = await runtime.http
        .get(`${BASE}/instances`)
        .query({ instanceIds: instanceId, deployState: 'UNDEPLOYED,DEPLOYING', stateChangeResult: 'NO_ERROR' })
        .expect(200);
      expect(
        (all.body as { automationCompositionList: Array<{ instanceId: string }> }).automationCompositionList.map(
          (i) => i.instanceId,
        ),
      ).toEqual([instanceId]);
      const byParticipant = await runtime.http.get(`${BASE}/instances`).query({ participantId }).expect(200);
      expect(
        (
          byParticipant.body as { automationCompositionList: Array<{ instanceId: string }> }
        ).automationCompositionList.map((i) => i.instanceId),
      ).toContain(instanceId);
      const deployedOnly = await runtime.http
        .get(`${BASE}/instances`)
        .query({ instanceIds: instanceId, deployState: 'DEPLOYED' })
        .expect(200);
      expect(deployedOnly.body).toEqual({ automationCompositionList: [] });

      await runtime.http
        .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
        .send({ deployOrder: 'DEPLOY' })
        .expect(202);
      const deploying = await runtime.http
        .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
        .expect(200);
      expect(deploying.body).toMatchObject({ deployState: 'DEPLOYING', lockState: 'NONE', phase: 0 });

      const again = await runtime.http
        .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
        .send({ deployOrder: 'DEPLOY' })
        .expect(400);
      expect((again.body as { errorDetails: string }).errorDetails).toContain(
        'Not valid order AcInstanceStateUpdate(deployOrder=DEPLOY, lockOrder=NONE, subOrder=NONE); DeployState: DEPLOYING; LockState: NONE; SubState: NONE; StateChangeResult: NO_ERROR',
      );
      // The instance said beforehand what the order would be refused with.
      const refusedBefore = (deploying.body as { refusedOrders: Array<{ order: string; reason: string }> })
        .refusedOrders;
      expect((deploying.body as { allowedOrders: string[] }).allowedOrders).toEqual([]);
      expect((again.body as { errorDetails: string }).errorDetails).toContain(
        refusedBefore.find((refused) => refused.order === 'DEPLOY')?.reason,
      );
      const deleteWhileDeploying = await runtime.http
        .delete(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
        .expect(400);
      expect((deleteWhileDeploying.body as { errorDetails: string }).errorDetails).toContain('Not valid order DELETE');
      const rollback = await runtime.http
        .post(`${BASE}/compositions/${compositionId}/instances/${instanceId}/rollback`)
        .expect(400);
      expect((rollback.body as { errorDetails: string }).errorDetails).toContain(
        'Invalid state for rollback, Ac Instance is DEPLOYING',
      );
      const definitionBusy = await runtime.http
        .put(`${BASE}/compositions/${compositionId}`)
        .send({ primeOrder: 'DEPRIME' })
        .expect(400);
      expect((definitionBusy.body as { errorDetails: string }).errorDetails).toContain('There are instances');
    });

    it('deletes an undeployed instance asynchronously (202, DELETING)', async () => {
      const body = withFreshElementId(instanceBody(compositionId, { name: `del-${randomUUID().slice(0, 8)}` }));
      const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
      const { instanceId } = created.body as { instanceId: string };
      const deleted = await runtime.http
        .delete(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
        .expect(202);
      expect((deleted.body as { instanceId: string }).instanceId).toBe(instanceId);
      const got = await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200);
      expect(got.body).toMatchObject({ deployState: 'DELETING', lockState: 'NONE' });
    });

    it('refuses a duplicate name/version and a reused element id with 400', async () => {
      const name = `dup-${randomUUID().slice(0, 8)}`;
      const body = withFreshElementId(instanceBody(compositionId, { name }));
      await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
      const duplicate = await runtime.http
        .post(`${BASE}/compositions/${compositionId}/instances`)
        .send(withFreshElementId(body))
        .expect(400);
      expect((duplicate.body as { errorDetails: string }).errorDetails).toBe(`${name} 1.0.0 already defined`);
      const reused = await runtime.http
        .post(`${BASE}/compositions/${compositionId}/instances`)
        .send({ ...body, name: `${name}-b` })
        .expect(400);
      expect((reused.body as { errorDetails: string }).errorDetails).toContain('UUID already used');
    });

    describe('hostile input', () => {
      function withElementChange(change: (element: Record<string, unknown>) => Record<string, unknown>) {
        const body = withFreshElementId(instanceBody(compositionId, { name: `hostile-${randomUUID().slice(0, 8)}` }));
        const [id, element] = Object.entries(body['elements'] as Record<string, Record<string, unknown>>)[0]!;
        return { ...body, elements: { [id]: change(element) } };
      }
      const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

      it.each([
        [
          'a NUL in the name',
          () => ({ ...instanceBody(compositionId), name: 'a\u0000b' }),
          'name: value must not contain NUL',
        ],
        [
          'a lone surrogate in the description',
          () => ({ ...instanceBody(compositionId), description: '\ud800' }),
          'description: value must not contain a lone UTF-16 surrogate',
        ],
        [
          'a NUL in a property key',
          () => withElementChange((element) => ({ ...element, properties: { 'k\u0000': 1 } })),
          'must not contain NUL',
        ],
        [
          'a lone surrogate in a property value',
          () => withElementChange((element) => ({ ...element, properties: { key: ['ok', '\udfff'] } })),
          '.properties.key[1]: value must not contain a lone UTF-16 surrogate',
        ],
        [
          'a name of 3,000 characters',
          () => ({ ...instanceBody(compositionId), name: 'n'.repeat(3000) }),
          'name: is required and must be at most 255 characters long, got 3000',
        ],
        [
          'an element definition version of 3,000 characters',
          () =>
            withElementChange((element) => ({
              ...element,
              definition: { ...(element['definition'] as object), version: `1.0.0-${'v'.repeat(3000)}` },
            })),
          '.definition.version: must be at most 255 characters long',
        ],
      ])('refuses %s with 400, naming the field and the rule', async (_case, body, message) => {
        const response = await runtime.http
          .post(`${BASE}/compositions/${compositionId}/instances`)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(body()))
          .expect(400);
        expect((response.body as { errorDetails: string }).errorDetails).toContain(message);
      });

      it('refuses element properties nested 10,000 levels with 400, naming the path and the limit', async () => {
        const text = JSON.stringify(withElementChange((element) => ({ ...element, properties: { deep: 'DEEP' } })));
        const response = await runtime.http
          .post(`${BASE}/compositions/${compositionId}/instances`)
          .set('Content-Type', 'application/json')
          .send(text.replace('"DEEP"', nested(10_000)))
          .expect(400);
        const details = (response.body as { errorDetails: string }).errorDetails;
        expect(details).toContain('.properties.deep.a.a');
        expect(details).toContain('nested deeper than 100 levels');
        expect(details.length).toBeLessThan(2_000);
      });

      it('refuses a property value beyond ±1.8e308 (1e999999, YAML .inf) with 400 naming it; nothing is stored', async () => {
        const instances = `${BASE}/compositions/${compositionId}/instances`;
        const before = (await runtime.http.get(instances).expect(200)).body as unknown;
        const text = JSON.stringify(
          withElementChange((element) => ({ ...element, properties: { limits: { max: 'HUGE' } } })),
        );
        const huge = await runtime.http
          .post(instances)
          .set('Content-Type', 'application/json')
          .send(text.replace('"HUGE"', '1e999999'))
          .expect(400);
        expect((huge.body as { errorDetails: string }).errorDetails).toMatch(
          /^elements\[".+"\]\.properties\.limits\.max: must be a finite number; a JSON number beyond ±1\.8e308 \(such as 1e999999\), \.inf or \.nan cannot be stored$/,
        );
        const metadata = await runtime.http
          .post(instances)
          .set('Content-Type', 'application/yaml')
          .send(
            `${JSON.stringify({ ...withElementChange((element) => element), metadata: { weights: ['W'] } })}`.replace(
              '"W"',
              '-.inf',
            ),
          )
          .expect(400);
        expect((metadata.body as { errorDetails: string }).errorDetails).toContain(
          'metadata.weights[0]: must be a finite number',
        );
        expect((await runtime.http.get(instances).expect(200)).body).toEqual(before);
        const template = await runtime.http
          .post(`${BASE}/compositions`)
          .set('Content-Type', 'application/yaml')
          .send(
            singleYaml.replace(
              'name: acm.example.SimSingleElement',
              'name: acm.test.Infinite\nmetadata:\n  limit: .inf',
            ),
          )
          .expect(400);
        expect((template.body as { errorDetails: string }).errorDetails).toContain(
          'metadata.limit: must be a finite number',
        );
      });

      it.each([
        ['a NUL', '%00', 'name: must not contain NUL'],
        ['a byte that is not UTF-8', '%ff', 'name: query parameter is not valid percent-encoded UTF-8'],
        ['a lone percent sign', '%', 'name: query parameter is not valid percent-encoded UTF-8'],
      ])('refuses %s in ?name= with 400', async (_case, encoded, message) => {
        const response = await runtime.http
          .get(`${BASE}/compositions/${compositionId}/instances?name=x${encoded}`)
          .expect(400);
        expect((response.body as { errorDetails: string }).errorDetails).toContain(message);
      });
    });

    it.each([
      ['elements: null', { elements: null }, 'elements: is required'],
      ['a bad version', { version: '1.0' }, 'version: is required and must be a semantic version'],
      ['a bad name', { name: 'has space' }, 'name: is required and must match'],
      ['an unknown element definition', undefined, 'Not found in the composition'],
    ])('refuses %s with 400, naming the field', async (_case, override, message) => {
      let body = withFreshElementId(instanceBody(compositionId, { name: `bad-${randomUUID().slice(0, 8)}` }));
      if (override === undefined) {
        const elements = body['elements'] as Record<string, Record<string, unknown>>;
        const [id, element] = Object.entries(elements)[0] as [string, Record<string, unknown>];
        body = {
          ...body,
          elements: { [id]: { ...element, definition: { name: 'no.such.Element', version: '1.0.0' } } },
        };
      } else {
        body = { ...body, ...override };
      }
      const response = await runtime.http
        .post(`${BASE}/compositions/${compositionId}/instances`)
        .send(body)
        .expect(400);
      expect((response.body as { errorDetails: string }).errorDetails).toContain(message);
    });

    it('refuses a body whose compositionId differs from the path', async () => {
      const other = randomUUID();
      const response = await runtime.http
        .post(`${BASE}/compositions/${compositionId}/instances`)
        .send(withFreshElementId(instanceBody(other, { name: `mm-${randomUUID().slice(0, 8)}` })))
        .expect(400);
      expect((response.body as { errorDetails: string }).errorDetails).toBe(
        `${other} do not match with ${compositionId}`,
      );
    });

    it('refuses an instance of a definition that is not primed', async () => {
      const unprimed = await commissionSingle();
      const response = await runtime.http
        .post(`${BASE}/compositions/${unprimed}/instances`)
        .send(withFreshElementId(instanceBody(unprimed, { name: `np-${randomUUID().slice(0, 8)}` })))
        .expect(400);
      expect((response.body as { errorDetails: string }).errorDetails).toContain(
        `${unprimed} Commissioned automation composition definition not primed`,
      );
    });

    it.each([
      [{}, 'Exactly one of deployOrder, lockOrder, subOrder must be given; none was'],
      [{ deployOrder: 'DEPLOY', lockOrder: 'LOCK' }, 'got DEPLOY and LOCK'],
      [{ deployOrder: 'LAUNCH' }, 'deployOrder: "LAUNCH" is not one of NONE, UNDEPLOY, DEPLOY'],
      [{ deployOrder: 'DELETE' }, 'DELETE is not a state-change order'],
      [{ lockOrder: 'LOCK' }, 'Not valid order AcInstanceStateUpdate(deployOrder=NONE, lockOrder=LOCK, subOrder=NONE)'],
    ])('refuses the state change %j with 400', async (order, message) => {
      const body = withFreshElementId(instanceBody(compositionId, { name: `o-${randomUUID().slice(0, 8)}` }));
      const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
      const { instanceId } = created.body as { instanceId: string };
      const response = await runtime.http
        .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
        .send(order)
        .expect(400);
      expect((response.body as { errorDetails: string }).errorDetails).toContain(message);
      const unchanged = await runtime.http
        .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
        .expect(200);
      expect(unchanged.body).toMatchObject({ deployState: 'UNDEPLOYED', lockState: 'NONE' });
    });

    it('lets exactly one of several concurrent orders win; the losers are refused and nothing is half-written', async () => {
      const body = withFreshElementId(instanceBody(compositionId, { name: `race-${randomUUID().slice(0, 8)}` }));
      const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
      const { instanceId } = created.body as { instanceId: string };
      const responses = await Promise.all(
        Array.from({ length: 8 }, () =>
          runtime.http
            .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
            .send({ deployOrder: 'DEPLOY' }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 202)).toHaveLength(1);
      for (const response of responses.filter((r) => r.status !== 202)) {
        expect([400, 409]).toContain(response.status);
        const details = (response.body as { errorDetails: string }).errorDetails;
        expect(details.includes('was changed by another request') || details.includes('DeployState: DEPLOYING')).toBe(
          true,
        );
      }
      const got = await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200);
      const instance = got.body as Record<string, any>;
      expect(instance['deployState']).toBe('DEPLOYING');
      expect(Object.values(instance['elements'] as Record<string, any>).map((e) => e.deployState)).toEqual([
        'DEPLOYING',
      ]);
    });

    it('answers 409 to a write based on a stale read', async () => {
      const body = withFreshElementId(instanceBody(compositionId, { name: `stale-${randomUUID().slice(0, 8)}` }));
      const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
      const { instanceId } = created.body as { instanceId: string };
      const unitOfWork = runtime.app.get(UnitOfWork);
      const stale = await unitOfWork.read((store) => store.instances.find(instanceId));
      await runtime.http
        .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
        .send({ deployOrder: 'DEPLOY' })
        .expect(202);
      await expect(
        unitOfWork.transaction((store) =>
          store.instances.update({ ...stale!.value, description: 'late' }, stale!.version),
        ),
      ).rejects.toMatchObject({ code: 'CONCURRENT_MODIFICATION' });
    });
  });

  describe('bad input', () => {
    it.each([
      ['a malformed composition id', 'get', `${BASE}/compositions/not-a-uuid`, 400, 'compositionId: must be a UUID'],
      ['an unknown composition', 'get', `${BASE}/compositions/${randomUUID()}`, 404, 'not found'],
      [
        'an unknown instance',
        'get',
        `${BASE}/compositions/${randomUUID()}/instances/${randomUUID()}`,
        404,
        'Automation composition instance',
      ],
      ['an unknown participant', 'get', `${BASE}/participants/${randomUUID()}`, 404, 'Participant Not Found with ID'],
      ['a bad page size', 'get', `${BASE}/compositions?page=0&size=x`, 400, 'size: must be an integer'],
      [
        'a bad deployState filter',
        'get',
        `${BASE}/instances?deployState=FLYING`,
        400,
        'deployState: "FLYING" is not one of',
      ],
      ['an unknown route', 'get', `${BASE}/nowhere`, 404, 'Cannot GET'],
      ['%ff in the path', 'get', `${BASE}/compositions/%ff`, 400, 'Request path segment "%ff" is not valid'],
    ] as const)('%s → %s', async (_case, _method, path, status, message) => {
      const response = await runtime.http.get(path).expect(status);
      expect((response.body as { errorDetails: string }).errorDetails).toContain(message);
    });

    it('answers %00 in a query parameter with the same 400 on every list, read by the route or not', async () => {
      const lists = [
        `${BASE}/compositions`,
        `${BASE}/compositions/${randomUUID()}/instances`,
        `${BASE}/instances`,
        `${BASE}/participants`,
      ];
      const answers = await Promise.all(lists.map((path) => runtime.http.get(`${path}?name=%00`)));
      expect(answers.map((answer) => [answer.status, answer.body])).toEqual(
        lists.map(() => [400, { errorDetails: 'name: must not contain NUL (\\u0000), found at character 0' }]),
      );
    });

    it.each([
      ['not TOSCA', 'application/json', '{"foo": 1}', 'not a TOSCA service template'],
      ['a list', 'application/json', '[]', 'not a TOSCA service template'],
      ['broken JSON', 'application/json', '{"tosca_definitions_version": ', 'Request body is not valid JSON'],
      ['broken YAML', 'application/yaml', 'a: [1, 2\nb: }', 'Request body is not valid YAML'],
      [
        'a non-semver version',
        'application/yaml',
        singleYaml.replace(/version: 1\.0\.0\n(\s+type: org\.onap\.policy\.clamp\.acm\.Sim)/, 'version: 1.0\n$1'),
        'SemVer',
      ],
    ])('refuses a definition that is %s with 400', async (_case, type, text, message) => {
      const response = await runtime.http.post(`${BASE}/compositions`).set('Content-Type', type).send(text).expect(400);
      expect((response.body as { errorDetails: string }).errorDetails).toContain(message);
    });

    it.each([
      [
        'a billion-laughs YAML body',
        'application/yaml',
        ['a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]']
          .concat(
            'bcdefghi'
              .split('')
              .map((level, index) => `${level}: &${level} [${Array(9).fill(`*${'abcdefghi'[index]}`).join(',')}]`),
          )
          .join('\n'),
        'expands to more than 1000000 values',
      ],
      ['a self-referencing alias', 'application/yaml', 'a: &x [*x]\n', 'nested deeper than 100 levels'],
      ['YAML nested 10,000 levels', 'application/yaml', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, '100 levels'],
      ['JSON with a NUL in a key', 'application/json', '{"tosca\\u0000":1}', 'key must not contain NUL'],
    ])('refuses %s with a short 400', async (_case, type, text, message) => {
      const response = await runtime.http.post(`${BASE}/compositions`).set('Content-Type', type).send(text).expect(400);
      expect((response.body as { errorDetails: string }).errorDetails).toContain(message);
      expect(response.text.length).toBeLessThan(1_000);
    });

    it('refuses a body that is not UTF-8 with 400', async () => {
      const response = await runtime.http
        .post(`${BASE}/compositions`)
        .set('Content-Type', 'application/json')
        .serialize((bytes: Buffer) => bytes as unknown as string)
        .send(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]))
        .expect(400);
      expect((response.body as { errorDetails: string }).errorDetails).toBe('Request body is not valid UTF-8');
    });

    it('quotes a huge refused order value as a short excerpt', async () => {
      const response = await runtime.http
        .put(`${BASE}/compositions/${randomUUID()}`)
        .send({ primeOrder: 'P'.repeat(60_000) })
        .expect(400);
      expect((response.body as { errorDetails: string }).errorDetails).toContain('(60000 characters)');
      expect(response.text.length).toBeLessThan(1_000);
    });

    it('ends every error body with a newline', async () => {
      const response = await runtime.http.get(`${BASE}/compositions/not-a-uuid`).expect(400);
      expect(response.text).toBe(
        `${JSON.stringify({ errorDetails: (response.body as { errorDetails: string }).errorDetails })}\n`,
      );
    });

    it.each([
      ['a header flood', `GET ${BASE}/compositions HTTP/1.1\r\nHost: x\r\nX-Flood: ${'f'.repeat(20_000)}\r\n\r\n`, 431],
      [
        'bad framing',
        `GET ${BASE}/compositions HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n`,
        400,
      ],
      ['a broken request line', 'GARBAGE\r\n\r\n', 400],
    ])('answers %s refused by the HTTP parser with an errorDetails body', async (_case, raw, status) => {
      const server = runtime.app.getHttpServer() as Server;
      const listening = server.listening
        ? server
        : await new Promise<Server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
      const { port } = listening.address() as AddressInfo;
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(raw));
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      });
      const [head, body] = answer.split('\r\n\r\n');
      expect(head?.split('\r\n')[0]).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head).toContain('Content-Type: application/json');
      expect(JSON.parse(body ?? '')).toEqual({ errorDetails: expect.any(String) });
    });

    it('refuses an unsupported content type with 415', async () => {
      const response = await runtime.http
        .post(`${BASE}/compositions`)
        .set('Content-Type', 'text/plain')
        .send('hello')
        .expect(415);
      expect((response.body as { errorDetails: string }).errorDetails).toContain(
        'Content-Type text/plain is not supported',
      );
    });

    it('refuses a body over MAX_BODY_BYTES with 413', async () => {
      const response = await runtime.http
        .post(`${BASE}/compositions`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ padding: 'x'.repeat(70_000) }))
        .expect(413);
      expect((response.body as { errorDetails: string }).errorDetails).toContain('MAX_BODY_BYTES');
    });
  });

  describe('cross-site requests', () => {
    const errorOf = (response: { body: unknown }): string => (response.body as { errorDetails: string }).errorDetails;
    const pausePath = (): string => `${BASE}/compositions/${randomUUID()}/instances/${randomUUID()}/pause`;

    it('refuses a body without Content-Type with 415, and commissions nothing', async () => {
      const before = (await runtime.http.get(`${BASE}/compositions`).expect(200)).body as unknown;
      // superagent would add a Content-Type of its own to a string: the body goes out as raw bytes.
      const response = await runtime.http
        .post(`${BASE}/compositions`)
        .serialize((bytes: Buffer) => bytes as unknown as string)
        .send(Buffer.from(JSON.stringify(load(singleYaml))))
        .expect(415);
      expect(errorOf(response)).toBe('A request body needs a Content-Type: send application/json or application/yaml');
      expect((await runtime.http.get(`${BASE}/compositions`).expect(200)).body).toEqual(before);
    });

    it.each([
      ['text/plain', 'POST', '{"deployOrder":"DEPLOY"}'],
      ['text/plain;charset=UTF-8', 'POST', ''],
      ['application/x-www-form-urlencoded', 'POST', ''],
      ['multipart/form-data; boundary=x', 'POST', ''],
      ['text/plain', 'PUT', ''],
      ['text/plain', 'DELETE', ''],
    ])('refuses Content-Type %s on a %s with 415, even with an empty body', async (type, method, body) => {
      const path = method === 'POST' ? pausePath() : `${BASE}/compositions/${randomUUID()}`;
      const sent =
        method === 'POST'
          ? runtime.http.post(path)
          : method === 'PUT'
            ? runtime.http.put(path)
            : runtime.http.delete(path);
      const response = await sent.set('Content-Type', type).send(body).expect(415);
      expect(errorOf(response)).toContain(`is not supported: send application/json or application/yaml`);
    });

    it.each([
      ['an Origin of another site', { Origin: 'http://evil.example' }],
      ['Sec-Fetch-Site cross-site', { 'Sec-Fetch-Site': 'cross-site', Origin: 'http://evil.example' }],
      ['Sec-Fetch-Site same-site', { 'Sec-Fetch-Site': 'same-site', Origin: 'http://127.0.0.1:9999' }],
      ['Origin null', { Origin: 'null' }],
    ])('refuses a body-less POST from a page (%s) with 415 naming X-ACM-Request', async (_case, headers) => {
      const response = await runtime.http.post(pausePath()).set(headers).expect(415);
      expect(errorOf(response)).toContain('or the header X-ACM-Request: 1');
    });

    it.each([
      ['curl, Postman and ONAP send (no Origin, no Content-Type)', {}],
      ['with X-ACM-Request from any origin', { Origin: 'http://evil.example', 'X-ACM-Request': '1' }],
      ['from the same origin', { Origin: 'http://127.0.0.1', 'Sec-Fetch-Site': 'same-origin' }],
      ['with Content-Type application/json and no body', { 'Content-Type': 'application/json' }],
      ['with Content-Type application/yaml and no body', { 'Content-Type': 'application/yaml' }],
    ])('lets a body-less POST through as %s', async (_case, headers) => {
      const response = await runtime.http.post(pausePath()).set(headers).expect(404);
      expect(errorOf(response)).toContain('not found');
    });

    it('lets a body-less PUT or DELETE through without Content-Type: browsers preflight those methods', async () => {
      await runtime.http.put(`${BASE}/participants`).set('Origin', 'http://evil.example').expect(202);
      const deleted = await runtime.http
        .delete(`${BASE}/compositions/${randomUUID()}`)
        .set('Origin', 'http://evil.example')
        .expect(404);
      expect(errorOf(deleted)).toContain('not found');
    });

    it('grants no preflight when CORS_ORIGINS is not set', async () => {
      const preflight = await request(runtime.app.getHttpServer())
        .options(`${BASE}/compositions`)
        .set('Origin', 'http://evil.example')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    });
  });

  describe('participants, health, metrics and OpenAPI', () => {
    it('lists participants with their supported types and replicas', async () => {
      const response = await runtime.http.get(`${BASE}/participants`).expect(200);
      const list = response.body as Array<{ participant: Record<string, any> }>;
      const mine = list.find((info) => info.participant['participantId'] === participantId);
      expect(mine).toBeDefined();
      expect(Object.values(mine!.participant['participantSupportedElementTypes'])).toEqual([
        expect.objectContaining({ typeName: SIM_TYPE, typeVersion: '1.0.0' }),
      ]);
      expect(Object.values(mine!.participant['replicas'])).toEqual([
        expect.objectContaining({ participantState: 'ON_LINE' }),
      ]);
      const all = (await runtime.http.get(`${BASE}/participants/${participantId}`).expect(200)).body as {
        acElementInstanceMap: Record<string, { participantId: string }>;
      };
      const elementIds = Object.keys(all.acElementInstanceMap);
      expect(elementIds.length).toBeGreaterThan(1);
      expect(Object.values(all.acElementInstanceMap).every((e) => e.participantId === participantId)).toBe(true);
      const page1 = (await runtime.http.get(`${BASE}/participants/${participantId}?page=1&size=1`).expect(200))
        .body as {
        acElementInstanceMap: Record<string, unknown>;
      };
      expect(Object.keys(page1.acElementInstanceMap)).toEqual([elementIds[1]]);
      await runtime.http.put(`${BASE}/participants`).expect(202);
      await runtime.http.put(`${BASE}/participants/${participantId}`).expect(202);
      await runtime.http.put(`${BASE}/participants/${randomUUID()}`).expect(404);
      await runtime.http.put(`${BASE}/participants/sync`).expect(202);
    });

    it("reports health UP from the database, with the runtime's version beside ONAP's API version", async () => {
      const response = await runtime.http.get('/onap/policy/clamp/acm/actuator/health').expect(200);
      const manifest = JSON.parse(readRepoFile('package.json')) as { version: string };
      expect(response.body).toMatchObject({
        status: 'UP',
        components: { db: { status: 'UP' } },
        version: manifest.version,
        onapApiVersion: '1.0.0',
      });
      // The headers stay ONAP's: its API version, never the runtime's.
      expect(response.headers['x-latestversion']).toBe('1.0.0');
    });

    it('serves Prometheus metrics as text/plain with ONAP metric names', async () => {
      const response = await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200);
      expect(response.headers['content-type']).toContain('text/plain');
      expect(response.text).toContain(
        'http_server_requests_seconds_count{method="GET",uri="/v2/compositions",status="200",outcome="SUCCESS"}',
      );
    });

    it('labels requests with ONAP route templates, NOT_FOUND for unknown routes and UNKNOWN for refused credentials', async () => {
      const server = runtime.app.getHttpServer();
      await runtime.http.get(`${BASE}/compositions/${randomUUID()}`).expect(404);
      await runtime.http.get('/onap/policy/clamp/acm/actuator/health').expect(200);
      await runtime.http.get(`${BASE}/no/such/route`).expect(404);
      await request(server).get(`${BASE}/compositions`).expect(401);

      const response = await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200);
      const labels = response.text
        .split('\n')
        .filter((line) => line.startsWith('http_server_requests_seconds_count{'))
        .map((line) => line.slice(line.indexOf('{'), line.lastIndexOf('}') + 1));
      expect(labels).toEqual(
        expect.arrayContaining([
          '{method="GET",uri="/v2/compositions/{compositionId}",status="404",outcome="CLIENT_ERROR"}',
          '{method="GET",uri="/actuator/health",status="200",outcome="SUCCESS"}',
          '{method="GET",uri="NOT_FOUND",status="404",outcome="CLIENT_ERROR"}',
          '{method="GET",uri="UNKNOWN",status="401",outcome="CLIENT_ERROR"}',
        ]),
      );
      expect(labels.filter((label) => label.includes('/onap/policy/clamp/acm') || label.includes(':'))).toEqual([]);
    });

    it('serves the OpenAPI document with every v2 path', async () => {
      const response = await runtime.http.get('/onap/policy/clamp/acm/v3/api-docs').expect(200);
      const document = response.body as { servers: Array<{ url: string }>; paths: Record<string, unknown> };
      // Paths are relative to the server, as in ONAP's own document.
      expect(document.servers.map((server) => server.url)).toEqual(['/onap/policy/clamp/acm']);
      const paths = Object.keys(document.paths).map((path) => `${document.servers[0]?.url}${path}`);
      expect(paths).toEqual(
        expect.arrayContaining([
          '/onap/policy/clamp/acm/v2/compositions',
          '/onap/policy/clamp/acm/v2/compositions/{compositionId}',
          '/onap/policy/clamp/acm/v2/compositions/{compositionId}/instances',
          '/onap/policy/clamp/acm/v2/compositions/{compositionId}/instances/{instanceId}',
          '/onap/policy/clamp/acm/v2/compositions/{compositionId}/instances/{instanceId}/rollback',
          '/onap/policy/clamp/acm/v2/instances',
          '/onap/policy/clamp/acm/v2/participants',
          '/onap/policy/clamp/acm/v2/participants/{participantId}',
          '/onap/policy/clamp/acm/v2/participants/sync',
          '/onap/policy/clamp/acm/v2/participants/sync/{participantId}',
          '/onap/policy/clamp/acm/v2/participants/{participantId}/compositions',
          '/onap/policy/clamp/acm/v2/participants/{participantId}/compositions/{compositionId}',
        ]),
      );
      await runtime.http.get('/onap/policy/clamp/acm/swagger-ui').redirects(1).expect(200);
    });
  });
});

describe('REST API with CORS_ORIGINS', () => {
  const listed = 'http://console.example:8080';
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime({ CORS_ORIGINS: `${listed}, https://other.example` });
  });

  afterAll(async () => {
    await runtime.close();
  });

  const preflight = (origin: string) =>
    request(runtime.app.getHttpServer())
      .options(`${BASE}/compositions/${randomUUID()}/instances/${randomUUID()}/pause`)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,x-acm-request');

  it('grants a preflight, with credentials, to a listed origin only', async () => {
    const granted = await preflight(listed).expect(204);
    expect(granted.headers['access-control-allow-origin']).toBe(listed);
    expect(granted.headers['access-control-allow-credentials']).toBe('true');
    expect(granted.headers['access-control-allow-headers']).toContain('X-ACM-Request');
    const refused = await preflight('http://evil.example');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("lets a listed origin's page send a body-less POST; another site's page is still refused", async () => {
    const path = `${BASE}/compositions/${randomUUID()}/instances/${randomUUID()}/pause`;
    const allowed = await runtime.http.post(path).set({ Origin: listed, 'Sec-Fetch-Site': 'cross-site' }).expect(404);
    expect(allowed.headers['access-control-allow-origin']).toBe(listed);
    await runtime.http.post(path).set({ Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' }).expect(415);
  });
});
