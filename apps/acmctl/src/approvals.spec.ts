import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalBody } from './commands/approvals';
import { AcmctlError, EXIT } from './exit-codes';
import { buildProgram } from './program';

const APPROVAL = '00000000-0000-4000-8000-0000000000a1';
const INSTANCE = '00000000-0000-4000-8000-0000000000b1';

const approval = (overrides: Partial<ApprovalBody> = {}): ApprovalBody => ({
  approvalId: APPROVAL,
  project: 'prod',
  instanceId: INSTANCE,
  order: 'DEPLOY',
  orderedBy: 'alice',
  required: 2,
  approvals: [{ by: 'carol' }],
  state: 'PENDING',
  expiresAt: '2026-12-08T10:00:00.000Z',
  reason: null,
  ...overrides,
});

describe('acmctl approvals', () => {
  let server: Server;
  let url: string;
  let dir: string;
  const received: Array<{ method: string; url: string; body: string }> = [];
  let answer: unknown = {};

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.setHeader('Content-Type', 'application/json');
        response.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'acmctl-approvals-'));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    received.length = 0;
  });

  async function run(args: string[]): Promise<{ printed: string; error: unknown }> {
    const printed: string[] = [];
    const program = buildProgram({
      env: { ACM_URL: url, HOME: dir },
      isTerminal: false,
      out: (text) => printed.push(text),
    });
    try {
      await program.parseAsync(['node', 'acmctl', ...args]);
      return { printed: printed.join('\n'), error: null };
    } catch (error) {
      return { printed: printed.join('\n'), error };
    }
  }

  it('lists the approvals with who approved so far, only the pending ones with --pending', async () => {
    answer = { approvals: [approval(), approval({ state: 'REJECTED', approvals: [], reason: 'not now' })] };
    const { printed, error } = await run(['approvals', 'list', '--pending']);
    expect(error).toBeNull();
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /onap/policy/clamp/acm/v2/approvals?state=PENDING',
    ]);
    const lines = printed.split('\n').map((line) => line.trimEnd().replace(/ +/g, ' '));
    expect(lines).toEqual([
      'APPROVAL PROJECT INSTANCE ORDER BY APPROVED STATE EXPIRES REASON',
      `${APPROVAL} prod ${INSTANCE} DEPLOY alice 1/2 (carol) PENDING 2026-12-08T10:00:00.000Z`,
      `${APPROVAL} prod ${INSTANCE} DEPLOY alice 0/2 REJECTED 2026-12-08T10:00:00.000Z not now`,
    ]);
  });

  it('approves, and rejects with the reason given', async () => {
    answer = approval({ approvals: [{ by: 'carol' }, { by: 'dave' }], state: 'EXECUTED' });
    const approved = await run(['approvals', 'approve', APPROVAL]);
    expect(approved.error).toBeNull();
    expect(approved.printed).toContain('2/2 (carol, dave)');
    answer = approval({ state: 'REJECTED', reason: 'not during the audit' });
    await run(['approvals', 'reject', APPROVAL, '--reason', 'not during the audit']);
    expect(received).toEqual([
      { method: 'POST', url: `/onap/policy/clamp/acm/v2/approvals/${APPROVAL}/approve`, body: '' },
      {
        method: 'POST',
        url: `/onap/policy/clamp/acm/v2/approvals/${APPROVAL}/reject`,
        body: JSON.stringify({ reason: 'not during the audit' }),
      },
    ]);
  });

  it('refuses a blank reason without asking the runtime', async () => {
    const { error } = await run(['approvals', 'reject', APPROVAL, '--reason', ' ']);
    expect(error).toBeInstanceOf(AcmctlError);
    expect((error as AcmctlError).exitCode).toBe(EXIT.USAGE);
    expect(received).toEqual([]);
  });
});
