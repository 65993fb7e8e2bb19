// A real OpenID provider for the tests (the OpenID-certified `oidc-provider`, ESM-only, hence a process of its own).
// Two issuers on two ports share one key set, so a token of the second one has a valid signature and a wrong issuer.
// Clients (client-credentials grant) are given in ACM_OIDC_CLIENTS as JSON: [{ id, secret, user, groups }].
// Users who sign in interactively (the provider's development login form: any password) are given in ACM_OIDC_USERS
// as JSON: [{ user, groups }]; public clients (no secret) in ACM_OIDC_PUBLIC_CLIENTS: [{ id, redirectUris,
// postLogoutRedirectUris, device }], the authorization-code flow with PKCE, or with `device` the device flow (RFC 8628).
// It sends { issuer, otherIssuer } to its parent once both listen; the message { rotate: true } puts a new signing key
// first (the old one still published), and is answered { rotated: <kid> }.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const RESOURCE = 'urn:acm:runtime';
const OTHER_RESOURCE = 'urn:acm:other';
const AUDIENCE = process.env.ACM_OIDC_AUDIENCE ?? 'acm-runtime';
const clients = JSON.parse(process.env.ACM_OIDC_CLIENTS ?? '[]');
const users = JSON.parse(process.env.ACM_OIDC_USERS ?? '[]');
const publicClients = JSON.parse(process.env.ACM_OIDC_PUBLIC_CLIENTS ?? '[]');
const interactive = publicClients.length > 0;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const publicClient = (client) =>
  client.device
    ? {
        client_id: client.id,
        token_endpoint_auth_method: 'none',
        grant_types: [DEVICE_GRANT],
        redirect_uris: [],
        response_types: [],
      }
    : {
        client_id: client.id,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: client.redirectUris,
        post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
      };

const newKey = () => ({
  ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
  kid: randomUUID(),
  use: 'sig',
  alg: 'RS256',
});

let keys = [newKey()];

function makeProvider(issuer) {
  const provider = new Provider(issuer, {
    clients: [
      ...clients.map((client) => ({
        client_id: client.id,
        client_secret: client.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      })),
      ...publicClients.map(publicClient),
    ],
    jwks: { keys },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, preferred_username: id }) }),
    features: {
      devInteractions: { enabled: interactive },
      deviceFlow: { enabled: interactive },
      rpInitiatedLogout: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'acm',
          audience: resource === OTHER_RESOURCE ? 'another-service' : AUDIENCE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: (_ctx, token) => {
      if (token.accountId !== undefined) {
        const account = users.find((candidate) => candidate.user === token.accountId);
        return { preferred_username: token.accountId, groups: account?.groups ?? [] };
      }
      const client = clients.find((candidate) => candidate.id === token.clientId);
      return client === undefined ? {} : { preferred_username: client.user, groups: client.groups };
    },
  });
  provider.proxy = false;
  return provider;
}

async function listen(makeIssuer) {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = makeIssuer(server.address().port);
  const serve = (provider) => {
    server.removeAllListeners('request');
    server.on('request', provider.callback());
  };
  serve(makeProvider(issuer));
  return { issuer, server, serve };
}

const main = await listen((port) => `http://127.0.0.1:${port}`);
const other = await listen((port) => `http://localhost:${port}`);

process.on('message', (message) => {
  if (message?.rotate) {
    keys = [newKey(), ...keys];
    main.serve(makeProvider(main.issuer));
    other.serve(makeProvider(other.issuer));
    process.send({ rotated: keys[0].kid });
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ issuer: main.issuer, otherIssuer: other.issuer });
