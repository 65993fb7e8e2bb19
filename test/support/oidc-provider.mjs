// A real OpenID provider for the tests (the OpenID-certified `oidc-provider`, ESM-only, hence a process of its own).
// Two issuers on two ports share one key set, so a token of the second one has a valid signature and a wrong issuer.
// Clients (client-credentials grant) are given in ACM_OIDC_CLIENTS as JSON: [{ id, secret, user, groups }].
// It sends { issuer, otherIssuer } to its parent once both listen; the message { rotate: true } puts a new signing key
// first (the old one still published), and is answered { rotated: <kid> }.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const RESOURCE = 'urn:acm:runtime';
const OTHER_RESOURCE = 'urn:acm:other';
const AUDIENCE = process.env.ACM_OIDC_AUDIENCE ?? 'acm-runtime';
const clients = JSON.parse(process.env.ACM_OIDC_CLIENTS ?? '[]');

const newKey = () => ({
  ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
  kid: randomUUID(),
  use: 'sig',
  alg: 'RS256',
});

let keys = [newKey()];

function makeProvider(issuer) {
  const provider = new Provider(issuer, {
    clients: clients.map((client) => ({
      client_id: client.id,
      client_secret: client.secret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
    })),
    jwks: { keys },
    features: {
      devInteractions: { enabled: false },
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
