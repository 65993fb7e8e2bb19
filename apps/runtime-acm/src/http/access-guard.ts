import { DEFAULT_PROJECT, roleIncludes, roleOf } from '@acm/domain';
import type { AccessPolicy, Role } from '@acm/domain';
import type { NextFunction, Request, Response } from 'express';
import { principalOf } from '../security/principal';
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
  if (OPERATOR_ROUTES.some((route) => route.method === method && route.path.test(path))) {
    return VIEWER_POSTS.some((route) => route.test(path)) ? 'viewer' : 'operator';
  }
  if (method === 'GET' || method === 'HEAD') {
    return ADMIN_READS.some((route) => route.test(path)) ? 'admin' : 'viewer';
  }
  return 'admin';
}

/** A request refused for want of a role, handed to `onRefused` after the 403 is sent. */
export interface ForbiddenRequest {
  readonly status: 403;
  readonly reason: string;
  readonly user: string;
}

/**
 * One guard for every route (a middleware after authentication): the caller's role in the request's project must
 * include the role the request needs, else 403 naming it. Every definition and instance is in the default project.
 * A request with no principal (authentication off, a signed signal URL) is the route's own to check.
 */
export function accessGuard(
  policy: AccessPolicy | null,
  contextPath: string,
  onRefused: (request: Request, response: Response, refusal: ForbiddenRequest) => void = () => undefined,
) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const principal = principalOf(response);
    if (policy === null || principal === undefined || !request.path.startsWith(contextPath)) {
      next();
      return;
    }
    const needed = requiredRole(request.method, request.path.slice(contextPath.length));
    if (needed === null) {
      next();
      return;
    }
    const project = DEFAULT_PROJECT;
    const held = roleOf(policy, principal, project);
    if (held !== null && roleIncludes(held, needed)) {
      next();
      return;
    }
    const has = held === null ? 'no role there' : `the role ${held}`;
    const reason = `Forbidden: ${request.method} ${request.path} needs the role ${needed} in project ${project}; ${principal.user} has ${has}`;
    sendErrorDetails(response, 403, reason);
    onRefused(request, response, { status: 403, reason, user: principal.user });
  };
}
