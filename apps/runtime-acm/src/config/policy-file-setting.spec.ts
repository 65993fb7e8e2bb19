import { roleOf } from '@acm/domain';
import { readPolicyFile } from './policy-file-setting';

const fileOf = (text: string) => () => text;

describe('readPolicyFile', () => {
  it('is off without RUNTIME_POLICY_FILE', () => {
    expect(readPolicyFile(undefined)).toEqual({ policy: null, problems: [] });
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
});
