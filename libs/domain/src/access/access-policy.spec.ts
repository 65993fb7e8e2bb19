import { projectsWithRole, readAccessPolicy, roleEverywhere, roleIncludes, roleOf } from './access-policy';

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

  it('grants the "*" entry in every project, and lists the projects where a role is held', () => {
    const read = readAccessPolicy(
      {
        projects: {
          '*': { viewer: ['auditor'], admin: ['root'] },
          'team-a': { operator: ['alice'], viewer: ['group:readers'] },
          'team-b': { operator: ['bob'], admin: ['auditor'] },
        },
      },
      noLines,
    );
    expect(read.problems).toEqual([]);
    const grants = read.policy;
    expect(roleOf(grants, { user: 'auditor', groups: [] }, 'team-a')).toBe('viewer');
    expect(roleOf(grants, { user: 'auditor', groups: [] }, 'team-b')).toBe('admin');
    expect(roleOf(grants, { user: 'alice', groups: [] }, 'team-b')).toBeNull();
    expect(projectsWithRole(grants, { user: 'alice', groups: [] }, 'viewer')).toEqual(['team-a']);
    expect(projectsWithRole(grants, { user: 'carol', groups: ['readers'] }, 'operator')).toEqual([]);
    expect(projectsWithRole(grants, { user: 'auditor', groups: [] }, 'viewer')).toBe('all');
    expect(projectsWithRole(grants, { user: 'auditor', groups: [] }, 'admin')).toEqual(['team-b']);
    expect(projectsWithRole(grants, { user: 'root', groups: [] }, 'admin')).toBe('all');
    expect(roleEverywhere(grants, { user: 'alice', groups: [] })).toBeNull();
    expect(roleEverywhere(grants, { user: 'auditor', groups: [] })).toBe('viewer');
    expect(roleEverywhere(grants, { user: 'root', groups: [] })).toBe('admin');
    const onlyDefault = readAccessPolicy({ projects: { default: { admin: ['root'] } } }, noLines).policy;
    expect(roleEverywhere(onlyDefault, { user: 'root', groups: [] })).toBe('admin');
    expect(projectsWithRole(onlyDefault, { user: 'root', groups: [] }, 'admin')).toBe('all');
    expect(projectsWithRole(null, { user: 'anyone', groups: [] }, 'admin')).toBe('all');
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
    const lines: Record<string, number> = { owner: 3, 'Team X': 5, viewer: 4 };
    const read = readAccessPolicy(
      { projects: { default: { owner: ['a'], viewer: 'b' }, 'Team X': { admin: ['c'] } } },
      (key) => lines[key] ?? null,
    );
    expect(read.policy).toBeNull();
    expect(read.problems).toEqual([
      ' line 3: role "owner" does not exist (roles: viewer, operator, approver, admin)',
      ' line 4: role "viewer" of project "default": must list user names and group:<name>s',
      ' line 5: project "Team X" is not a project name (lower-case letters, digits and inner dashes, at most 63, or "*")',
    ]);
    expect(readAccessPolicy([], noLines).problems).toEqual([
      ': must be a mapping with "projects: {<project>: {<role>: [<user> | group:<name>]}}"',
    ]);
  });
});
