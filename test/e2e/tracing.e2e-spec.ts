import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { OtlpReceiver } from '../support/otlp-receiver';
import type { ReceivedSpan } from '../support/otlp-receiver';
import type { ProductProcess } from '../support/processes';
import { E2E_LOG_DIR, freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const SIM_TYPES = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0';

/**
 * One deploy as one trace across two processes: the runtime and the simulator, over real Kafka and PostgreSQL, both
 * exporting OTLP/HTTP (JSON) to a receiver the test runs. The W3C trace context crosses Kafka in record headers.
 */
describe('tracing across Kafka (runtime + simulator processes)', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_trace_${suffix}`;
  const topics = { op: `acm-e2e-op-trace-${suffix}`, sync: `acm-e2e-sync-trace-${suffix}` };
  const participantId = randomUUID();
  const receiver = new OtlpReceiver();
  const runtimeName = `runtime-trace-${suffix}`;
  let runtimeUrl = '';
  let runtime: ProductProcess;
  let simulator: ProductProcess;

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);

  beforeAll(async () => {
    const endpoint = await receiver.start();
    const otel = {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    const [runtimePort, simPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    runtime = runtimeProcess(runtimeName, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-trace-${suffix}`,
      topics,
      env: { ...otel, LOG_LEVEL: 'log' },
    });
    runtime.start();
    await runtimeAnswering(api);
    simulator = simulatorProcess(`sim-trace-${suffix}`, {
      port: simPort,
      participantId,
      types: SIM_TYPES,
      topics,
      env: otel,
    });
    simulator.start();
    await participantKnown(api, participantId);
  }, 120_000);

  afterAll(async () => {
    await simulator?.stop();
    await runtime?.stop();
    await receiver.stop();
    await dropSchema(schema);
  });

  it('records request → operation → phase → process → element handler → publish → ACK apply as one trace', async () => {
    const created = await api()
      .post(`${API}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-single-element.yaml'))
      .expect(201);
    const compositionId = (created.body as { compositionId: string }).compositionId;
    await api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('the definition to be PRIMED', async () => {
      const response = await api().get(`${API}/compositions/${compositionId}`).expect(200);
      return (response.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
    const body = readRepoFile('tosca/examples/instances/sim-single-element.json').replace(
      /COMPOSITIONIDPLACEHOLDER/g,
      compositionId,
    );
    const instantiated = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(201);
    const instanceId = (instantiated.body as { instanceId: string }).instanceId;

    const requestId = randomUUID();
    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .set('X-ONAP-RequestID', requestId)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    await eventually('the instance to be DEPLOYED', async () => {
      const response = await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200);
      const instance = response.body as { deployState: string; phase?: number };
      return instance.deployState === 'DEPLOYED' && instance.phase === undefined ? true : undefined;
    });

    const put = await eventually('the PUT request span', () =>
      receiver.spans.find((span) => span.attributes['http.request.header.x-onap-requestid']?.toString() === requestId),
    );
    // Named and tagged as ONAP's Spring runtime does, with the semantic attributes beside.
    expect(put).toMatchObject({
      service: 'acm-runtime',
      name: 'http put /v2/compositions/{compositionId}/instances/{instanceId}',
      attributes: {
        uri: '/v2/compositions/{compositionId}/instances/{instanceId}',
        method: 'PUT',
        status: '202',
        outcome: 'SUCCESS',
        'http.route': '/v2/compositions/{compositionId}/instances/{instanceId}',
        'http.response.status_code': 202,
      },
    });
    const inTrace = (): ReceivedSpan[] => receiver.spans.filter((span) => span.traceId === put.traceId);
    const childOf = (parent: ReceivedSpan, name: string, service: string): ReceivedSpan | undefined =>
      inTrace().find((span) => span.parentSpanId === parent.spanId && span.name === name && span.service === service);

    const operation = await eventually('the operation span', () => childOf(put, 'operation DEPLOY', 'acm-runtime'));
    expect(operation.attributes).toMatchObject({
      'acm.order': 'DEPLOY',
      'acm.composition_id': compositionId,
      'acm.instance_id': instanceId,
      'acm.outcome': 'COMPLETED',
    });
    expect(operation.attributes['acm.operation_id']).toEqual(expect.any(String));
    const phase = await eventually('the phase span', () => childOf(operation, 'phase 0', 'acm-runtime'));
    const processed = await eventually('the simulator processing the phase message', () =>
      childOf(phase, `${topics.op} process`, 'acm-participant-simulator'),
    );
    expect(processed.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.destination.name': topics.op,
      'messaging.operation': 'process',
    });
    const handler = await eventually('the element handler span of the simulator', () =>
      childOf(processed, 'element deploy', 'acm-participant-simulator'),
    );
    expect(handler.attributes).toMatchObject({ 'acm.instance_id': instanceId, 'acm.result': true });
    const published = await eventually('the simulator publishing the ACK', () =>
      childOf(handler, `${topics.op} publish`, 'acm-participant-simulator'),
    );
    expect(published.attributes).toMatchObject({ 'messaging.system': 'kafka', 'messaging.operation': 'publish' });
    await eventually('the runtime applying the ACK', () =>
      childOf(published, 'apply participant messages', 'acm-runtime'),
    );
    // Only the participant's ACK opens an apply span: the runtime's own order, read back on the shared topic, does not.
    expect(inTrace().filter((span) => span.name === 'apply participant messages')).toHaveLength(1);

    // As ONAP's trace suite queries Jaeger: a service's spans by operation name, and by tag.
    const byOperation = (service: string, name: string): ReceivedSpan[] =>
      receiver.spans.filter((span) => span.service === service && span.name === name);
    const byTag = (service: string, key: string, value: string): ReceivedSpan[] =>
      receiver.spans.filter((span) => span.service === service && span.attributes[key] === value);
    const prime = byOperation('acm-runtime', 'http put /v2/compositions/{compositionId}');
    expect(prime.map((span) => span.attributes['uri'])).toContain('/v2/compositions/{compositionId}');
    for (const service of ['acm-runtime', 'acm-participant-simulator']) {
      expect({ service, kafkaSpans: byTag(service, 'messaging.system', 'kafka').length > 0 }).toEqual({
        service,
        kafkaSpans: true,
      });
    }

    // The log lines of the request, the order, the phase and the ACK's result carry the trace's id.
    const lines = readFileSync(join(E2E_LOG_DIR, `${runtimeName}.log`), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requestLine = lines.find((line) => line['requestId'] === requestId && line['context'] === 'Http');
    expect(requestLine).toMatchObject({ traceId: put.traceId, spanId: put.spanId });
    for (const event of ['ORDERED', 'PHASE_STARTED', 'ELEMENT_RESULT', 'COMPLETED']) {
      const line = lines.find((each) => each['event'] === event && each['instanceId'] === instanceId);
      expect({ event, traceId: line?.['traceId'] }).toEqual({ event, traceId: put.traceId });
    }
  });
});
