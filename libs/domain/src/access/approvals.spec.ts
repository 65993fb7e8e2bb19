import { DomainError } from '../errors';
import type { ApprovalRule, PendingApproval } from './approvals';
import {
  approvalRuleFor,
  approve,
  closeApproval,
  expireIfDue,
  openApproval,
  parseIsoDuration,
  readApprovalRules,
  reject,
} from './approvals';

const HOUR = 3_600_000;
/** 2026-12-07T00:00:00Z: the fake clock's start. */
const T0 = 1_796_601_600_000;
const DEFINITION = '0b8f5c9e-4d41-4c6b-9f55-0d3e2a8b7c10';
const INSTANCE = '7d1f4c2a-8e3b-4a5d-9c6e-1f2a3b4c5d6e';

const rule = (overrides: Partial<ApprovalRule> = {}): ApprovalRule => ({
  project: 'prod',
  compositionId: null,
  metadata: null,
  orders: ['DEPLOY', 'DELETE'],
  approvals: 2,
  role: 'approver',
  expiresAfter: 'PT24H',
  expiresAfterMs: 24 * HOUR,
  ...overrides,
});

const opened = (overrides: Partial<ApprovalRule> = {}): PendingApproval<{ deployOrder: string }> =>
  openApproval(
    rule(overrides),
    {
      approvalId: 'a1',
      compositionId: DEFINITION,
      instanceId: INSTANCE,
      order: 'DEPLOY',
      request: { deployOrder: 'DEPLOY' },
      orderedBy: 'alice',
    },
    T0,
  );

const refusal = (work: () => unknown): { code: string; message: string } => {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError) {
      return { code: error.code, message: error.message };
    }
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('parseIsoDuration', () => {
  it('reads weeks, days, hours, minutes and seconds', () => {
    expect(parseIsoDuration('PT24H')).toBe(24 * HOUR);
    expect(parseIsoDuration('P1DT30M')).toBe(24 * HOUR + 30 * 60_000);
    expect(parseIsoDuration('P1W')).toBe(7 * 24 * HOUR);
    expect(parseIsoDuration('pt2s')).toBe(2000);
  });

  it('refuses what is not one, zero, and years or months', () => {
    for (const text of ['24h', 'P', 'PT', 'PT0S', 'P1Y', 'P1M', '', 'P1DT']) {
      expect(parseIsoDuration(text)).toBeNull();
    }
  });
});

describe('readApprovalRules', () => {
  const noLines = (): number | null => null;

  it('reads no rules when there is no list', () => {
    expect(readApprovalRules(undefined, ['prod'], noLines)).toEqual({ rules: [], problems: [] });
  });

  it('refuses a project the policy does not name, a bad compositionId and an unknown field', () => {
    const read = readApprovalRules(
      [{ project: 'staging', compositionId: 'x', orders: ['DEPLOY'], approvals: 1, owner: 'me' }],
      ['prod'],
      noLines,
    );
    expect(read.rules).toEqual([]);
    expect(read.problems).toEqual([
      ': approvals[0] (project staging) owner: is not a field of a rule (fields: project, compositionId, metadata, orders, ' +
        'approvals, role, expiresAfter)',
      ': approvals[0] (project staging) project: must be a project the policy names (prod), got "staging"',
      ': approvals[0] (project staging) compositionId: must be a UUID, got "x"',
    ]);
  });

  it('refuses a rule without orders and a list that is not one', () => {
    expect(readApprovalRules([{ project: 'prod', approvals: 1 }], ['prod'], noLines).problems).toEqual([
      ': approvals[0] (project prod) orders: must list order kinds (DEPLOY, UNDEPLOY, LOCK, UNLOCK, DELETE, UPDATE, MIGRATE)',
    ]);
    expect(readApprovalRules({ project: 'prod' }, ['prod'], () => 7).problems).toEqual([
      ' line 7: approvals: must be a list of rules',
    ]);
  });
});

