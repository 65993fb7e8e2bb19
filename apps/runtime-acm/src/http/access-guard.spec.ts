import { requiredRole, scopeOf } from './access-guard';
import type { AccessScope } from './access-guard';

describe('requiredRole', () => {
  const id = '709c62b3-8918-41b9-a747-d21eb79c6c20';
  it.each([
    ['GET', '/v2/compositions', 'viewer'],
    ['GET', `/v2/compositions/${id}/instances/${id}`, 'viewer'],
    ['GET', '/v2/events', 'viewer'],
    ['POST', `/v2/compositions/${id}/instances/${id}/plan`, 'viewer'],
    ['POST', `/v2/compositions/${id}/instances`, 'operator'],
    ['PUT', `/v2/compositions/${id}/instances/${id}`, 'operator'],
    ['POST', `/v2/compositions/${id}/instances/${id}/cancel`, 'operator'],
    ['POST', `/v2/compositions/${id}/instances/${id}/elements/${id}/signal`, 'operator'],
    ['GET', `/v2/compositions/${id}/instances/${id}/elements/${id}/signal-url`, 'operator'],
    ['GET', `/v2/compositions/${id}/instances/${id}/groups/Workers/scale-url`, 'operator'],
    ['POST', `/v2/compositions/${id}/instances/${id}/groups/Workers/scale`, 'operator'],
    ['POST', '/v2/rollouts', 'operator'],
    ['POST', '/v2/compositions', 'admin'],
    ['PUT', `/v2/compositions/${id}`, 'admin'],
    ['DELETE', `/v2/compositions/${id}`, 'admin'],
    ['DELETE', `/v2/compositions/${id}/instances/${id}`, 'admin'],
    ['POST', `/v2/compositions/${id}/cancel`, 'admin'],
    ['PUT', '/v2/participants', 'admin'],
    ['GET', '/v2/audit', 'admin'],
    ['GET', '/v2/approvals', 'viewer'],
    ['POST', `/v2/approvals/${id}/approve`, 'viewer'],
    ['POST', `/v2/approvals/${id}/reject`, 'viewer'],
    ['POST', `/v2/approvals/${id}/other`, 'admin'],
    ['GET', '/console/index.html', null],
    ['GET', '/actuator/health/readiness', null],
  ])('%s %s needs %s', (method, path, role) => {
    expect(requiredRole(method, path)).toBe(role);
  });
});

describe('scopeOf', () => {
  const known = '709c62b3-8918-41b9-a747-d21eb79c6c20';
  const unknown = '11111111-2222-4333-8444-555555555555';
  const projectOf = (id: string): Promise<string | null> => Promise.resolve(id === known ? 'team-a' : null);
  const rollout = '22222222-3333-4444-8555-666666666666';
  const rolloutProjectOf = (id: string): Promise<string | null> => Promise.resolve(id === rollout ? 'team-a' : null);
  const subscription = '33333333-4444-4555-8666-777777777777';
  const subscriptionScopeOf = (id: string): Promise<AccessScope> =>
    Promise.resolve(id === subscription ? { kind: 'project', project: 'team-a' } : { kind: 'every' });

  it.each([
    ['GET', `/v2/compositions/${known}`, {}, { kind: 'project', project: 'team-a' }],
    ['PUT', `/v2/compositions/${known}/instances/${unknown}`, {}, { kind: 'project', project: 'team-a' }],
    ['GET', `/v2/compositions/${unknown}/instances`, {}, { kind: 'some' }],
    ['POST', '/v2/compositions', {}, { kind: 'project', project: 'default' }],
    ['POST', '/v2/compositions', { project: 'team-b' }, { kind: 'project', project: 'team-b' }],
    ['GET', '/v2/compositions', {}, { kind: 'some' }],
    ['GET', '/v2/instances', {}, { kind: 'some' }],
    ['GET', '/v2/events', {}, { kind: 'some' }],
    ['GET', '/v2/audit', {}, { kind: 'some' }],
    ['GET', '/v2/approvals', {}, { kind: 'some' }],
    ['POST', `/v2/approvals/${known}/approve`, {}, { kind: 'some' }],
    ['GET', '/v2/rollouts', {}, { kind: 'some' }],
    ['POST', '/v2/rollouts', {}, { kind: 'some' }],
    ['GET', `/v2/rollouts/${rollout}`, {}, { kind: 'project', project: 'team-a' }],
    ['POST', `/v2/rollouts/${rollout}/pause`, {}, { kind: 'project', project: 'team-a' }],
    ['GET', `/v2/rollouts/${unknown}/history`, {}, { kind: 'some' }],
    ['GET', '/v2/subscriptions', {}, { kind: 'some' }],
    ['POST', '/v2/subscriptions', {}, { kind: 'some' }],
    ['DELETE', `/v2/subscriptions/${subscription}`, {}, { kind: 'project', project: 'team-a' }],
    ['POST', `/v2/subscriptions/${unknown}/test`, {}, { kind: 'every' }],
    ['GET', '/v2/history', {}, { kind: 'every' }],
    ['PUT', '/v2/participants', {}, { kind: 'every' }],
  ])('%s %s %j is checked in %j', async (method, path, query, scope) => {
    await expect(scopeOf(method, path, query, projectOf, rolloutProjectOf, subscriptionScopeOf)).resolves.toEqual(
      scope,
    );
  });
});
