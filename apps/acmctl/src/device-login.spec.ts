import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deviceLogin } from './device-login';
import { AcmctlError, EXIT } from './exit-codes';

/** A provider's device endpoints answering, in turn, the token endpoint's scripted answers (RFC 8628 section 3.5). */
class ScriptedProvider {
  private server!: Server;
  issuer = '';
  readonly tokenRequests: Array<Record<string, string>> = [];

  constructor(private readonly tokenAnswers: Array<{ status: number; body: Record<string, unknown> }>) {}

  async start(): Promise<void> {
    this.server = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const reply = (status: number, json: unknown): void => {
          response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
        };
        if (request.url === '/.well-known/openid-configuration') {
          reply(200, {
            issuer: this.issuer,
            device_authorization_endpoint: `${this.issuer}/device/auth`,
            token_endpoint: `${this.issuer}/token`,
          });
        } else if (request.url === '/device/auth') {
          reply(200, {
            device_code: 'device-1',
            user_code: 'ABCD-EFGH',
            verification_uri: `${this.issuer}/device`,
            expires_in: 600,
            interval: 2,
          });
        } else {
          this.tokenRequests.push(Object.fromEntries(new URLSearchParams(body)));
          const next = this.tokenAnswers.shift() ?? { status: 500, body: { error: 'server_error' } };
          reply(next.status, next.body);
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('deviceLogin', () => {
  let provider: ScriptedProvider;
  afterEach(() => provider.stop());

  const run = (waits: number[], prompts: string[]) =>
    deviceLogin({
      issuer: provider.issuer,
      clientId: 'acmctl',
      scope: 'openid acm',
      prompt: ({ uri, uriComplete, userCode }) => prompts.push(`${uri} ${String(uriComplete)} ${userCode}`),
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });

  it("polls at the provider's interval, 5 s more after a slow_down, until the token comes", async () => {
    provider = new ScriptedProvider([
      { status: 400, body: { error: 'authorization_pending' } },
      { status: 400, body: { error: 'slow_down' } },
      { status: 400, body: { error: 'authorization_pending' } },
      { status: 200, body: { access_token: 'token-1', token_type: 'Bearer' } },
    ]);
    await provider.start();
    const waits: number[] = [];
    const prompts: string[] = [];
    await expect(run(waits, prompts)).resolves.toEqual({ accessToken: 'token-1', expiresAt: null });
    expect(prompts).toEqual([`${provider.issuer}/device null ABCD-EFGH`]);
    expect(waits).toEqual([2000, 2000, 7000, 7000]);
    expect(provider.tokenRequests[0]).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: 'device-1',
      client_id: 'acmctl',
    });
  });

  it('ends with exit code 6 naming the error when the code expires or the user refuses', async () => {
    provider = new ScriptedProvider([
      { status: 400, body: { error: 'expired_token', error_description: 'device code expired' } },
    ]);
    await provider.start();
    const failure = await run([], []).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AcmctlError);
    expect((failure as AcmctlError).exitCode).toBe(EXIT.UNAUTHORIZED);
    expect((failure as AcmctlError).message).toBe('the sign-in did not complete: expired_token (device code expired)');
  });
});