describe('approval rules on labels', () => {
  const noLines = (): number | null => null;
  it('reads metadata values and refuses anything but a mapping of plain values, naming the key', () => {
    const read = readApprovalRules(
      [{ project: 'prod', metadata: { site: 'prod', tier: 1 }, orders: ['DEPLOY'], approvals: 1 }],
      ['prod'],
      noLines,
    );
    expect(read).toEqual({ rules: [expect.objectContaining({ metadata: { site: 'prod', tier: '1' } })], problems: [] });
    expect(
      readApprovalRules(
        [{ project: 'prod', metadata: { site: ['a'] }, orders: ['DEPLOY'], approvals: 1 }],
        ['prod'],
        noLines,
      ).problems,
    ).toEqual([': approvals[0] (project prod) metadata.site: must be a string, number or boolean, got ["a"]']);
    expect(
      readApprovalRules([{ project: 'prod', metadata: 'prod', orders: ['DEPLOY'], approvals: 1 }], ['prod'], noLines)
        .problems,
    ).toEqual([
      ': approvals[0] (project prod) metadata: must be an object of metadata keys and the values they must have',
    ]);
  });
});

describe('approvalRuleFor', () => {
  const target = { project: 'prod', compositionId: DEFINITION, order: 'DEPLOY' };

  it('holds only the orders, project and definition a rule names', () => {
    expect(approvalRuleFor([rule()], target)).toEqual(rule());
    expect(approvalRuleFor([rule()], { ...target, order: 'UNDEPLOY' })).toBeNull();
    expect(approvalRuleFor([rule()], { ...target, project: 'default' })).toBeNull();
    const other = rule({ compositionId: '11111111-2222-4333-8444-555555555555' });
    expect(approvalRuleFor([other], target)).toBeNull();
    expect(approvalRuleFor([rule({ compositionId: DEFINITION })], target)?.compositionId).toBe(DEFINITION);
  });

  it("holds an instance by its labels only when its metadata has the rule's values", () => {
    const sites = rule({ metadata: { site: 'prod', tier: '1' } });
    expect(approvalRuleFor([sites], { ...target, metadata: { site: 'prod', tier: 1, owner: 'x' } })).toBe(sites);
    expect(approvalRuleFor([sites], { ...target, metadata: { site: 'dev', tier: 1 } })).toBeNull();
    expect(approvalRuleFor([sites], { ...target, metadata: null })).toBeNull();
    // A rollout's selection, not known instance by instance: the rule may hold some, so it holds.
    expect(approvalRuleFor([sites], target)).toBe(sites);
  });

  it('takes the strictest rule when several hold the order', () => {
    const one = rule({ approvals: 1 });
    const three = rule({ approvals: 3, compositionId: DEFINITION });
    expect(approvalRuleFor([one, three], target)).toBe(three);
    const admins = rule({ role: 'admin' });
    expect(approvalRuleFor([rule(), admins], target)).toBe(admins);
    const short = rule({ expiresAfterMs: HOUR });
    expect(approvalRuleFor([rule(), short], target)).toBe(short);
  });
});

