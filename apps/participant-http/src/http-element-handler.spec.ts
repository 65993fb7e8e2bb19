import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import { createServer } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { InMemoryMessageBus } from '@acm/messaging';
import type {
  ElementContext,
  ElementHandler,
  ElementResult,
  ParticipantLogger,
  UpdateContext,
} from '@acm/participant-sdk';
import { ManualTimers, ScriptedRuntime, deployOrder, primeOrder, stateChangeOrder } from '@acm/participant-sdk/testing';
import type { TestElement } from '@acm/participant-sdk/testing';

import { HTTP_ELEMENT_TYPE, HTTP_PARTICIPANT_ID, createHttpElementHandler } from './http-element-handler';
import { createHttpParticipant } from './http-participant';
import type { CallRecord } from './rest-sequence';
import { RestTestServer } from './testing/rest-test-server';

const server = new RestTestServer();
let baseUrl = '';
const logged: Array<{ message: string; context?: Record<string, unknown> }> = [];
const logger: ParticipantLogger = (_level, message, context) => {
  logged.push({ message, ...(context === undefined ? {} : { context }) });
};
const secretsDir = mkdtempSync(join(tmpdir(), 'acm-http-secrets-'));
const env: Record<string, string | undefined> = { HTTP_SECRET_TOKEN: 'Bearer s3cr3t-token', PATH: '/usr/bin' };
const timers = new ManualTimers();

beforeAll(async () => {
  baseUrl = await server.start();
  writeFileSync(join(secretsDir, 'api-key'), 'key-from-file\n');
});

afterAll(async () => {
  await server.stop();
  rmSync(secretsDir, { recursive: true, force: true });
});

beforeEach(() => {
  server.calls.length = 0;
  logged.length = 0;
});

function handler(now?: () => number): ElementHandler {
  return createHttpElementHandler({ logger, timers, secrets: { env, dir: secretsDir }, ...(now ? { now } : {}) });
}

function call(name: string, method: string, path: string, expectedResponse: number, extra: object = {}): object {
  return { restRequestId: { name, version: '1.0.1' }, httpMethod: method, path, expectedResponse, ...extra };
}

function entity(name: string, restSequence: unknown, extra: object = {}): object {
  return { configurationEntityId: { name, version: '1.0.0' }, restSequence, ...extra };
}

/** An element context whose definition holds `definition` and whose instance element holds `instance`. */
function contextOf(definition: Record<string, unknown>, instance: Record<string, unknown> = {}): ElementContext {
  const element = {
    instanceId: '7d9ac1d6-0000-4000-8000-000000000001',
    id: '7d9ac1d6-0000-4000-8000-0000000000e1',
    definition: { name: 'org.example.Http', version: '1.2.3' },
    properties: instance,
    outProperties: {},
    deployState: 'DEPLOYING' as const,
    lockState: 'NONE' as const,
  };
  return {
    messageId: '7d9ac1d6-0000-4000-8000-0000000000ff',
    instanceId: element.instanceId,
    compositionId: '7d9ac1d6-0000-4000-8000-0000000000c0',
    compositionElement: {
      compositionId: '7d9ac1d6-0000-4000-8000-0000000000c0',
      definition: element.definition,
      inProperties: definition,
      outProperties: {},
      startPhase: 0,
    },
    instanceElement: element,
    phase: 0,
    report: {
      done: () => Promise.resolve(),
      failed: () => Promise.resolve(),
      info: () => Promise.resolve(),
      reported: false,
    },
    signal: new AbortController().signal,
  };
}

