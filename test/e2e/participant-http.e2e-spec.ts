import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import request from 'supertest';

import { RestTestServer } from '../../apps/participant-http/src/testing/rest-test-server';
import { OtlpReceiver } from '../support/otlp-receiver';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import type { ProductProcess } from '../support/processes';
import { E2E_LOG_DIR, freePort, httpParticipantProcess, runtimeProcess } from '../support/processes';
import { PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const HTTP_PARTICIPANT_ID = '101c62b3-8918-41b9-a747-d21eb79c6c01';
const CATALOGUE = '5b0c1a9e-2d3f-4e5a-8b6c-7d8e9f0a1b01';
const PRICES = '5b0c1a9e-2d3f-4e5a-8b6c-7d8e9f0a1b02';

interface InstanceView {
  deployState: string;
  stateChangeResult?: string;
  elements: Record<string, { deployState: string; message?: string }>;
}

/**
 * The HTTP participant as a process, with the runtime, over real Kafka and PostgreSQL: a definition written for ONAP's
 * http participant deploys, phase by phase, and the REST server the test runs sees its calls in order.
 */
describe('HTTP participant process (runtime + participant over Kafka)', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_http_${suffix}`;
  const topics = { op: `acm-e2e-op-http-${suffix}`, sync: `acm-e2e-sync-http-${suffix}` };
  const server = new RestTestServer();
  const receiver = new OtlpReceiver();
  let baseUrl = '';
  let runtimeUrl = '';
  let healthUrl = '';
  let runtime: ProductProcess;
  let participant: ProductProcess;

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);

  beforeAll(async () => {
    baseUrl = await server.start();
    const endpoint = await receiver.start();
    const otel = {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    const [runtimePort, participantPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    healthUrl = `http://127.0.0.1:${participantPort}/onap/policy/clamp/acm/httpparticipant/health`;
    runtime = runtimeProcess(`runtime-http-${suffix}`, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-http-${suffix}`,
      topics,
      // The replica state changes are logged at the "log" level.
      env: { ...otel, LOG_LEVEL: 'log' },
    });
    runtime.start();
    await runtimeAnswering(api);
    participant = httpParticipantProcess(`participant-http-${suffix}`, {
      port: participantPort,
      participantId: HTTP_PARTICIPANT_ID,
      topics,
      env: otel,
    });
    participant.start();
    await participantKnown(api, HTTP_PARTICIPANT_ID);
  }, 120_000);

  afterAll(async () => {
    await participant?.stop();
    await runtime?.stop();
    await server.stop();
    await receiver.stop();
    await dropSchema(schema);
  });

  async function instantiated(compositionId: string, body: string): Promise<string> {
    const created = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(body.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId))
      .expect(201);
    return (created.body as { instanceId: string }).instanceId;
  }

  async function settled(compositionId: string, instanceId: string, deployState: string): Promise<InstanceView> {
    return eventually(`the instance to be ${deployState}`, async () => {
      const view = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
        .body as InstanceView;
      return view.deployState === deployState ? view : undefined;
    });
  }

  it("answers ONAP's health route behind ONAP's Basic credentials", async () => {
    const basic = `Basic ${Buffer.from('participantUser:zb!XztG34').toString('base64')}`;
    const health = await fetch(healthUrl, { headers: { authorization: basic } });
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { status: 'UP' } });
    expect((await fetch(healthUrl)).status).toBe(401);
  });

  it('deploys the definition phase by phase: the server sees every call in order; undeploy calls nothing', async () => {
    const compositionId = await commissionedAndPrimed(api, readRepoFile('test/fixtures/participant-http.yaml'));
    const body = readRepoFile('test/fixtures/participant-http-instance.json').replace(/BASEURLPLACEHOLDER/g, baseUrl);
    const instanceId = await instantiated(compositionId, body);
    server.calls.length = 0;

    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const deployed = await settled(compositionId, instanceId, 'DEPLOYED');

    expect(server.calls.map((call) => `${call.method} ${call.url} ${call.body}`)).toEqual([
      'POST /api/items {"name":"catalogue"}',
      'GET /api/items/catalogue?view=full ',
      'PUT /api/items/prices apple=1',
      'GET /plain ',
    ]);
    expect(server.calls[2]?.headers['content-type']).toBe('text/plain');
    expect(deployed.elements[CATALOGUE]).toMatchObject({ deployState: 'DEPLOYED', message: 'Deployed' });
    expect(deployed.elements[PRICES]).toMatchObject({ deployState: 'DEPLOYED', message: 'Deployed' });

    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'UNDEPLOY' })
      .expect(202);
    await settled(compositionId, instanceId, 'UNDEPLOYED');
    expect(server.calls).toHaveLength(4);

    // Its traces, as ONAP's trace suite looks for them: Kafka spans of the participant, in the runtime's trace.
    const handled = await eventually('a Kafka span of the HTTP participant', () =>
      receiver.spans.find(
        (span) =>
          span.service === 'acm-participant-http' &&
          span.attributes['messaging.system'] === 'kafka' &&
          span.attributes['acm.message_type'] === 'AUTOMATION_COMPOSITION_DEPLOY',
      ),
    );
    expect(handled.attributes).toMatchObject({
      'messaging.destination.name': topics.op,
      'messaging.operation': 'process',
    });
    expect(receiver.spans.find((span) => span.spanId === handled.parentSpanId)).toMatchObject({
      service: 'acm-runtime',
      name: expect.stringMatching(/^phase [01]$/),
    });
  });

  it("fails a deploy whose call answers another status, with ONAP's message naming the call", async () => {
    const compositionId = await commissionedAndPrimed(
      api,
      readRepoFile('test/fixtures/participant-http.yaml').replace(/acm\.example\.http\./g, 'acm.example.httpfail.'),
    );
    const body = readRepoFile('test/fixtures/participant-http-instance.json')
      .replace(/acm\.example\.http\./g, 'acm.example.httpfail.')
      .replace('"ShopInstance"', '"ShopInstanceFailing"')
      // Element ids are unique across instances.
      .replace(/5b0c1a9e-/g, '6b0c1a9e-')
      .replace(/"properties": \{ "baseUrl": "BASEURLPLACEHOLDER" \}/, `"properties": { "baseUrl": "${baseUrl}/fail/" }`)
      .replace(/BASEURLPLACEHOLDER/g, baseUrl);
    const instanceId = await instantiated(compositionId, body);
    server.calls.length = 0;

    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const failed = await eventually('the deploy to fail', async () => {
      const view = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
        .body as InstanceView;
      return view.stateChangeResult === 'FAILED' ? view : undefined;
    });
    const catalogue = failed.elements[CATALOGUE.replace('5b0c1a9e-', '6b0c1a9e-')];
    const message = catalogue?.message ?? '';
    expect(message).toMatch(/^Error on Invoking the http request: \[\(404,no such route\), \(404,no such route\)\]/);
    expect(message).toContain(`catalogue:1.0.0 create:1.0.0: POST ${baseUrl}/fail/api/items: status 404, expected 201`);
    expect(catalogue?.deployState).toBe('UNDEPLOYED');
  });

  it('stops on SIGTERM: deregisters, closes its health route, and exits 0', async () => {
    const runtimeLog = join(E2E_LOG_DIR, `runtime-http-${suffix}.log`);
    await participant.stop('SIGTERM');
    expect(await participant.exit()).toBe(0);
    await expect(fetch(healthUrl)).rejects.toThrow();
    // The runtime saw the DEREGISTER: the replica went off cleanly, not by missed heartbeats.
    await eventually('the runtime to log the replica deregistered', () =>
      readFileSync(runtimeLog, 'utf8')
        .split('\n')
        .some(
          (line) =>
            line.includes('"event":"PARTICIPANT_STATE"') &&
            line.includes(HTTP_PARTICIPANT_ID) &&
            line.includes('"to":"DEREGISTERED"'),
        )
        ? true
        : undefined,
    );
  });
});
