import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess } from '../support/processes';
import { PASSWORD, REPO_ROOT, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import { testDatabaseUrl } from '../support/services';

const API = '/onap/policy/clamp/acm/v2';
const REPORT_DIR = join(REPO_ROOT, '.services', 'faults');
const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/**
 * Sends exact bytes (hostile requests are often not valid HTTP) and reads the whole answer, which ends when the
 * server closes (every request says `Connection: close`, and Node closes after refusing one it cannot parse).
 * The socket is not half-closed after the bytes: Node's HTTP server (`httpAllowHalfOpen` off, its default) aborts a
 * request whose client ended its side before the answer was written, which on a busy machine left no answer.
 */
async function rawRequest(port: number, bytes: Buffer): Promise<RawAnswer> {
  const text = await new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that refuses early (431, 413) may close before the whole request is written: the answer counts.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
  const split = text.indexOf('\r\n\r\n');
  const headers = split < 0 ? text : text.slice(0, split);
  let body = split < 0 ? '' : text.slice(split + 4);
  if (/\r\ntransfer-encoding: chunked/i.test(headers)) {
    body = dechunk(body);
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? '0'), headers, body };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) {
      return out;
    }
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

function httpRequest(
  method: string,
  target: string,
  options: { type?: string; body?: string | Buffer; headers?: string[]; auth?: string } = {},
): Buffer {
  const body = options.body === undefined ? Buffer.alloc(0) : Buffer.from(options.body);
  const lines = [
    `${method} ${target} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
    `Authorization: ${options.auth ?? AUTH}`,
    ...(options.type === undefined ? [] : [`Content-Type: ${options.type}`]),
    ...(body.length > 0 ? [`Content-Length: ${body.length}`] : []),
    ...(options.headers ?? []),
  ];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

const laughs = (levels: number, width: number): string => {
  const names = 'abcdefghijklmnop';
  const lines = [`a: &a [${Array(width).fill('lol').join(',')}]`];
  for (let level = 1; level < levels; level += 1) {
    lines.push(
      `${names[level]}: &${names[level]} [${Array(width)
        .fill(`*${names[level - 1]}`)
        .join(',')}]`,
    );
  }
  return lines.join('\n');
};
/** Distinct anchors, one a key: nothing expands, but each anchor is a node js-yaml composes and remembers. */
const manyAnchors = (count: number): string =>
  Array.from({ length: count }, (_, index) => `k${index}: &a${index} v${index}`).join('\n');
const manyKeys = (count: number): string =>
  `{${Array.from({ length: count }, (_, index) => `"k${index}":${index}`).join(',')}}`;
const deepJson = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepYaml = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

function instanceJson(compositionId: string, change: (body: Record<string, any>) => void): string {
  const text = readFileSync(join(REPO_ROOT, 'tosca/examples/instances/sim-single-element.json'), 'utf8');
  const body = JSON.parse(text.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as Record<string, any>;
  change(body);
  return JSON.stringify(body);
}

function firstElement(body: Record<string, any>): Record<string, any> {
  return Object.values(body['elements'] as Record<string, Record<string, any>>)[0]!;
}

/**
 * Measures how long the runtime takes to answer a stream of liveness probes, one after the other on a kept-alive
 * connection, while the corpus is sent: a probe waits for as long as the event loop is blocked, so the slowest one
 * bounds the longest pause (plus a loopback round trip). `mark` names what was being sent when each probe ran.
 */
class LivenessPinger {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private running = true;
  private current = 'warm-up';
  readonly slowest = new Map<string, number>();
  private readonly loop: Promise<void>;

  constructor(private readonly port: number) {
    this.loop = this.run();
  }

  mark(name: string): void {
    this.current = name;
  }

  private probe(): Promise<void> {
    return new Promise((resolve) => {
      const request = get(
        {
          host: '127.0.0.1',
          port: this.port,
          path: '/onap/policy/clamp/acm/actuator/health/liveness',
          agent: this.agent,
        },
        (response) => {
          response.resume();
          response.on('end', resolve);
          response.on('error', () => resolve());
        },
      );
      request.on('error', () => resolve());
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      const name = this.current;
      const started = process.hrtime.bigint();
      await this.probe();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      this.slowest.set(name, Math.max(ms, this.slowest.get(name) ?? 0));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    this.agent.destroy();
  }
}

/** VmRSS of a process in bytes, from /proc. */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? '0') * 1024;
}

describe('hostile REST corpus against a runtime process', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `fault_hostile_${suffix}`;
  const topics = { op: `acm-fault-hostile-op-${suffix}`, sync: `acm-fault-hostile-sync-${suffix}` };
  let runtime: ProductProcess;
  let port = 0;

  beforeAll(async () => {
    port = await freePort();
    runtime = runtimeProcess(`hostile-runtime-${suffix}`, {
      port,
      schema,
      groupId: `acm-fault-hostile-${suffix}`,
      topics,
      env: { MAX_BODY_BYTES: String(5 * 1024 * 1024) },
    });
    runtime.start();
    await eventually(
      'the runtime to answer',
      async () => {
        const answer = await rawRequest(port, httpRequest('GET', '/onap/policy/clamp/acm/actuator/health')).catch(
          () => undefined,
        );
        return answer?.status === 200 ? true : undefined;
      },
      3000,
    );
  }, 120_000);

  afterAll(async () => {
    await runtime?.stop();
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('answers every hostile request with a 4xx errorDetails body, and memory stays bounded', async () => {
    const compositionId = randomUUID();
    const instances = `${API}/compositions/${compositionId}/instances`;
    const corpus: Array<[string, Buffer]> = [
      [
        'billion laughs (YAML, 9x9)',
        httpRequest('POST', `${API}/compositions`, { type: 'application/yaml', body: laughs(9, 9) }),
      ],
      [
        'billion laughs as an order value',
        httpRequest('PUT', `${API}/compositions/${compositionId}`, {
          type: 'application/yaml',
          body: `${laughs(8, 9)}\nprimeOrder: *h`,
        }),
      ],
      [
        'self-referencing alias',
        httpRequest('POST', `${API}/compositions`, { type: 'application/yaml', body: 'a: &x [*x]\n' }),
      ],
      [
        'YAML of 150,000 distinct anchors',
        httpRequest('POST', `${API}/compositions`, { type: 'application/yaml', body: manyAnchors(150_000) }),
      ],
      [
        'JSON object of 200,000 keys',
        httpRequest('POST', `${API}/compositions`, { type: 'application/json', body: manyKeys(200_000) }),
      ],
      [
        'JSON object of 200,000 keys as instance properties',
        httpRequest('POST', instances, {
          type: 'application/json',
          body: instanceJson(compositionId, (body) => {
            firstElement(body)['properties'] = { many: 'MANY' };
          }).replace('"MANY"', manyKeys(200_000)),
        }),
      ],
      [
        // The costliest YAML the parser's limits let through: 10,000 anchors (each read twice) and
        // 49,999 keys and values in all.
        'YAML just within the limits',
        httpRequest('POST', `${API}/compositions`, {
          type: 'application/yaml',
          body: `${manyAnchors(10_000)}\n${Array.from({ length: 9_999 }, (_, index) => `p${index}: v${index}`).join('\n')}`,
        }),
      ],
      [
        'JSON just within the limits',
        httpRequest('POST', `${API}/compositions`, { type: 'application/json', body: manyKeys(24_999) }),
      ],
      [
        'JSON nested 100,000 levels',
        httpRequest('POST', `${API}/compositions`, { type: 'application/json', body: deepJson(100_000) }),
      ],
      [
        'YAML nested 100,000 levels',
        httpRequest('POST', `${API}/compositions`, { type: 'application/yaml', body: deepYaml(100_000) }),
      ],
      [
        'NUL in a template name',
        httpRequest('POST', `${API}/compositions`, {
          type: 'application/json',
          body: '{"tosca_definitions_version":"x","name":"a\\u0000b"}',
        }),
      ],
      [
        'lone surrogate in a template key',
        httpRequest('POST', `${API}/compositions`, {
          type: 'application/json',
          body: '{"tosca_definitions_version":"x","\\ud800":1}',
        }),
      ],
      [
        'NUL in an instance name',
        httpRequest('POST', instances, {
          type: 'application/json',
          body: instanceJson(compositionId, (body) => {
            body['name'] = 'x\u0000y';
          }),
        }),
      ],
      [
        'lone surrogate in a description',
        httpRequest('POST', instances, {
          type: 'application/json',
          body: instanceJson(compositionId, (body) => {
            body['description'] = '\udc00';
          }),
        }),
      ],
      [
        'NUL in a property key',
        httpRequest('POST', instances, {
          type: 'application/json',
          body: instanceJson(compositionId, (body) => {
            firstElement(body)['properties'] = { 'k\u0000': 1 };
          }),
        }),
      ],
      [
        'lone surrogate in a property value',
        httpRequest('POST', instances, {
          type: 'application/json',
          body: instanceJson(compositionId, (body) => {
            firstElement(body)['properties'] = { k: '\ud800' };
          }),
        }),
      ],
      [
        'instance name of 100,000 characters',
        httpRequest('POST', instances, {
          type: 'application/json',
          body: instanceJson(compositionId, (body) => {
            body['name'] = 'n'.repeat(100_000);
          }),
        }),
      ],
      [
        'instance version of 3,000 characters',
        httpRequest('POST', instances, {
          type: 'application/json',
          body: instanceJson(compositionId, (body) => {
            body['version'] = `1.0.0-${'v'.repeat(3000)}`;
          }),
        }),
      ],
      [
        'element properties nested 10,000 levels',
        httpRequest('POST', instances, {
          type: 'application/json',
          body: instanceJson(compositionId, (body) => {
            firstElement(body)['properties'] = { deep: 'DEEP' };
          }).replace('"DEEP"', deepJson(10_000)),
        }),
      ],
      [
        'order value of 1 MB',
        httpRequest('PUT', `${API}/compositions/${compositionId}`, {
          type: 'application/json',
          body: JSON.stringify({ primeOrder: 'P'.repeat(1024 * 1024) }),
        }),
      ],
      [
        'body bytes that are not UTF-8',
        httpRequest('POST', `${API}/compositions`, {
          type: 'application/json',
          body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
        }),
      ],
      [
        'a property value of 1e999999',
        httpRequest('POST', instances, {
          type: 'application/json',
          body: instanceJson(compositionId, (body) => {
            firstElement(body)['properties'] = { limit: 'HUGE' };
          }).replace('"HUGE"', '1e999999'),
        }),
      ],
      [
        'a body without Content-Type (a cross-site page)',
        httpRequest('POST', `${API}/compositions`, { body: '{"tosca_definitions_version":"x"}' }),
      ],
      [
        'an empty text/plain POST (a cross-site form)',
        httpRequest('POST', `${instances}/${randomUUID()}/pause`, { type: 'text/plain' }),
      ],
      [
        'a body-less POST from another origin',
        httpRequest('POST', `${instances}/${randomUUID()}/cancel`, {
          headers: ['Origin: http://evil.example', 'Sec-Fetch-Site: cross-site'],
        }),
      ],
      ['%00 in a query a route does not read', httpRequest('GET', `${API}/instances?name=%00`)],
      ['%ff in a path', httpRequest('GET', `${API}/compositions/%ff`)],
      [
        'a raw 0xff byte in a path',
        Buffer.concat([
          Buffer.from(`GET ${API}/compositions/`),
          Buffer.from([0xff]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        ]),
      ],
      ['%ff in a query', httpRequest('GET', `${API}/compositions?name=%ff`)],
      ['%00 in a query', httpRequest('GET', `${instances}?name=%00`)],
      ['a lone % in a query', httpRequest('GET', `${API}/compositions?name=%`)],
      [
        'a header flood',
        httpRequest('GET', `${API}/compositions`, {
          headers: Array.from({ length: 2000 }, (_, index) => `X-Flood-${index}: ${'f'.repeat(20)}`),
        }),
      ],
      ['one huge header', httpRequest('GET', `${API}/compositions`, { headers: [`X-Huge: ${'h'.repeat(100_000)}`] })],
      [
        'two Content-Length headers',
        httpRequest('POST', `${API}/compositions`, {
          type: 'application/json',
          body: '{}',
          headers: ['Content-Length: 7'],
        }),
      ],
      [
        'Content-Length and chunked',
        httpRequest('POST', `${API}/compositions`, {
          type: 'application/json',
          body: '{}',
          headers: ['Transfer-Encoding: chunked'],
        }),
      ],
      ['a broken request line', Buffer.from('GARBAGE\r\n\r\n')],
      ['valid credentials followed by junk', httpRequest('GET', `${API}/compositions`, { auth: `${AUTH} junk` })],
      [
        // Declared, not sent: a server that answers 413 and closes while megabytes are still arriving makes the
        // kernel reset the connection, and a busy client can lose the answer with its unread receive buffer.
        'a body over MAX_BODY_BYTES',
        httpRequest('POST', `${API}/compositions`, {
          type: 'application/json',
          headers: [`Content-Length: ${6 * 1024 * 1024}`],
        }),
      ],
    ];

    const pid = runtime.pid!;
    // One warm-up pass of ordinary requests, so lazily loaded code does not count as growth.
    await rawRequest(port, httpRequest('GET', `${API}/compositions`));
    await rawRequest(
      port,
      httpRequest('POST', `${API}/compositions`, { type: 'application/yaml', body: 'a: [1, 2]\n' }),
    );
    // And one large body, so the buffers a body of megabytes needs do not count as growth either.
    await rawRequest(
      port,
      httpRequest('POST', `${API}/compositions`, { type: 'application/json', body: manyKeys(200_000) }),
    );
    const rssBefore = rssOf(pid);
    const results: Array<{ name: string; status: number; ms: number; rssMiB: number; bodyBytes: number }> = [];
    const pinger = new LivenessPinger(port);
    for (const [name, bytes] of corpus) {
      pinger.mark(name);
      const started = process.hrtime.bigint();
      const answer = await rawRequest(port, bytes);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      results.push({ name, status: answer.status, ms, rssMiB: rssOf(pid) / 2 ** 20, bodyBytes: answer.body.length });
      expect({ name, status: answer.status >= 400 && answer.status < 500 }).toEqual({ name, status: true });
      expect({ name, body: JSON.parse(answer.body) as unknown }).toEqual({
        name,
        body: { errorDetails: expect.any(String) },
      });
    }
    pinger.mark('after the corpus');
    await pinger.stop();
    const rssAfter = rssOf(pid);
    const livenessMs = Object.fromEntries(pinger.slowest);
    mkdirSync(REPORT_DIR, { recursive: true });
    writeFileSync(
      join(REPORT_DIR, 'hostile-rest.json'),
      `${JSON.stringify({ rssBeforeMiB: rssBefore / 2 ** 20, rssAfterMiB: rssAfter / 2 ** 20, livenessMs, results }, null, 2)}\n`,
    );
    expect(results.filter((result) => result.status >= 500)).toEqual([]);
    // A probe answered later than this means the event loop stood still while a hostile request was handled.
    expect(Object.entries(livenessMs).filter(([, ms]) => ms > 500)).toEqual([]);
    expect(rssAfter - rssBefore).toBeLessThan(50 * 1024 * 1024);
  });
});