async function deploy(
  definition: Record<string, unknown>,
  instance: Record<string, unknown> = {},
  now?: () => number,
): Promise<ElementResult> {
  const outcome = await handler(now).deploy(contextOf(definition, instance));
  if (outcome === undefined || outcome === 'pending') {
    throw new Error('the handler answers at once');
  }
  return outcome;
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('HTTP element handler against a real server', () => {
  it('runs every call of every entity in order, with path and query parameters, headers and bodies', async () => {
    const result = await deploy(
      {
        baseUrl: 'https://unused.example',
        httpHeaders: { 'Content-Type': 'application/json' },
        uninitializedToPassiveTimeout: 180,
        configurationEntities: [
          entity('entity1', [
            call('request1', 'POST', 'api/items', 201, { body: '{"name":"ob1"}' }),
            call('request2', 'GET', 'plain', 200),
          ]),
          entity('entity2', [
            call('request3', 'PUT', 'api/items/{id}/{name}', 200, {
              pathParams: { id: 123, name: 'dummy name' },
              body: 'this is a test body',
            }),
            call('request4', 'GET', '/api/items', 200, { queryParams: { id: '123', name: 'dummyName' } }),
          ]),
        ],
      },
      // The instance's properties win over the definition's (ONAP's merge).
      { baseUrl },
    );

    expect(result).toEqual({ ok: true, message: 'Deployed' });
    expect(server.calls.map((each) => `${each.method} ${each.url}`)).toEqual([
      'POST /api/items',
      'GET /plain',
      'PUT /api/items/123/dummy%20name',
      'GET /api/items?id=123&name=dummyName',
    ]);
    expect(server.calls[0]).toMatchObject({ body: '{"name":"ob1"}', headers: { 'content-type': 'application/json' } });
    expect(server.calls[2]?.body).toBe('this is a test body');
  });

  it('fails with ONAP message naming the calls that failed, after running the rest (ONAP runs every call)', async () => {
    const result = await deploy({
      baseUrl,
      configurationEntities: [
        entity('e1', [
          call('r1', 'GET', 'fail', 200),
          call('r2', 'GET', 'plain', 200),
          call('r3', 'GET', 'nowhere', 200),
        ]),
      ],
    });
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/^Error on Invoking the http request: \[\(500,boom\), \(404,no such route\)\]; /);
    expect(result.message).toContain(`e1:1.0.0 r1:1.0.1: GET ${baseUrl}/fail: status 500, expected 200`);
    expect(result.message).toContain(`e1:1.0.0 r3:1.0.1: GET ${baseUrl}/nowhere: status 404, expected 200`);
    expect(server.calls).toHaveLength(3);
  });

  it('judges every call, also calls sharing a restRequestId (ONAP keeps only the last result per id)', async () => {
    const result = await deploy({
      baseUrl,
      configurationEntities: [
        entity('e', [call('request1', 'GET', 'fail', 200), call('request1', 'GET', 'plain', 200)]),
      ],
    });
    expect(result.ok).toBe(false);
    expect(result.message).toContain('[(500,boom)]');
  });

  it('counts a call answering its expectedResponse as a success, also when that is not 2xx', async () => {
    const result = await deploy({
      baseUrl,
      configurationEntities: [entity('e', [call('gone', 'DELETE', 'nowhere', 404)])],
    });
    expect(result).toEqual({ ok: true, message: 'Deployed' });
  });

  it('reads configurationEntities written as a map (as the TOSCA type declares it), in order', async () => {
    const result = await deploy({
      baseUrl,
      configurationEntities: {
        first: entity('first', [call('a', 'GET', 'plain', 200)]),
        second: entity('second', [call('b', 'GET', 'api/items', 200)]),
      },
    });
    expect(result.ok).toBe(true);
    expect(server.calls.map((each) => each.url)).toEqual(['/plain', '/api/items']);
  });

  it('does not follow a redirect: the 3xx is the status of the call', async () => {
    const expected = await deploy({
      baseUrl,
      configurationEntities: [entity('e', [call('r', 'GET', 'redirect', 302)])],
    });
    expect(expected.ok).toBe(true);
    const unexpected = await deploy({
      baseUrl,
      configurationEntities: [entity('e', [call('r', 'GET', 'redirect', 200)])],
    });
    expect(unexpected.message).toContain('status 302, expected 200');
    expect(server.calls.map((each) => each.url)).toEqual(['/redirect', '/redirect']);
  });

  it('ends a slow call at its timeoutMs, and counts it as ONAP counts a call without answer (404)', async () => {
    const result = await deploy({
      baseUrl,
      configurationEntities: [
        entity('e', [call('slow', 'GET', 'slow', 200, { timeoutMs: 50 }), call('next', 'GET', 'plain', 200)]),
      ],
    });
    expect(result.ok).toBe(false);
    expect(result.message).toContain('[(404,no answer within 50 ms)]');
    expect(server.calls.map((each) => each.url)).toEqual(['/slow', '/plain']);
  });

  it('stops at the element timeoutMs: the calls it leaves no time for fail without being sent', async () => {
    const result = await deploy({
      baseUrl,
      timeoutMs: 50,
      configurationEntities: [entity('e', [call('slow', 'GET', 'slow', 200), call('late', 'GET', 'plain', 200)])],
    });
    expect(result.message).toContain("late:1.0.1: timeoutMs: the element's 50 ms passed");
    expect(server.calls.map((each) => each.url)).toEqual(['/slow']);
  });

  it('spends the element timeoutMs on a call it cut, even when the clock reads a little less than the deadline', async () => {
    // A clock at nine tenths of the timers' pace: when the element's timer fires, it reads 45 of the 50 ms.
    const origin = performance.now();
    const laggingClock = (): number => origin + (performance.now() - origin) * 0.9;
    const result = await deploy(
      {
        baseUrl,
        timeoutMs: 50,
        configurationEntities: [entity('e', [call('slow', 'GET', 'slow', 200), call('late', 'GET', 'plain', 200)])],
      },
      {},
      laggingClock,
    );
    expect(result.message).toContain("late:1.0.1: timeoutMs: the element's 50 ms passed");
    expect(server.calls.map((each) => each.url)).toEqual(['/slow']);
  });

  it('fails on an unreachable baseUrl, naming the call', async () => {
    const port = await closedPort();
    const result = await deploy({
      baseUrl: `http://127.0.0.1:${port}`,
      configurationEntities: [entity('e', [call('r', 'GET', 'plain', 200)])],
    });
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/^Error on Invoking the http request: \[\(404,connect ECONNREFUSED/);
    expect(result.message).toContain(`GET http://127.0.0.1:${port}/plain: no answer (connect ECONNREFUSED`);
  });

  it('retries transient statuses with backoff on the SDK timers (opt-in retry), and records every call', async () => {
    server.flakyFailures = 2;
    const deploying = deploy({
      baseUrl,
      retry: { retries: 3, baseDelayMs: 100 },
      recordCalls: true,
      configurationEntities: [entity('e', [call('r', 'GET', 'flaky', 200)])],
    });
    for (let wait = 0; wait < 2; wait += 1) {
      await until(() => timers.active === 1);
      timers.tick();
    }
    const result = await deploying;
    expect(result.ok).toBe(true);
    expect(server.calls).toHaveLength(3);
    const records = result.outProperties?.['httpCalls'] as CallRecord[];
    expect(records).toEqual([
      expect.objectContaining({
        entity: 'e:1.0.0',
        request: 'r:1.0.1',
        method: 'GET',
        status: 200,
        ok: true,
        attempts: 3,
      }),
    ]);
    expect(records[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('does not retry without the opt-in (ONAP never retries)', async () => {
    server.flakyFailures = 1;
    const result = await deploy({ baseUrl, configurationEntities: [entity('e', [call('r', 'GET', 'flaky', 200)])] });
    expect(result.message).toContain('[(503,busy)]');
    expect(server.calls).toHaveLength(1);
    server.flakyFailures = 0;
  });

  it('retries a refused connection under the opt-in retry', async () => {
    const port = await closedPort();
    const deploying = deploy({
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { retries: 1, baseDelayMs: 10 },
      recordCalls: true,
      configurationEntities: [entity('e', [call('r', 'GET', 'plain', 200)])],
    });
    await until(() => timers.active === 1);
    timers.tick();
    const result = await deploying;
    expect((result.outProperties?.['httpCalls'] as CallRecord[])[0]).toMatchObject({
      attempts: 2,
      status: null,
      ok: false,
    });
  });

  it('captures answer fields into outProperties by JSON pointer, and fails when a pointer matches nothing', async () => {
    const captured = await deploy({
      baseUrl,
      configurationEntities: [
        entity('e', [
          call('create', 'POST', 'api/items', 201, { body: 'x', capture: { itemId: '/id', second: '/nested/list/1' } }),
        ]),
      ],
    });
    expect(captured).toEqual({ ok: true, message: 'Deployed', outProperties: { itemId: 'item-7', second: 'b' } });

    const missing = await deploy({
      baseUrl,
      configurationEntities: [
        entity('e', [call('create', 'POST', 'api/items', 201, { capture: { gone: '/missing' } })]),
      ],
    });
    expect(missing.message).toContain(
      'configurationEntities[0].restSequence[0].capture.gone: the pointer "/missing" matches nothing in the answer',
    );
    const plain = await deploy({
      baseUrl,
      configurationEntities: [entity('e', [call('ping', 'GET', 'plain', 200, { capture: { x: '/x' } })])],
    });
    expect(plain.message).toContain('capture: the answer is not JSON');
  });

  it('reads header values from HTTP_SECRET_* variables and HTTP_SECRETS_DIR files, and never shows them', async () => {
    const result = await deploy({
      baseUrl,
      recordCalls: true,
      httpHeadersFrom: { Authorization: { env: 'HTTP_SECRET_TOKEN' }, 'X-Api-Key': { file: 'api-key' } },
      configurationEntities: [entity('e', [call('r', 'GET', 'plain', 200, { queryParams: { token: 'q-secret' } })])],
    });
    expect(result.ok).toBe(true);
    expect(server.calls[0]?.headers).toMatchObject({
      authorization: 'Bearer s3cr3t-token',
      'x-api-key': 'key-from-file',
    });
    const shown = JSON.stringify([result, logged]);
    expect(shown).toContain(`${baseUrl}/plain?token=***`);
    for (const secret of ['s3cr3t', 'key-from-file', 'q-secret']) {
      expect(shown).not.toContain(secret);
    }
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a variable without the prefix',
      { Authorization: { env: 'PATH' } },
      'httpHeadersFrom.Authorization.env: only variables named HTTP_SECRET_* are read',
    ],
    [
      'an unset variable',
      { Authorization: { env: 'HTTP_SECRET_NONE' } },
      'httpHeadersFrom.Authorization.env: HTTP_SECRET_NONE is not set',
    ],
    [
      'a file outside the directory',
      { Authorization: { file: '../etc/passwd' } },
      'httpHeadersFrom.Authorization.file: "../etc/passwd" is outside HTTP_SECRETS_DIR',
    ],
  ])('refuses %s as a header source', async (_, sources, message) => {
    const result = await deploy({
      baseUrl,
      httpHeadersFrom: sources,
      configurationEntities: [entity('e', [call('r', 'GET', 'plain', 200)])],
    });
    expect(result).toEqual({ ok: false, message });
    expect(server.calls).toHaveLength(0);
  });

  const good = (): Record<string, unknown> => ({
    baseUrl,
    configurationEntities: [entity('e', [call('r', 'GET', 'plain', 200)])],
  });
  it.each<[string, Record<string, unknown>, string]>([
    [
      'no baseUrl',
      { ...good(), baseUrl: undefined },
      'Constraint violations in the config request: baseUrl: must not be blank',
    ],
    [
      'a baseUrl of another scheme',
      { ...good(), baseUrl: 'ftp://host' },
      'baseUrl: must be an http or https URL, got the scheme "ftp:"',
    ],
    ['a baseUrl that is no URL', { ...good(), baseUrl: 'not a url' }, 'baseUrl: must be an absolute http or https URL'],
    [
      'a restSequence that is not a list',
      { ...good(), configurationEntities: [entity('e', { r: 1 })] },
      'Error extracting ConfigRequest: configurationEntities[0].restSequence: must be a list of REST requests',
    ],
    [
      'an expectedResponse above 599',
      { ...good(), configurationEntities: [entity('e', [call('r', 'GET', 'plain', 700)])] },
      'configurationEntities[0].restSequence[0].expectedResponse: must be between 100 and 599, got 700',
    ],
    [
      'an expectedResponse below 100',
      { ...good(), configurationEntities: [entity('e', [call('r', 'GET', 'plain', 99)])] },
      'expectedResponse: must be between 100 and 599, got 99',
    ],
    [
      'a body that is not a string',
      { ...good(), configurationEntities: [entity('e', [call('r', 'POST', 'plain', 200, { body: { a: 1 } })])] },
      'configurationEntities[0].restSequence[0].body: must be a string',
    ],
    [
      'a header with a newline',
      { ...good(), httpHeaders: { 'X-A': 'one\r\nX-Injected: two' } },
      'httpHeaders.X-A: a header value must not contain a line break or control character',
    ],
    [
      'httpHeaders that are not a map',
      { ...good(), httpHeaders: 1 },
      'Error extracting ConfigRequest: httpHeaders: must be a map of strings',
    ],
    [
      'an unknown method',
      { ...good(), configurationEntities: [entity('e', [call('r', 'TRACE', 'plain', 200)])] },
      'httpMethod: must be one of GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS, got "TRACE"',
    ],
    [
      'a path parameter without value',
      { ...good(), configurationEntities: [entity('e', [call('r', 'GET', 'items/{id}', 200)])] },
      'pathParams: no value for {id} of path "items/{id}"',
    ],
    [
      'a capture that is no JSON pointer',
      { ...good(), configurationEntities: [entity('e', [call('r', 'GET', 'plain', 200, { capture: { a: 'id' } })])] },
      'capture.a: "id" is not a JSON pointer (RFC 6901)',
    ],
    ['no configurationEntities', { baseUrl }, 'configurationEntities: must not be null'],
  ])('refuses %s: FAILED naming the property and the rule, nothing sent', async (_, properties, message) => {
    // The table is built before the server starts: an empty baseUrl stands for the server's.
    const result = await deploy({
      ...properties,
      baseUrl: properties['baseUrl'] === '' ? baseUrl : properties['baseUrl'],
    });
    expect(result.ok).toBe(false);
    expect(result.message).toContain(message);
    expect(server.calls).toHaveLength(0);
  });

  it('undeploys without a call and with an empty message, as ONAP does', async () => {
    const outcome = await handler().undeploy(contextOf(good()));
    expect(outcome).toEqual({ ok: true, message: '' });
    expect(server.calls).toHaveLength(0);
  });

  it('undeploys as ONAP does when the properties do not read, and fails when they ask for undeploy calls', async () => {
    expect(await handler().undeploy(contextOf({ baseUrl: 'ftp://nowhere' }))).toEqual({ ok: true, message: '' });
    const asked = await handler().undeploy(
      contextOf({
        baseUrl,
        configurationEntities: [entity('e', [], { undeployRestSequence: [call('d', 'DELETE', 'x', 999)] })],
      }),
    );
    expect(asked).toEqual({
      ok: false,
      message: expect.stringContaining(
        'undeployRestSequence[0].expectedResponse: must be between 100 and 599, got 999',
      ),
    });
    expect(server.calls).toHaveLength(0);
  });

  it('fails the undeploy when an undeploy call fails', async () => {
    const outcome = await handler().undeploy(
      contextOf({
        baseUrl,
        configurationEntities: [entity('e', [], { undeployRestSequence: [call('d', 'GET', 'fail', 200)] })],
      }),
    );
    expect(outcome).toMatchObject({ ok: false, message: expect.stringContaining('[(500,boom)]') });
  });

  it('runs the opt-in undeployRestSequence of the entities in reverse order', async () => {
    const outcome = await handler().undeploy(
      contextOf({
        baseUrl,
        configurationEntities: [
          entity('first', [call('c', 'POST', 'api/items', 201)], {
            undeployRestSequence: [call('d1', 'DELETE', 'api/items/1', 200)],
          }),
          entity('second', [call('c', 'POST', 'api/items', 201)], {
            undeployRestSequence: [call('d2', 'DELETE', 'api/items/2', 200), call('d3', 'GET', 'plain', 200)],
          }),
        ],
      }),
    );
    expect(outcome).toEqual({ ok: true });
    expect(server.calls.map((each) => `${each.method} ${each.url}`)).toEqual([
      'DELETE /api/items/2',
      'GET /plain',
      'DELETE /api/items/1',
    ]);
  });
});

describe('HTTP element handler: update', () => {
  const withUpdate = (before: Record<string, unknown>, after: Record<string, unknown>): UpdateContext => {
    const ctx = contextOf(before);
    return { ...ctx, instanceElementUpdated: { ...ctx.instanceElement, properties: after } };
  };

  it('answers ONAP\'s "Update not supported" without a call when no entity has an updateRestSequence', async () => {
    const properties = { baseUrl, configurationEntities: [entity('e', [call('r', 'GET', 'plain', 200)])] };
    const outcome = await handler().update?.(withUpdate(properties, properties));
    expect(outcome).toEqual({ ok: true, message: 'Update not supported' });
    expect(server.calls).toHaveLength(0);
  });

  it('runs the opt-in updateRestSequence of the properties after the update, entities in reverse order', async () => {
    const outcome = await handler().update?.(
      withUpdate(
        { baseUrl: 'http://before.invalid' },
        {
          baseUrl,
          configurationEntities: [
            entity('first', [], { updateRestSequence: [call('u1', 'PUT', 'api/items/1', 200, { body: 'one' })] }),
            entity('second', [], { updateRestSequence: [call('u2', 'PUT', 'api/items/2', 200, { body: 'two' })] }),
          ],
        },
      ),
    );
    expect(outcome).toEqual({ ok: true });
    expect(server.calls.map((each) => `${each.method} ${each.url} ${each.body}`)).toEqual([
      'PUT /api/items/2 two',
      'PUT /api/items/1 one',
    ]);
  });
});

describe('HTTP element handler: TLS (opt-in tls)', () => {
  const tlsDir = join(__dirname, 'testing', 'tls');
  let tlsServer: HttpsServer;
  let httpsUrl = '';
  const clients: string[] = [];

  beforeAll(async () => {
    tlsServer = createHttpsServer(
      {
        key: readFileSync(join(tlsDir, 'server.key')),
        cert: readFileSync(join(tlsDir, 'server.pem')),
        ca: readFileSync(join(tlsDir, 'ca.pem')),
        requestCert: true,
        rejectUnauthorized: false,
      },
      (request, response) => {
        const socket = request.socket as TLSSocket;
        clients.push(socket.authorized ? String(socket.getPeerCertificate().subject.CN) : 'anonymous');
        response.end('ok');
      },
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    httpsUrl = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
    for (const file of ['ca.pem', 'client.pem', 'client.key']) {
      copyFileSync(join(tlsDir, file), join(secretsDir, file));
    }
  });

  afterAll(async () => {
    tlsServer.closeAllConnections();
    await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
  });

  beforeEach(() => {
    clients.length = 0;
  });

  it('trusts the server through tls.caFile and presents the client certificate of certFile and keyFile', async () => {
    const result = await deploy({
      baseUrl: httpsUrl,
      tls: { caFile: 'ca.pem', certFile: 'client.pem', keyFile: 'client.key' },
      configurationEntities: [entity('e', [call('r', 'GET', 'secure', 200)])],
    });
    expect(result).toEqual({ ok: true, message: 'Deployed' });
    expect(clients).toEqual(['acm-http-participant']);
    expect(JSON.stringify(logged)).not.toContain('PRIVATE KEY');
  });

  it('refuses a server no trusted CA vouches for: the call fails, nothing is sent', async () => {
    const result = await deploy({
      baseUrl: httpsUrl,
      configurationEntities: [entity('e', [call('r', 'GET', 'secure', 200)])],
    });
    expect(result.ok).toBe(false);
    expect(result.message).toContain(`GET ${httpsUrl}/secure: no answer (`);
    expect(clients).toEqual([]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ certFile: 'client.pem' }, 'tls: certFile and keyFile go together'],
    [{ caFile: 'missing.pem' }, 'tls.caFile: cannot read "missing.pem" in HTTP_SECRETS_DIR (ENOENT)'],
    [{ caFile: '/etc/hostname' }, 'tls.caFile: "/etc/hostname" is outside HTTP_SECRETS_DIR'],
  ])('refuses the TLS options %p naming the property', async (tls, message) => {
    const result = await deploy({
      baseUrl: httpsUrl,
      tls,
      configurationEntities: [entity('e', [call('r', 'GET', 'x', 200)])],
    });
    expect(result.ok).toBe(false);
    expect(result.message).toContain(message);
    expect(clients).toEqual([]);
  });
});

/** Lets pending promise callbacks and sockets run until `condition` holds (bounded by turns, not by time). */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 5000 && !condition(); turn += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(condition()).toBe(true);
}

describe('HTTP participant on the participant protocol', () => {
  it('registers with ONAP http participant id and type, deploys with "Deployed" and undeploys with ""', async () => {
    const bus = new InMemoryMessageBus();
    const runtime = new ScriptedRuntime({ bus });
    await runtime.start();
    const participant = createHttpParticipant({ bus, logger, secrets: { env: {} }, timers: new ManualTimers() });
    await participant.start();
    try {
      const register = await runtime.waitFor('PARTICIPANT_REGISTER');
      expect(register).toMatchObject({
        participantId: HTTP_PARTICIPANT_ID,
        participantSupportedElementType: [expect.objectContaining(HTTP_ELEMENT_TYPE)],
      });
      const element: TestElement = {
        id: '9e1e1e1e-3333-4444-8555-666677778888',
        definition: { name: 'org.example.Http', version: '1.2.3' },
        typeName: HTTP_ELEMENT_TYPE.typeName,
        typeVersion: HTTP_ELEMENT_TYPE.typeVersion,
        nodeProperties: { baseUrl, configurationEntities: [entity('e', [call('r', 'GET', 'plain', 200)])] },
        properties: {},
      };
      const order = { participantId: HTTP_PARTICIPANT_ID, compositionId: '9c0c0c0c-1111-4222-8333-444455556666' };
      const instanceId = '9a1a1a1a-2222-4333-8444-555566667777';
      await runtime.send(primeOrder({ ...order, elements: [element] }));
      await runtime.waitFor('PARTICIPANT_PRIME_ACK');

      const deploying = deployOrder({ ...order, instanceId, elements: [element] });
      await runtime.send(deploying);
      const deployed = await runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (ack) => ack.responseTo === deploying.messageId,
      );
      expect(deployed.automationCompositionResultMap[element.id]).toMatchObject({
        deployState: 'DEPLOYED',
        message: 'Deployed',
        result: true,
      });
      expect(server.calls.map((each) => each.url)).toEqual(['/plain']);

      const undeploy = stateChangeOrder({ ...order, instanceId, elements: [element], deployOrderedState: 'UNDEPLOY' });
      await runtime.send(undeploy);
      const undeployed = await runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (ack) => ack.responseTo === undeploy.messageId,
      );
      expect(undeployed.automationCompositionResultMap[element.id]).toMatchObject({
        deployState: 'UNDEPLOYED',
        message: '',
      });
      expect(server.calls).toHaveLength(1);
    } finally {
      await participant.stop();
      await runtime.close();
      await bus.close();
    }
  });
});
