import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface OidcClient {
  readonly id: string;
  readonly secret: string;
  /** The token's preferred_username. */
  readonly user: string;
  readonly groups: readonly string[];
}

/** A user who signs in at the provider's development login form (any password). */
export interface OidcUser {
  readonly user: string;
  readonly groups: readonly string[];
}

/** A public client (no secret): the authorization-code flow with PKCE, or with `device` the device flow. */
export interface OidcPublicClient {
  readonly id: string;
  readonly redirectUris?: readonly string[];
  readonly postLogoutRedirectUris?: readonly string[];
  readonly device?: boolean;
}

/** A real OpenID provider (`oidc-provider`) in a child process: two issuers sharing keys, key rotation on demand. */
export class OidcProviderProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly issuer: string,
    /** A second issuer signing with the same keys: its tokens have a valid signature and a wrong issuer. */
    readonly otherIssuer: string,
  ) {}

  static async start(
    clients: readonly OidcClient[],
    audience: string,
    interactive: { users: readonly OidcUser[]; publicClients: readonly OidcPublicClient[] } = {
      users: [],
      publicClients: [],
    },
  ): Promise<OidcProviderProcess> {
    const child = fork(join(__dirname, 'oidc-provider.mjs'), [], {
      env: {
        ...process.env,
        ACM_OIDC_CLIENTS: JSON.stringify(clients),
        ACM_OIDC_AUDIENCE: audience,
        ACM_OIDC_USERS: JSON.stringify(interactive.users),
        ACM_OIDC_PUBLIC_CLIENTS: JSON.stringify(interactive.publicClients),
      },
      // The provider warns about its in-memory store and Node 20 on stderr; the tests need none of it.
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const ready = await new Promise<{ issuer: string; otherIssuer: string }>((resolve, reject) => {
      child.once('message', (message) => resolve(message as { issuer: string; otherIssuer: string }));
      child.once('exit', (code) => reject(new Error(`the OpenID provider exited (${code ?? 'signal'})`)));
    });
    return new OidcProviderProcess(child, ready.issuer, ready.otherIssuer);
  }

  /** A client-credentials access token (a JWT) of `issuer` for the resource (the runtime's by default). */
  async token(client: OidcClient, options: { issuer?: string; resource?: string } = {}): Promise<string> {
    const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'acm' });
    if (options.resource !== undefined) {
      body.set('resource', options.resource);
    }
    const response = await fetch(`${options.issuer ?? this.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
    });
    const answer = (await response.json()) as { access_token?: string; error_description?: string };
    if (!response.ok || answer.access_token === undefined) {
      throw new Error(`the provider refused a token: ${response.status} ${answer.error_description ?? ''}`);
    }
    return answer.access_token;
  }

  /** Puts a new signing key first (the old one stays published); resolves with its kid. */
  async rotateKeys(): Promise<string> {
    const rotated = new Promise<string>((resolve) =>
      this.child.once('message', (message) => resolve((message as { rotated: string }).rotated)),
    );
    this.child.send({ rotate: true });
    return rotated;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) {
      return;
    }
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
