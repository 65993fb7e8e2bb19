import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { DEFAULT_HTTP_PASSWORD, DEFAULT_HTTP_USER, loadHttpParticipantConfig } from './config';
import { HEALTH_PATH, healthHandler } from './health';

describe(loadHttpParticipantConfig.name, () => {
  it("defaults to ONAP's http participant: id, group, topics, port 6969 and the health credentials", () => {
    expect(loadHttpParticipantConfig({})).toMatchObject({
      participantId: '101c62b3-8918-41b9-a747-d21eb79c6c01',
      groupId: 'policy-clamp-ac-http-ppnt',
      topics: { operation: 'policy-acruntime-participant', sync: 'acm-ppnt-sync' },
      port: 6969,
      user: 'participantUser',
      password: 'zb!XztG34',
      tracing: null,
    });
  });

  it('reads every setting from its variable', () => {
    const config = loadHttpParticipantConfig({
      PARTICIPANT_ID: '11111111-2222-4333-8444-555555555555',
      PARTICIPANT_GROUP_ID: 'my-group',
      KAFKA_BOOTSTRAP_SERVERS: 'k1:9092, k2:9092',
      OPERATION_TOPIC: 'op',
      SYNC_TOPIC: 'sync',
      HEARTBEAT_MS: '5000',
      HTTP_PORT: '7000',
      HTTP_USER: 'u',
      HTTP_PASSWORD: 'p',
      HTTP_SECRETS_DIR: '/run/secrets/http',
    });
    expect(config).toMatchObject({
      participantId: '11111111-2222-4333-8444-555555555555',
      groupId: 'my-group',
      kafkaBrokers: ['k1:9092', 'k2:9092'],
      topics: { operation: 'op', sync: 'sync' },
      heartbeatMs: 5000,
      port: 7000,
      user: 'u',
      password: 'p',
      secretsDir: '/run/secrets/http',
    });
  });

  it.each([
    [{ PARTICIPANT_ID: 'nope' }, 'PARTICIPANT_ID: expected a UUID, got "nope"'],
    [{ HTTP_PORT: '70000' }, 'HTTP_PORT: expected an integer from 0 to 65535, got "70000"'],
    [{ PARTICIPANT_PRINCIPAL: 'me' }, 'PARTICIPANT_PRINCIPAL and PARTICIPANT_SIGNING_SECRET: set both'],
  ])('names the variable of an invalid value (%p)', (env, message) => {
    expect(() => loadHttpParticipantConfig(env)).toThrow(message);
  });
});

describe('health route', () => {
  it("answers UP at ONAP's path behind ONAP's Basic credentials, 401 without them", async () => {
    const server = createServer(healthHandler({ user: DEFAULT_HTTP_USER, password: DEFAULT_HTTP_PASSWORD }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const basic = `Basic ${Buffer.from(`${DEFAULT_HTTP_USER}:${DEFAULT_HTTP_PASSWORD}`).toString('base64')}`;
    try {
      expect(HEALTH_PATH).toBe('/onap/policy/clamp/acm/httpparticipant/health');
      const up = await fetch(`${base}${HEALTH_PATH}`, { headers: { authorization: basic } });
      expect(up.status).toBe(200);
      expect(await up.json()).toEqual({ status: 'UP' });
      expect((await fetch(`${base}${HEALTH_PATH}`)).status).toBe(401);
      const wrong = `Basic ${Buffer.from(`${DEFAULT_HTTP_USER}:wrong`).toString('base64')}`;
      expect((await fetch(`${base}${HEALTH_PATH}`, { headers: { authorization: wrong } })).status).toBe(401);
      expect((await fetch(`${base}/other`, { headers: { authorization: basic } })).status).toBe(404);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
