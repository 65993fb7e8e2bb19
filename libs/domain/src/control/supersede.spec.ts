import { resolveSupersede, supersedingKey } from './supersede';

const deploying = {
  deployState: 'DEPLOYING',
  lockState: 'NONE',
  subState: 'NONE',
  stateChangeResult: 'NO_ERROR',
} as const;

describe(resolveSupersede.name, () => {
  it('accepts UNDEPLOY while DEPLOYING only with the flag', () => {
    expect(() => resolveSupersede('UNDEPLOY', deploying, false)).toThrow(
      expect.objectContaining({ code: 'ORDER_NOT_ALLOWED' }),
    );
    expect(resolveSupersede('UNDEPLOY', deploying, true)).toBe(true);
  });

  it('does not supersede when nothing runs, and still refuses what ONAP refuses after a failure', () => {
    const deployed = { ...deploying, deployState: 'DEPLOYED', lockState: 'LOCKED' } as const;
    expect(resolveSupersede('UNDEPLOY', deployed, true)).toBe(false);
    expect(() => resolveSupersede('DELETE', deploying, true)).toThrow(
      expect.objectContaining({ code: 'ORDER_NOT_ALLOWED' }),
    );
    expect(supersedingKey(deployed)).toBe(deployed);
  });
});
