import {
  DEFAULT_PROJECT,
  PROJECT_NAME_RULE,
  isProjectName,
  namedProjects,
  policyNamesProject,
  projectsWithRole,
  roleEverywhere,
  roleIncludes,
  roleOf,
} from '@acm/domain';
import type { AccessPolicy, Role } from '@acm/domain';
import type { NextFunction, Request, Response } from 'express';
import { principalOf } from '../security/principal';
import type { Principal } from '../security/principal';
import { sendErrorDetails } from './error.filter';

const SEGMENT = '[^/]+';

/** Requests that change nothing beyond a viewer's reach though they are POSTs: a plan computed from a body. */
const VIEWER_POSTS = [new RegExp(`^/v2/compositions/${SEGMENT}/instances/${SEGMENT}/plan$`)];

/**
 * What an operator may do besides reading: give orders to instances, control their operations, hand out the signed
 * URLs that give orders (signals, group scaling), rollouts.
 */
const OPERATOR_ROUTES: ReadonlyArray<{ method: string; path: RegExp }> = [
  { method: 'POST', path: new RegExp(`^/v2/compositions/${SEGMENT}/instances(/.*)?$`) },
  { method: 'PUT', path: new RegExp(`^/v2/compositions/${SEGMENT}/instances/${SEGMENT}$`) },
  {
    method: 'GET',
    path: new RegExp(`^/v2/compositions/${SEGMENT}/instances/${SEGMENT}/elements/${SEGMENT}/signal-url$`),
  },
  {
    method: 'GET',
    path: new RegExp(`^/v2/compositions/${SEGMENT}/instances/${SEGMENT}/groups/${SEGMENT}/scale-url$`),
  },
  { method: 'POST', path: /^\/v2\/rollouts(\/.*)?$/ },
];

/**
 * Deciding an approval: any caller with a role somewhere passes the guard; the approval's rule names the role needed
 * in its project, which the approvals' own rules check (403 naming it).
 */
const APPROVAL_DECISIONS = /^\/v2\/approvals\/[^/]+\/(approve|reject)$/;

/** Reads that only an admin makes: the audit ledger spans every project and records refused requests. */
const ADMIN_READS = [/^\/v2\/audit$/];

/**
 * The role a request needs in its project, from its method and path (below the context path); null for what is not
 * the API (the console's files, Swagger UI, the probes and metrics), which authentication alone guards. Anything not
 * named here that changes something (commission, prime, delete, participants' settings) needs admin.
 */
export function requiredRole(method: string, path: string): Role | null {
  if (!path.startsWith('/v2/')) {
    return null;
  }
  if (method === 'POST' && APPROVAL_DECISIONS.test(path)) {
    return 'viewer';
  }
  if (OPERATOR_ROUTES.some((route) => route.method === method && route.path.test(path))) {
    return VIEWER_POSTS.some((route) => route.test(path)) ? 'viewer' : 'operator';
  }
  if (method === 'GET' || method === 'HEAD') {
    return ADMIN_READS.some((route) => route.test(path)) ? 'admin' : 'viewer';
  }
  return 'admin';
}

/**
 * Where a request's role is checked: in one project (a definition's, and its instances'), in some project (a list
 * that shows each caller only its projects' entries), or in every project (what spans projects and is not filtered).
 */
export type AccessScope =
  { readonly kind: 'project'; readonly project: string } | { readonly kind: 'some' } | { readonly kind: 'every' };

const UNDER_DEFINITION = /^\/v2\/compositions\/([^/]+)(?:\/|$)/;

/** Lists that show a caller only the entries of its projects (each filters by `visibleProjectsOf`). */
const FILTERED_LISTS = [
  /^\/v2\/compositions$/,
  /^\/v2\/instances$/,
  /^\/v2\/events$/,
  /^\/v2\/audit$/,
  /^\/v2\/approvals$/,
  /^\/v2\/rollouts$/,
  /^\/v2\/subscriptions$/,
];

