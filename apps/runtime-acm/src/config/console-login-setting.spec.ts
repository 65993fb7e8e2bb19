import { readConsoleLoginSettings } from './console-login-setting';

const ISSUER = 'https://id.example/realms/acm';

describe('readConsoleLoginSettings', () => {
  it('is off without OIDC_CONSOLE_CLIENT_ID', () => {
    expect(readConsoleLoginSettings({ OIDC_ISSUER: ISSUER }, ISSUER)).toEqual({ settings: null, problems: [] });
  });

  it('reads the client and the scopes, openid profile by default', () => {
    const env = { OIDC_ISSUER: ISSUER, OIDC_CONSOLE_CLIENT_ID: 'acm-console' };
    expect(readConsoleLoginSettings(env, ISSUER)).toEqual({
      settings: { issuer: ISSUER, clientId: 'acm-console', scopes: 'openid profile' },
      problems: [],
    });
    expect(readConsoleLoginSettings({ ...env, OIDC_CONSOLE_SCOPES: ' openid  acm ' }, ISSUER).settings).toEqual({
      issuer: ISSUER,
      clientId: 'acm-console',
      scopes: 'openid acm',
    });
  });

  it('names the setting of every problem', () => {
    expect(readConsoleLoginSettings({ OIDC_CONSOLE_CLIENT_ID: 'acm-console' }, null).problems).toEqual([
      'OIDC_CONSOLE_CLIENT_ID: needs OIDC_ISSUER (the provider the console signs in with)',
    ]);
    expect(readConsoleLoginSettings({ OIDC_CONSOLE_SCOPES: 'openid' }, null).problems).toEqual([
      'OIDC_CONSOLE_SCOPES: needs OIDC_CONSOLE_CLIENT_ID (the console signs in without it only by Basic)',
    ]);
    const env = { OIDC_ISSUER: ISSUER, OIDC_CONSOLE_CLIENT_ID: 'a b' };
    expect(readConsoleLoginSettings(env, ISSUER)).toEqual({
      settings: null,
      problems: ['OIDC_CONSOLE_CLIENT_ID: must be printable ASCII without spaces, at most 255, got "a b"'],
    });
    expect(
      readConsoleLoginSettings({ ...env, OIDC_CONSOLE_CLIENT_ID: 'c', OIDC_CONSOLE_SCOPES: 'profile' }, ISSUER)
        .problems,
    ).toEqual(['OIDC_CONSOLE_SCOPES: must include openid']);
    expect(
      readConsoleLoginSettings({ ...env, OIDC_CONSOLE_CLIENT_ID: 'c', OIDC_CONSOLE_SCOPES: 'openid "x' }, ISSUER)
        .problems,
    ).toEqual(['OIDC_CONSOLE_SCOPES: "\\"x" is not a scope (printable ASCII without " or \\)']);
  });
});
