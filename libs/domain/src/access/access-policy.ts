/**
 * Roles per project, and who holds them. Each role includes the ones before it: a viewer reads; an operator also
 * gives orders (create, deploy, undeploy, lock, migrate, cancel, signal, rollouts); an approver also approves; an
 * admin also commissions, primes, deletes and changes settings (participants).
 */
export const ROLES = ['viewer', 'operator', 'approver', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The project every definition and instance belongs to (ONAP's clients know no other). */
export const DEFAULT_PROJECT = 'default';

/** The projects that hold definitions and instances; a policy naming another is refused. */
export const KNOWN_PROJECTS: readonly string[] = [DEFAULT_PROJECT];

/** Who is asking: a user and the groups of its token. */
export interface AccessSubject {
  readonly user: string;
  readonly groups: readonly string[];
}

/** Per project, per role: the users and groups holding it. */
export interface AccessPolicy {
  readonly projects: ReadonlyMap<
    string,
    ReadonlyMap<Role, { users: ReadonlySet<string>; groups: ReadonlySet<string> }>
  >;
}

const GROUP_PREFIX = 'group:';

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Whether `held` includes what `needed` grants. */
export function roleIncludes(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

/**
 * The highest role of the subject in the project; without a policy (none configured) every authenticated subject is
 * admin of every project, as before roles existed. null: no role at all.
 */
export function roleOf(policy: AccessPolicy | null, subject: AccessSubject, project: string): Role | null {
  if (policy === null) {
    return 'admin';
  }
  const roles = policy.projects.get(project);
  if (roles === undefined) {
    return null;
  }
  let best: Role | null = null;
  for (const [role, holders] of roles) {
    const holds = holders.users.has(subject.user) || subject.groups.some((group) => holders.groups.has(group));
    if (holds && (best === null || roleIncludes(role, best))) {
      best = role;
    }
  }
  return best;
}

/**
 * Reads a policy document (YAML or JSON, already parsed): `projects: {<project>: {<role>: [<user> | group:<group>]}}`.
 * `lineOf(key)` finds the line a key is written on, so every problem names it.
 */
export function readAccessPolicy(
  document: unknown,
  lineOf: (key: string) => number | null,
): { policy: AccessPolicy | null; problems: string[] } {
  const problems: string[] = [];
  const at = (key: string): string => {
    const line = lineOf(key);
    return line === null ? '' : ` line ${line}`;
  };
  const projects = isRecord(document) ? document['projects'] : undefined;
  if (!isRecord(projects)) {
    return {
      policy: null,
      problems: [': must be a mapping with "projects: {<project>: {<role>: [<user> | group:<name>]}}"'],
    };
  }
  const policy = new Map<string, Map<Role, { users: Set<string>; groups: Set<string> }>>();
  for (const [project, roles] of Object.entries(projects)) {
    if (!KNOWN_PROJECTS.includes(project)) {
      problems.push(`${at(project)}: project "${project}": only ${KNOWN_PROJECTS.join(', ')} exists`);
      continue;
    }
    if (!isRecord(roles)) {
      problems.push(`${at(project)}: project "${project}": must map roles to lists of users and groups`);
      continue;
    }
    const byRole = new Map<Role, { users: Set<string>; groups: Set<string> }>();
    for (const [role, holders] of Object.entries(roles)) {
      if (!isRole(role)) {
        problems.push(`${at(role)}: role "${role}" does not exist (roles: ${ROLES.join(', ')})`);
        continue;
      }
      if (!Array.isArray(holders) || !holders.every((holder) => typeof holder === 'string' && holder.trim() !== '')) {
        problems.push(`${at(role)}: role "${role}" of project "${project}": must list user names and group:<name>s`);
        continue;
      }
      const users = new Set<string>();
      const groups = new Set<string>();
      for (const holder of holders as string[]) {
        const name = holder.trim();
        if (name.startsWith(GROUP_PREFIX)) {
          groups.add(name.slice(GROUP_PREFIX.length));
        } else {
          users.add(name);
        }
      }
      byRole.set(role, { users, groups });
    }
    policy.set(project, byRole);
  }
  return problems.length === 0 ? { policy: { projects: policy }, problems } : { policy: null, problems };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
