import { uriLabel } from './route-label';

const CONTEXT = '/onap/policy/clamp/acm';

describe(uriLabel.name, () => {
  it.each([
    [`${CONTEXT}/v2/compositions`, 200, '/v2/compositions'],
    [`${CONTEXT}/v2/compositions/:compositionId`, 404, '/v2/compositions/{compositionId}'],
    [
      `${CONTEXT}/v2/compositions/:compositionId/instances/:instanceId`,
      202,
      '/v2/compositions/{compositionId}/instances/{instanceId}',
    ],
    [`${CONTEXT}/actuator/health`, 503, '/actuator/health'],
    [CONTEXT, 200, 'root'],
    ['/elsewhere/:id', 200, '/elsewhere/{id}'],
    [undefined, 404, 'NOT_FOUND'],
    [undefined, 302, 'REDIRECTION'],
    [undefined, 401, 'UNKNOWN'],
    [undefined, 400, 'UNKNOWN'],
    [undefined, 500, 'UNKNOWN'],
  ])('labels route %p answered %p as %p', (route, status, label) => {
    expect(uriLabel(route, status, CONTEXT)).toBe(label);
  });
});
