import { readAccessPolicy, roleIncludes, roleOf } from './access-policy';

const noLines = (): number | null => null;

describe('access policy', () => {
  const { policy, problems } = readAccessPolicy(
    {
      projects: {
        default: { admin: ['root'], operator: ['group:team-a', 'bob'], viewer: ['bob', 'group:auditors'] },
      },
    },
    noLines,
  );

  it('reads users and groups per role', () => {
    expect(problems).toEqual([]);
    expect(policy).not.toBeNull();
  });

  it('gives a subject its highest role in the project, by name or group', () => {
    expect(roleOf(policy, { user: 'root', groups: [] }, 'default')).toBe('admin');
    expect(roleOf(policy, { user: 'bob', groups: [] }, 'default')).toBe('operator');
    expect(roleOf(policy, { user: 'carol', groups: ['team-a'] }, 'default')).toBe('operator');
    expect(roleOf(policy, { user: 'dave', groups: ['auditors'] }, 'default')).toBe('viewer');
    expect(roleOf(policy, { user: 'eve', groups: ['team-b'] }, 'default')).toBeNull();
    expect(roleOf(policy, { user: 'root', groups: [] }, 'elsewhere')).toBeNull();
  });

  it('makes every subject admin without a policy', () => {
    expect(roleOf(null, { user: 'anyone', groups: [] }, 'default')).toBe('admin');
  });

  it('orders the roles, each including those before it', () => {
    expect(roleIncludes('admin', 'viewer')).toBe(true);
    expect(roleIncludes('approver', 'operator')).toBe(true);
    expect(roleIncludes('operator', 'approver')).toBe(false);
    expect(roleIncludes('viewer', 'operator')).toBe(false);
  });

  it('refuses an unknown role, an unknown project and a bad list, naming the line', () => {
    const lines: Record<string, number> = { owner: 3, 'team-x': 5, viewer: 4 };
    const read = readAccessPolicy(
      { projects: { default: { owner: ['a'], viewer: 'b' }, 'team-x': { admin: ['c'] } } },
      (key) => lines[key] ?? null,
    );
    expect(read.policy).toBeNull();
    expect(read.problems).toEqual([
      ' line 3: role "owner" does not exist (roles: viewer, operator, approver, admin)',
      ' line 4: role "viewer" of project "default": must list user names and group:<name>s',
      ' line 5: project "team-x": only default exists',
    ]);
    expect(readAccessPolicy([], noLines).problems).toEqual([
      ': must be a mapping with "projects: {<project>: {<role>: [<user> | group:<name>]}}"',
    ]);
  });
});
