import { DEFAULT_PROJECT, roleIncludes, roleOf } from '@acm/domain';
import type { AccessPolicy, Role } from '@acm/domain';
import type { NextFunction, Request, Response } from 'express';
import { principalOf } from '../security/principal';
import { sendErrorDetails } from './error.filter';
import type { ForbiddenRequest } from './access-guard';

/** Ordering through a maintenance window that holds the order is an approval: approver (or admin) only. */
export const OVERRIDE_ROLE: Role = 'approver';

/** Whether the request asks to override maintenance windows (`?override=` given, even empty). */
export function asksOverride(request: Request): boolean {
  return Object.prototype.hasOwnProperty.call(request.query, 'override');
}

/**
 * After the access guard (which lets an operator give orders): an order that carries `?override=` needs the
 * approver role, else 403 naming it. Without a policy or a principal the guard has nothing to check.
 */
export function windowOverrideGuard(
  policy: AccessPolicy | null,
  contextPath: string,
  onRefused: (request: Request, response: Response, refusal: ForbiddenRequest) => void = () => undefined,
) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const principal = principalOf(response);
    if (policy === null || principal === undefined || !request.path.startsWith(contextPath) || !asksOverride(request)) {
      next();
      return;
    }
    const held = roleOf(policy, principal, DEFAULT_PROJECT);
    if (held !== null && roleIncludes(held, OVERRIDE_ROLE)) {
      next();
      return;
    }
    const has = held === null ? 'no role there' : `the role ${held}`;
    const reason = `Forbidden: ${request.method} ${request.path} with override needs the role ${OVERRIDE_ROLE} in project ${DEFAULT_PROJECT}; ${principal.user} has ${has}`;
    sendErrorDetails(response, 403, reason);
    onRefused(request, response, { status: 403, reason, user: principal.user });
  };
}
