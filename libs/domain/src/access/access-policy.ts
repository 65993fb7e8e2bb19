/**
 * Roles per project, and who holds them. Each role includes the ones before it: a viewer reads; an operator also
 * gives orders (create, deploy, undeploy, lock, migrate, cancel, signal, rollouts); an approver also approves; an
 * admin also commissions, primes, deletes and changes settings (participants).
 */
export const ROLES = ['viewer', 'operator', 'approver', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The project of every definition commissioned without one (ONAP's clients know no other). */
export const DEFAULT_PROJECT = 'default';

/** The policy's entry whose roles hold in every project. */
export const ALL_PROJECTS = '*';

const PROJECT_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** What a project may be called: a DNS label (lower-case letters, digits, inner dashes; at most 63). */
export const PROJECT_NAME_RULE = 'lower-case letters, digits and inner dashes, at most 63';

export function isProjectName(value: string): boolean {
  return PROJECT_NAME.test(value);
}

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
  return higher(roleIn(policy, subject, project), roleIn(policy, subject, ALL_PROJECTS));
}

/**
 * The role the subject holds in every project at once: its lowest role across the projects the policy names, its
 * "*" entry counted in each; admin without a policy. What spans projects (participants, the audit ledger) needs it.
 */
export function roleEverywhere(policy: AccessPolicy | null, subject: AccessSubject): Role | null {
  if (policy === null) {
    return 'admin';
  }
  const everywhere = roleIn(policy, subject, ALL_PROJECTS);
  let lowest: Role | null = everywhere;
  for (const project of namedProjects(policy)) {
    const held = higher(roleIn(policy, subject, project), everywhere);
    if (held === null) {
      return null;
    }
    lowest = lowest === null || roleIncludes(lowest, held) ? held : lowest;
  }
  return lowest;
}

/** The projects a policy names (not its "*" entry): those a definition may be commissioned into. */
export function namedProjects(policy: AccessPolicy): string[] {
  return [...policy.projects.keys()].filter((project) => project !== ALL_PROJECTS);
}

/**
 * The projects where the subject holds `needed` (or a role including it): "all" when it holds it everywhere (no
 * policy, the "*" entry, or in each project the policy names), else the named projects, maybe none.
 */
export function projectsWithRole(
  policy: AccessPolicy | null,
  subject: AccessSubject,
  needed: Role,
): 'all' | readonly string[] {
  const everywhere = roleEverywhere(policy, subject);
  if (policy === null || (everywhere !== null && roleIncludes(everywhere, needed))) {
    return 'all';
  }
  return namedProjects(policy).filter((project) => {
    const held = roleIn(policy, subject, project);
    return held !== null && roleIncludes(held, needed);
  });
}

/** Whether the policy names the project (a definition may be commissioned into it). */
export function policyNamesProject(policy: AccessPolicy, project: string): boolean {
  return namedProjects(policy).includes(project);
}

function roleIn(policy: AccessPolicy, subject: AccessSubject, project: string): Role | null {
  const roles = policy.projects.get(project);
  if (roles === undefined) {
    return null;
  }
  let best: Role | null = null;
  for (const [role, holders] of roles) {
    const holds = holders.users.has(subject.user) || subject.groups.some((group) => holders.groups.has(group));
    if (holds) {
      best = higher(best, role);
    }
  }
  return best;
}

function higher(a: Role | null, b: Role | null): Role | null {
  if (a === null) {
    return b;
  }
  return b === null || roleIncludes(a, b) ? a : b;
}

/**
 * Reads a policy document (YAML or JSON, already parsed): `projects: {<project>: {<role>: [<user> | group:<group>]}}`;
 * the project "*" grants its roles in every project.
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
    if (project !== ALL_PROJECTS && !isProjectName(project)) {
      problems.push(`${at(project)}: project "${project}" is not a project name (${PROJECT_NAME_RULE}, or "*")`);
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