describe('an approval', () => {
  it('waits from the order, for the rule’s count, until its expiry', () => {
    const approval = opened();
    expect(approval).toMatchObject({
      project: 'prod',
      state: 'PENDING',
      required: 2,
      role: 'approver',
      approvals: [],
      orderedAt: T0,
      expiresAt: T0 + 24 * HOUR,
    });
  });

  it('completes with the N-th approval by distinct approvers other than the orderer', () => {
    const first = approve(opened(), { user: 'carol', role: 'approver' }, T0 + HOUR);
    expect(first.complete).toBe(false);
    const second = approve(first.approval, { user: 'dave', role: 'admin' }, T0 + 2 * HOUR);
    expect(second.complete).toBe(true);
    expect(second.approval.approvals).toEqual([
      { by: 'carol', at: T0 + HOUR },
      { by: 'dave', at: T0 + 2 * HOUR },
    ]);
    expect(closeApproval(second.approval, null, T0 + 2 * HOUR).state).toBe('EXECUTED');
    const refused = closeApproval(second.approval, 'DEPLOY is not allowed in state DEPLOYED', T0 + 2 * HOUR);
    expect(refused).toMatchObject({ state: 'REFUSED', reason: 'DEPLOY is not allowed in state DEPLOYED' });
  });

  it('refuses the orderer approving its own order', () => {
    expect(refusal(() => approve(opened(), { user: 'alice', role: 'admin' }, T0))).toEqual({
      code: 'APPROVAL_REFUSED',
      message: 'Approval a1 of DEPLOY: alice gave the order and cannot approve it',
    });
  });

  it('refuses a second approval by the same user', () => {
    const first = approve(opened(), { user: 'carol', role: 'approver' }, T0);
    expect(refusal(() => approve(first.approval, { user: 'carol', role: 'approver' }, T0))).toEqual({
      code: 'APPROVAL_REFUSED',
      message: 'Approval a1 of DEPLOY: carol has already approved it',
    });
  });

  it('refuses a caller without the rule’s role, naming the role and the project', () => {
    expect(refusal(() => approve(opened(), { user: 'bob', role: 'operator' }, T0))).toEqual({
      code: 'FORBIDDEN',
      message: 'Forbidden: to approve approval a1 needs the role approver in project prod; bob has the role operator',
    });
    expect(refusal(() => approve(opened({ role: 'admin' }), { user: 'carol', role: 'approver' }, T0)).code).toBe(
      'FORBIDDEN',
    );
    expect(refusal(() => reject(opened(), { user: 'eve', role: null }, 'no', T0)).message).toContain(
      'eve has no role there',
    );
  });

  it('expires at its time, and is then neither approved nor rejected', () => {
    const approval = opened();
    expect(expireIfDue(approval, T0 + 24 * HOUR - 1)).toBeNull();
    const expired = expireIfDue(approval, T0 + 24 * HOUR);
    expect(expired).toMatchObject({ state: 'EXPIRED', closedAt: T0 + 24 * HOUR, version: 1 });
    expect(expireIfDue(expired!, T0 + 48 * HOUR)).toBeNull();
    // Even unmarked, an approval past its time cannot gather the approval that would run it.
    expect(refusal(() => approve(approval, { user: 'carol', role: 'approver' }, T0 + 24 * HOUR))).toEqual({
      code: 'APPROVAL_REFUSED',
      message: 'Approval a1 of DEPLOY: it is EXPIRED (its time ran out)',
    });
    expect(refusal(() => approve(expired!, { user: 'carol', role: 'approver' }, T0)).message).toBe(
      'Approval a1 of DEPLOY: it is EXPIRED (0 of 2 approvals when its time ran out)',
    );
  });

  it('is rejected with a reason, by an approver or by its orderer, and then approves no more', () => {
    const rejected = reject(opened(), { user: 'carol', role: 'approver' }, 'not during the audit', T0 + HOUR);
    expect(rejected).toMatchObject({
      state: 'REJECTED',
      closedBy: 'carol',
      closedAt: T0 + HOUR,
      reason: 'not during the audit',
    });
    expect(refusal(() => approve(rejected, { user: 'dave', role: 'approver' }, T0 + HOUR))).toEqual({
      code: 'APPROVAL_REFUSED',
      message: 'Approval a1 of DEPLOY: it is REJECTED (not during the audit)',
    });
    const withdrawn = reject(opened(), { user: 'alice', role: 'operator' }, 'wrong instance', T0);
    expect(withdrawn).toMatchObject({ state: 'REJECTED', closedBy: 'alice' });
  });

  it('refuses an approval or a rejection while the order its last approval completed is being submitted', () => {
    const complete = approve(opened({ approvals: 1 }), { user: 'carol', role: 'approver' }, T0).approval;
    expect(refusal(() => approve(complete, { user: 'dave', role: 'approver' }, T0)).message).toBe(
      'Approval a1 of DEPLOY: it has all its approvals; its order is being submitted',
    );
    expect(refusal(() => reject(complete, { user: 'dave', role: 'approver' }, 'no', T0)).code).toBe('APPROVAL_REFUSED');
  });

  it('refuses approving one that already ran', () => {
    const done = closeApproval(opened({ approvals: 1 }), null, T0);
    expect(refusal(() => approve(done, { user: 'carol', role: 'approver' }, T0)).message).toBe(
      'Approval a1 of DEPLOY: it is EXECUTED',
    );
  });
});
