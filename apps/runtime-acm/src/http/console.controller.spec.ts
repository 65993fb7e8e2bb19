import type { RuntimeConfig } from '../config/runtime.config';
import { openPaths } from '../bootstrap';
import { CONSOLE_CONFIG_PATH, ConsoleController } from './console.controller';

const configWith = (consoleLogin: RuntimeConfig['consoleLogin']): RuntimeConfig =>
  ({ consoleLogin, metricsAuth: true }) as RuntimeConfig;

describe('ConsoleController', () => {
  it('answers oidc null without a console sign-in: the console uses HTTP Basic', () => {
    expect(new ConsoleController(configWith(null)).consoleConfig()).toEqual({ oidc: null });
  });

  it('answers the issuer, the public client and the scopes, and nothing else', () => {
    const login = { issuer: 'https://id.example', clientId: 'acm-console', scopes: 'openid profile' };
    expect(new ConsoleController(configWith(login)).consoleConfig()).toEqual({ oidc: login });
  });

  it('is answered without credentials, as the probes are', () => {
    expect(openPaths(configWith(null))).toContain(`/onap/policy/clamp/acm/${CONSOLE_CONFIG_PATH}`);
  });
});
