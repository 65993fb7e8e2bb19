import { RecordingRuntime } from '../../../test/support/acmctl-recording-runtime';
import type { ApprovalBody } from './commands/approvals';
import { AcmctlError, EXIT } from './exit-codes';

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
  const runtime = new RecordingRuntime('acmctl-approvals-');
  const { received } = runtime;
  const run = (args: string[]) => runtime.run(args);

  beforeAll(() => runtime.start());
  afterAll(() => runtime.stop());
  beforeEach(() => runtime.reset());

  it('lists the approvals with who approved so far, only the pending ones with --pending', async () => {
    runtime.answer = { approvals: [approval(), approval({ state: 'REJECTED', approvals: [], reason: 'not now' })] };
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
    runtime.answer = approval({ approvals: [{ by: 'carol' }, { by: 'dave' }], state: 'EXECUTED' });
    const approved = await run(['approvals', 'approve', APPROVAL]);
    expect(approved.error).toBeNull();
    expect(approved.printed).toContain('2/2 (carol, dave)');
    runtime.answer = approval({ state: 'REJECTED', reason: 'not during the audit' });
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
