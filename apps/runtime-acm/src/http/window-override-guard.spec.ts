import { readAccessPolicy } from '@acm/domain';
import type { Request, Response } from 'express';
import { setPrincipal } from '../security/principal';
import { windowOverrideGuard } from './window-override-guard';

const { policy } = readAccessPolicy(
  { projects: { default: { admin: ['root'], approver: ['alice'], operator: ['bob'] } } },
  () => null,
);

interface Outcome {
  passed: boolean;
  status: number | null;
  body: string | null;
  refused: string | null;
}

function run(user: string, query: Record<string, string>): Outcome {
  const outcome: Outcome = { passed: false, status: null, body: null, refused: null };
  const response = {
    locals: {},
    setHeader: () => response,
    status(status: number) {
      outcome.status = status;
      return response;
    },
    type: () => response,
    send(body: string) {
      outcome.body = body;
      return response;
    },
  } as unknown as Response;
  setPrincipal(response, { user, groups: [], scheme: 'basic' });
  const request = { method: 'PUT', path: '/acm/v2/compositions/c/instances/i', query } as unknown as Request;
  windowOverrideGuard(policy, '/acm', (_request, _response, refusal) => {
    outcome.refused = refusal.reason;
  })(request, response, () => {
    outcome.passed = true;
  });
  return outcome;
}

describe('windowOverrideGuard', () => {
  it('lets an order without override through for any role the access guard let in', () => {
    expect(run('bob', {}).passed).toBe(true);
  });

  it('lets an override through for an approver or an admin', () => {
    expect(run('alice', { override: 'CHG-1' }).passed).toBe(true);
    expect(run('root', { override: 'CHG-1' }).passed).toBe(true);
  });

  it('refuses an override of an operator with 403 naming the role, and records the refusal', () => {
    const outcome = run('bob', { override: 'CHG-1' });
    expect(outcome.passed).toBe(false);
    expect(outcome.status).toBe(403);
    const reason =
      'Forbidden: PUT /acm/v2/compositions/c/instances/i with override needs the role approver in project default; bob has the role operator';
    expect(JSON.parse(outcome.body!)).toEqual({ errorDetails: reason });
    expect(outcome.refused).toBe(reason);
  });
});
