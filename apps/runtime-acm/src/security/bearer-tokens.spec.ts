import { SignJWT } from 'jose';
import { IdentityProviderUnavailable, OidcBearerVerifier } from './bearer-tokens';

const ISSUER = 'https://id.example';
const SETTINGS = { issuer: ISSUER, audience: 'acm', groupsClaim: 'groups', clockSkewS: 0, jwksCooldownS: 30 };

describe('OidcBearerVerifier', () => {
  it('refuses a token signed with a shared secret before it reads any key', async () => {
    const discovery = { issuer: ISSUER, jwks_uri: 'https://id.example/never-read' };
    const verifier = new OidcBearerVerifier(SETTINGS, () => Promise.resolve(discovery));
    const token = await new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience('acm')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
    expect(await verifier.verify(token)).toEqual({
      ok: false,
      reason: 'the token is signed with an algorithm the runtime does not accept',
    });
  });

  it('answers a provider whose discovery fails or names another issuer as unavailable, and tries again', async () => {
    const answers: unknown[] = [{ issuer: 'https://elsewhere.example', jwks_uri: 'https://elsewhere.example/jwks' }];
    const fetchJson = (url: string): Promise<unknown> => {
      expect(url).toBe(`${ISSUER}/.well-known/openid-configuration`);
      const answer = answers.shift();
      return answer === undefined
        ? Promise.reject(new IdentityProviderUnavailable(`${url} answered 500`))
        : Promise.resolve(answer);
    };
    const verifier = new OidcBearerVerifier(SETTINGS, fetchJson);
    await expect(verifier.verify('a.b.c')).rejects.toThrow('names another issuer than OIDC_ISSUER');
    await expect(verifier.verify('a.b.c')).rejects.toThrow('answered 500');
  });
});
