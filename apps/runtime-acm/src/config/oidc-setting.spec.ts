import { readOidcSettings } from './oidc-setting';

describe('readOidcSettings', () => {
  it('is off without OIDC_ISSUER', () => {
    expect(readOidcSettings({})).toEqual({ settings: null, problems: [] });
  });

  it('reads the settings with their defaults', () => {
    expect(readOidcSettings({ OIDC_ISSUER: 'https://id.example/realms/acm', OIDC_AUDIENCE: 'acm' })).toEqual({
      settings: {
        issuer: 'https://id.example/realms/acm',
        audience: 'acm',
        groupsClaim: 'groups',
        clockSkewS: 30,
        jwksCooldownS: 30,
      },
      problems: [],
    });
    expect(
      readOidcSettings({
        OIDC_ISSUER: 'http://localhost:8080',
        OIDC_AUDIENCE: 'acm',
        OIDC_GROUPS_CLAIM: 'realm_access.roles',
        OIDC_CLOCK_SKEW_S: '0',
        OIDC_JWKS_COOLDOWN_S: '600',
      }).settings,
    ).toEqual({
      issuer: 'http://localhost:8080',
      audience: 'acm',
      groupsClaim: 'realm_access.roles',
      clockSkewS: 0,
      jwksCooldownS: 600,
    });
  });

  it('names the setting of every problem', () => {
    expect(readOidcSettings({ OIDC_AUDIENCE: 'acm' }).problems).toEqual([
      'OIDC_AUDIENCE: needs OIDC_ISSUER (bearer tokens are off without it)',
    ]);
    const { settings, problems } = readOidcSettings({
      OIDC_ISSUER: 'http://id.example',
      OIDC_GROUPS_CLAIM: 'a b',
      OIDC_CLOCK_SKEW_S: '-1',
      OIDC_JWKS_COOLDOWN_S: '3601',
    });
    expect(settings).toBeNull();
    expect(problems).toEqual([
      'OIDC_ISSUER: must be an https URL without query, fragment or credentials (http only on localhost)',
      'OIDC_AUDIENCE: required with OIDC_ISSUER (the audience tokens must name)',
      'OIDC_GROUPS_CLAIM: must be a claim name (letters, digits, _ . : / -), got "a b"',
      'OIDC_CLOCK_SKEW_S: must be an integer from 0 to 300 (seconds), got "-1"',
      'OIDC_JWKS_COOLDOWN_S: must be an integer from 0 to 3600 (seconds), got "3601"',
    ]);
    expect(readOidcSettings({ OIDC_ISSUER: 'not a url', OIDC_AUDIENCE: 'acm' }).problems).toEqual([
      'OIDC_ISSUER: must be a URL, got "not a url"',
    ]);
  });
});
