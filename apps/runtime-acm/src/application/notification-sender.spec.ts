import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FeedEvent, StoredSubscription } from '@acm/domain';
import { initialDelivery } from '@acm/domain';
import { alertmanagerPayload, bodyOf, cloudEvent, sendNotification, signatureOf } from './notification-sender';

const event = (kind: string): FeedEvent =>
  ({
    position: 3,
    sequence: 41,
    subjectId: 'instance-1',
    compositionId: 'composition-1',
    operationId: null,
    event: kind,
    detail: {},
    actor: { kind: 'runtime' },
    at: Date.UTC(2026, 11, 7),
  }) as unknown as FeedEvent;

describe('notification payloads', () => {
  it('writes a CloudEvent whose id is the history sequence and whose data names the definition and instance', () => {
    expect(cloudEvent(event('COMPLETED'))).toMatchObject({
      specversion: '1.0',
      id: '41',
      type: 'org.acm-runtime.history.COMPLETED',
      subject: 'instance-1',
      time: '2026-12-07T00:00:00.000Z',
      data: { compositionId: 'composition-1', instanceId: 'instance-1', sequence: 41 },
    });
  });

  it('posts the CloudEvent in structured mode as the SDK writes it: the same members, its content type', () => {
    const { body, contentType } = bodyOf('cloudevents', event('COMPLETED'));
    expect(contentType).toBe('application/cloudevents+json; charset=utf-8');
    expect(JSON.parse(body)).toEqual(cloudEvent(event('COMPLETED')));
  });

  it('fires an alert for a failure kind and resolves one for any other kind', () => {
    for (const kind of ['FAILED', 'TIMEOUT', 'NO_PROGRESS', 'WAIT_TIMED_OUT', 'WAIT_FAILED']) {
      expect(alertmanagerPayload(event(kind))).toMatchObject({
        status: 'firing',
        alerts: [{ status: 'firing', labels: { alertname: `Acm${kind}`, severity: 'warning' } }],
      });
    }
    expect(alertmanagerPayload(event('COMPLETED'))).toMatchObject({
      status: 'resolved',
      alerts: [{ labels: { severity: 'info' }, annotations: { eventId: '41' }, fingerprint: '41' }],
    });
  });

  it('signs with HMAC-SHA256 over the raw body', () => {
    expect(signatureOf('key', 'The quick brown fox jumps over the lazy dog')).toBe(
      'sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    );
  });
});

describe('sendNotification', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/moved') {
        response.writeHead(302, { Location: '/ok' }).end();
        return;
      }
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const subscription = (path: string): StoredSubscription => ({
    subscription: { subscriptionId: 's', url: `${url}${path}`, filter: {}, format: 'cloudevents', createdAt: 0 },
    secret: null,
    delivery: initialDelivery(0, 0),
  });

  it('counts a 2xx as delivered and a redirect as a failure, not followed', async () => {
    expect(await sendNotification(subscription('/ok'), event('COMPLETED'), 2_000)).toEqual({
      delivered: true,
      status: 204,
    });
    expect(await sendNotification(subscription('/moved'), event('COMPLETED'), 2_000)).toEqual({
      delivered: false,
      error: 'HTTP 302',
    });
  });
});
