import { roleOf } from '@acm/domain';
import { readPolicyFile } from './policy-file-setting';

const fileOf = (text: string) => () => text;

describe('readPolicyFile', () => {
  it('is off without RUNTIME_POLICY_FILE', () => {
    expect(readPolicyFile(undefined)).toEqual({ policy: null, approvalRules: [], problems: [] });
  });

  it('reads YAML and JSON', () => {
    const yaml = readPolicyFile('p.yaml', fileOf('projects:\n  default:\n    operator: [alice, "group:ops"]\n'));
    expect(yaml.problems).toEqual([]);
    expect(roleOf(yaml.policy, { user: 'x', groups: ['ops'] }, 'default')).toBe('operator');
    const json = readPolicyFile('p.json', fileOf('{"projects": {"default": {"viewer": ["bob"]}}}'));
    expect(roleOf(json.policy, { user: 'bob', groups: [] }, 'default')).toBe('viewer');
  });

  it('refuses an unknown role with its line', () => {
    const text = '# roles\nprojects:\n  default:\n    admin: [root]\n    owner: [alice]\n';
    expect(readPolicyFile('p.yaml', fileOf(text))).toEqual({
      policy: null,
      approvalRules: [],
      problems: [
        'RUNTIME_POLICY_FILE (p.yaml) line 5: role "owner" does not exist (roles: viewer, operator, approver, admin)',
      ],
    });
  });

  it('names an unreadable file and a file that does not parse', () => {
    const missing = readPolicyFile('/nowhere', () => {
      throw Object.assign(new Error('no'), { code: 'ENOENT' });
    });
    expect(missing.problems).toEqual(['RUNTIME_POLICY_FILE (/nowhere): not readable (ENOENT)']);
    expect(readPolicyFile('p.yaml', fileOf('projects:\n  default: [\n')).problems).toEqual([
      'RUNTIME_POLICY_FILE (p.yaml) line 3: not YAML or JSON',
    ]);
  });

  it('reads approval rules with their defaults', () => {
    const text = [
      'projects:',
      '  prod:',
      '    approver: [carol, dave]',
      'approvals:',
      '  - project: prod',
      '    orders: [DEPLOY, DELETE]',
      '    approvals: 2',
    ].join('\n');
    const read = readPolicyFile('p.yaml', fileOf(text));
    expect(read.problems).toEqual([]);
    expect(read.approvalRules).toEqual([
      {
        project: 'prod',
        compositionId: null,
        metadata: null,
        orders: ['DEPLOY', 'DELETE'],
        approvals: 2,
        role: 'approver',
        expiresAfter: 'PT24H',
        expiresAfterMs: 86_400_000,
      },
    ]);
  });

  it('refuses a bad approval rule naming the line, the rule and the field', () => {
    const text = [
      'projects:',
      '  prod:',
      '    approver: [carol]',
      'approvals:',
      '  - project: prod',
      '    orders: [DEPLOY]',
      '    approvals: 1',
      '  - project: prod',
      '    orders: [DEPLOY, REBOOT]',
      '    approvals: 0',
      '    role: owner',
      '    expiresAfter: 1 day',
    ].join('\n');
    const read = readPolicyFile('p.yaml', fileOf(text));
    expect(read.policy).toBeNull();
    expect(read.approvalRules).toEqual([]);
    expect(read.problems).toEqual([
      'RUNTIME_POLICY_FILE (p.yaml) line 9: approvals[1] (project prod) orders: "REBOOT" is not an order kind ' +
        '(DEPLOY, UNDEPLOY, LOCK, UNLOCK, DELETE, UPDATE, MIGRATE)',
      'RUNTIME_POLICY_FILE (p.yaml) line 10: approvals[1] (project prod) approvals: must be a whole number from 1 to ' +
        '10, got 0',
      'RUNTIME_POLICY_FILE (p.yaml) line 11: approvals[1] (project prod) role: role "owner" does not exist ' +
        '(roles: viewer, operator, approver, admin)',
      'RUNTIME_POLICY_FILE (p.yaml) line 12: approvals[1] (project prod) expiresAfter: must be an ISO 8601 duration ' +
        'from 1 second to 30 days ("PT24H", "P2D"), got "1 day"',
    ]);
  });
});
