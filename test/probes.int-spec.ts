import { MessageBus } from '@acm/messaging';
import request from 'supertest';
import type { RuntimeHarness } from './support/runtime-harness';
import { startRuntime } from './support/runtime-harness';
import { testKafkaBrokers } from './support/services';

const ACTUATOR = '/onap/policy/clamp/acm/actuator';

describe('probes and metrics without credentials (PostgreSQL and Kafka)', () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime({
      KAFKA_BOOTSTRAP_SERVERS: testKafkaBrokers().join(','),
      KAFKA_GROUP_ID: `probes-${Date.now()}`,
    });
  });

  afterAll(async () => {
    await runtime.close();
  });

  it('answers liveness and readiness without credentials, revealing only UP', async () => {
    const server = runtime.app.getHttpServer();
    const liveness = await request(server).get(`${ACTUATOR}/health/liveness`).expect(200);
    expect(liveness.body).toEqual({ status: 'UP' });
    const readiness = await request(server).get(`${ACTUATOR}/health/readiness`).expect(200);
    expect(readiness.body).toEqual({ status: 'UP' });
  });

  it('keeps health details, metrics and the API behind HTTP Basic by default', async () => {
    const server = runtime.app.getHttpServer();
    await request(server).get(`${ACTUATOR}/health`).expect(401);
    await request(server).get(`${ACTUATOR}/prometheus`).expect(401);
    await request(server).get('/onap/policy/clamp/acm/metrics').expect(401);
    await request(server).get('/onap/policy/clamp/acm/v2/compositions').expect(401);
    // An open path is open to reads only.
    await request(server).post(`${ACTUATOR}/health/readiness`).expect(401);
    const health = await runtime.http.get(`${ACTUATOR}/health`).expect(200);
    expect(health.body).toMatchObject({ status: 'UP', components: { db: { status: 'UP' }, kafka: { status: 'UP' } } });
  });

  it('is not ready once the message bus is gone, and says no more than DOWN', async () => {
    await runtime.app.get(MessageBus).close();
    const server = runtime.app.getHttpServer();
    const readiness = await request(server).get(`${ACTUATOR}/health/readiness`).expect(503);
    expect(readiness.body).toEqual({ status: 'DOWN' });
    await request(server).get(`${ACTUATOR}/health/liveness`).expect(200);
    const health = await runtime.http.get(`${ACTUATOR}/health`).expect(503);
    expect(health.body).toMatchObject({
      status: 'DOWN',
      components: { db: { status: 'UP' }, kafka: { status: 'DOWN', details: { error: 'MessageBus is closed' } } },
    });
  });
});

describe('METRICS_AUTH=false', () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime({ METRICS_AUTH: 'false' });
  });

  afterAll(async () => {
    await runtime.close();
  });

  it('opens the metrics to a scraper and nothing else', async () => {
    const server = runtime.app.getHttpServer();
    const metrics = await request(server).get(`${ACTUATOR}/prometheus`).expect(200);
    expect(metrics.text).toContain('# TYPE http_server_requests_seconds histogram');
    await request(server).get('/onap/policy/clamp/acm/metrics').expect(200);
    await request(server).get(`${ACTUATOR}/health`).expect(401);
    await request(server).get('/onap/policy/clamp/acm/v2/compositions').expect(401);
  });
});