const SUBSCRIPTION = /^\/v2\/subscriptions\/([^/]+)(?:\/|$)/;

const ROLLOUT = /^\/v2\/rollouts\/([^/]+)(?:\/|$)/;

/**
 * The scope of a request (below the context path): a definition's routes (its instances' included) are its project's;
 * a commission names its project with the `project` query parameter (default: `default`); the lists that filter are
 * checked in some project; a rollout's routes are its definition's project's (its creation, whose body names the
 * definition, is checked in some project here and in that project by the route); anything else (subscriptions,
 * participants, the global history) spans projects, so it needs the role in every project.
 */
export async function scopeOf(
  method: string,
  path: string,
  query: Record<string, unknown>,
  projectOf: (compositionId: string) => Promise<string | null>,
  rolloutProjectOf: (rolloutId: string) => Promise<string | null> = () => Promise.resolve(null),
  subscriptionScopeOf: (subscriptionId: string) => Promise<AccessScope> = () => Promise.resolve({ kind: 'every' }),
): Promise<AccessScope> {
  const definition = UNDER_DEFINITION.exec(path);
  if (definition !== null) {
    const project = await projectOf(definition[1] ?? '');
    // An unknown definition: the route answers 404 to whoever may read something.
    return project === null ? { kind: 'some' } : { kind: 'project', project };
  }
  const rollout = ROLLOUT.exec(path);
  if (rollout !== null) {
    // A rollout is its definition's project's; an unknown one answers 404 to whoever may read something.
    const project = await rolloutProjectOf(rollout[1] ?? '');
    return project === null ? { kind: 'some' } : { kind: 'project', project };
  }
  const subscription = SUBSCRIPTION.exec(path);
  if (subscription !== null) {
    return subscriptionScopeOf(subscription[1] ?? '');
  }
  if (method === 'POST' && (path === '/v2/rollouts' || path === '/v2/subscriptions')) {
    // The body (parsed after this guard) names the definition (a subscription may name none, and span projects): the
    // route checks its project with `projectRefusalOf`.
    return { kind: 'some' };
  }
  if (method === 'POST' && path === '/v2/compositions') {
    const named = query['project'];
    return { kind: 'project', project: typeof named === 'string' ? named : DEFAULT_PROJECT };
  }
  if ((method === 'GET' || method === 'HEAD') && FILTERED_LISTS.some((list) => list.test(path))) {
    return { kind: 'some' };
  }
  if (method === 'POST' && APPROVAL_DECISIONS.test(path)) {
    return { kind: 'some' };
  }
  return { kind: 'every' };
}

/** A request refused for want of a role, handed to `onRefused` after the 403 is sent. */
export interface ForbiddenRequest {
  readonly status: 403;
  readonly reason: string;
  readonly user: string;
}

const VISIBLE_PROJECTS = 'acmVisibleProjects';
const PROJECT_REFUSAL = 'acmProjectRefusal';

/** A commission into a project that cannot be one: a 400, not a 403. */
const BAD_PROJECT = Symbol('bad project');

/** The projects whose entries a list may show the caller; undefined: every project (no policy, or the "*" entry). */
export function visibleProjectsOf(response: Response): readonly string[] | undefined {
  return (response.locals as Record<string, unknown> | undefined)?.[VISIBLE_PROJECTS] as string[] | undefined;
}

/**
 * For a request checked in some project whose project only its body names (a rollout's creation): why the caller may
 * not make it in `project` (null: in every project; the role it needs there, as the guard words it), null when it
 * may. Undefined: no policy or no principal, nothing to check.
 */
export function projectRefusalOf(response: Response): ((project: string | null) => string | null) | undefined {
  return (response.locals as Record<string, unknown> | undefined)?.[PROJECT_REFUSAL] as
    ((project: string | null) => string | null) | undefined;
}

