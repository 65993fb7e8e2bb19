import { base64Url, jwtClaims, pkceChallenge } from './auth';

describe('the console sign-in helpers', () => {
  it("computes RFC 7636's S256 challenge (its appendix B example)", async () => {
    expect(await pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('writes base64url without padding', () => {
    expect(base64Url(new Uint8Array([251, 255, 191, 1]))).toBe('-_-_AQ');
  });

  it("reads a JWT's claims for display, UTF-8 included, and nothing from a malformed one", () => {
    const payload = base64Url(new TextEncoder().encode(JSON.stringify({ preferred_username: 'zoë', sub: 's' })));
    expect(jwtClaims(`e30.${payload}.sig`)).toEqual({ preferred_username: 'zoë', sub: 's' });
    expect(jwtClaims('not-a-jwt')).toEqual({});
  });
});
