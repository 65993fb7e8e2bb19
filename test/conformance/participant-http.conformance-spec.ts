import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { RestTestServer } from '../../apps/participant-http/src/testing/rest-test-server';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import type { ProductProcess } from '../support/processes';
import { freePort, httpParticipantProcess, runtimeProcess } from '../support/processes';
import { PASSWORD, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import { onapFile } from './onap-files';

const API = '/onap/policy/clamp/acm/v2';
const HTTP_PARTICIPANT_ID = '101c62b3-8918-41b9-a747-d21eb79c6c01';

interface InstanceView {
  deployState: string;
  elements: Record<string, { deployState: string; message?: string }>;
}

/**
 * ONAP's own definitions for its http participant, commissioned unchanged, deployed through the project's HTTP
 * participant process with the runtime over Kafka: `compositions/participant-http.yaml` (ONAP's example, whose calls
 * go to httpbin.org: the instance points them at a server the test runs) and csit's `acelement-usecaseDocker.yaml` with
 * csit's instance `AcDocker.json` (whose call reads the runtime's own health: the instance points it at this runtime).
 */
describe("ONAP's http participant files through the project's HTTP participant", () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `conf_http_${suffix}`;
  const topics = { op: `acm-conf-op-http-${suffix}`, sync: `acm-conf-sync-http-${suffix}` };
  const server = new RestTestServer();
  let baseUrl = '';
  let runtimeUrl = '';
  let runtime: ProductProcess;
  let participant: ProductProcess;

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);

  beforeAll(async () => {
    baseUrl = await server.start();
    const [runtimePort, participantPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    runtime = runtimeProcess(`runtime-conf-http-${suffix}`, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-conf-http-${suffix}`,
      topics,
    });
    runtime.start();
    await runtimeAnswering(api);
    participant = httpParticipantProcess(`participant-conf-http-${suffix}`, {
      port: participantPort,
      participantId: HTTP_PARTICIPANT_ID,
      topics,
    });
    participant.start();
    await participantKnown(api, HTTP_PARTICIPANT_ID);
  }, 120_000);

  afterAll(async () => {
    await participant?.stop();
    await runtime?.stop();
    await server.stop();
    await dropSchema(schema);
  });

  async function deployed(compositionId: string, instance: object): Promise<InstanceView> {
    const created = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(instance)
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const view = await eventually('the deploy to finish', async () => {
      const found = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
        .body as InstanceView & { stateChangeResult?: string };
      return found.deployState === 'DEPLOYED' || found.stateChangeResult === 'FAILED' ? found : undefined;
    });
    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'UNDEPLOY' })
      .expect(202);
    await eventually('the undeploy to finish', async () => {
      const found = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
        .body as InstanceView;
      return found.deployState === 'UNDEPLOYED' ? true : undefined;
    });
    return view;
  }

  it("deploys ONAP's participant-http.yaml unchanged: every call of both entities, in order, with ONAP's message", async () => {
    const compositionId = await commissionedAndPrimed(api, onapFile('compositions/participant-http.yaml'));
    const elementId = randomUUID();
    server.calls.length = 0;

    const view = await deployed(compositionId, {
      name: 'HttpInstance',
      version: '1.0.0',
      compositionId,
      description: "ONAP's example, its calls sent to the test's server",
      elements: {
        [elementId]: {
          id: elementId,
          definition: {
            name: 'org.onap.domain.database.Http_PMSHMicroserviceAutomationCompositionElement',
            version: '1.2.3',
          },
          description: 'The http element',
          properties: { baseUrl },
        },
      },
    });

    expect(view.elements[elementId]).toMatchObject({ deployState: 'DEPLOYED', message: 'Deployed' });
    expect(server.calls.map((call) => `${call.method} ${call.url} ${call.body}`)).toEqual([
      'POST /post {"name":"ob1","port_type"}',
      'GET /get ',
      'POST /post/123/dummyName this is a test body',
      'GET /get?id=123&name=dummyName ',
    ]);
    expect(server.calls.every((call) => call.headers['content-type'] === 'application/json')).toBe(true);
  });

  it("deploys csit's acelement-usecaseDocker.yaml with csit's AcDocker.json: the element reads the runtime's health", async () => {
    const compositionId = await commissionedAndPrimed(api, onapFile('csit-data/acelement-usecaseDocker.yaml'));
    // csit's instance, its baseUrl (the runtime's address in ONAP's docker compose) pointed at this runtime.
    const instance = JSON.parse(
      onapFile('csit-data/AcDocker.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
        .replace('http://policy-clamp-runtime-acm:6969', runtimeUrl),
    ) as { elements: Record<string, unknown> };
    const [elementId] = Object.keys(instance.elements);

    const view = await deployed(compositionId, instance);

    expect(view.elements[elementId ?? '']).toMatchObject({ deployState: 'DEPLOYED', message: 'Deployed' });
  });
});