/**
 * One guard for every route (a middleware after authentication): the caller's role in the request's scope (see
 * `scopeOf`) must include the role the request needs, else 403 naming the role and the project. A commission into a
 * project that is not a project name, or that a policy does not name, is a 400. A request with no principal
 * (authentication off, a signed signal URL) is the route's own to check.
 */
export function accessGuard(
  policy: AccessPolicy | null,
  contextPath: string,
  projectOf: (compositionId: string) => Promise<string | null>,
  onRefused: (request: Request, response: Response, refusal: ForbiddenRequest) => void = () => undefined,
  rolloutProjectOf: (rolloutId: string) => Promise<string | null> = () => Promise.resolve(null),
  subscriptionScopeOf: (subscriptionId: string) => Promise<AccessScope> = () => Promise.resolve({ kind: 'every' }),
) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const principal = principalOf(response);
    if (policy === null || principal === undefined || !request.path.startsWith(contextPath)) {
      next();
      return;
    }
    const path = request.path.slice(contextPath.length);
    const needed = requiredRole(request.method, path);
    if (needed === null) {
      next();
      return;
    }
    scopeOf(
      request.method,
      path,
      request.query as Record<string, unknown>,
      projectOf,
      rolloutProjectOf,
      subscriptionScopeOf,
    ).then(
      (scope) => {
        const refusal = refusalOf(policy, principal, needed, scope);
        if (refusal === BAD_PROJECT) {
          sendErrorDetails(response, 400, projectProblem(policy, scope.kind === 'project' ? scope.project : ''));
          return;
        }
        if (refusal !== null) {
          const reason = `Forbidden: ${request.method} ${request.path} ${refusal}`;
          sendErrorDetails(response, 403, reason);
          onRefused(request, response, { status: 403, reason, user: principal.user });
          return;
        }
        if (scope.kind === 'some') {
          const visible = projectsWithRole(policy, principal, needed);
          if (visible !== 'all') {
            (response.locals as Record<string, unknown>)[VISIBLE_PROJECTS] = visible;
          }
          (response.locals as Record<string, unknown>)[PROJECT_REFUSAL] = (project: string | null): string | null => {
            const where: AccessScope = project === null ? { kind: 'every' } : { kind: 'project', project };
            const inProject = refusalOf(policy, principal, needed, where);
            return inProject === BAD_PROJECT ? projectProblem(policy, project ?? '') : inProject;
          };
        }
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

/** Why the caller may not: null when it may; BAD_PROJECT when the project named cannot be one. */
function refusalOf(
  policy: AccessPolicy,
  principal: Principal,
  needed: Role,
  scope: AccessScope,
): string | typeof BAD_PROJECT | null {
  if (scope.kind === 'project') {
    if (!isProjectName(scope.project) || !policyNamesProject(policy, scope.project)) {
      return BAD_PROJECT;
    }
    const held = roleOf(policy, principal, scope.project);
    if (held !== null && roleIncludes(held, needed)) {
      return null;
    }
    const has = held === null ? 'no role there' : `the role ${held}`;
    return `needs the role ${needed} in project ${scope.project}; ${principal.user} has ${has}`;
  }
  if (scope.kind === 'some') {
    const visible = projectsWithRole(policy, principal, needed);
    return visible === 'all' || visible.length > 0
      ? null
      : `needs the role ${needed} in a project; ${principal.user} has it in none`;
  }
  const everywhere = roleEverywhere(policy, principal);
  if (everywhere !== null && roleIncludes(everywhere, needed)) {
    return null;
  }
  const has = everywhere === null ? 'no role in some' : `the role ${everywhere} in all`;
  return `needs the role ${needed} in every project (${namedProjects(policy).join(', ')}); ${principal.user} has ${has}`;
}

function projectProblem(policy: AccessPolicy, project: string): string {
  if (!isProjectName(project)) {
    return `project: "${project}" is not a project name (${PROJECT_NAME_RULE})`;
  }
  const named = namedProjects(policy).join(', ') || 'none';
  return `project: "${project}" is not a project of RUNTIME_POLICY_FILE (projects: ${named})`;
}
