import type { NextFunction, Request, Response } from 'express';
import { IdentityProviderUnavailable } from '../security/bearer-tokens';
import type { BearerVerifier } from '../security/bearer-tokens';
import { principalOf } from '../security/principal';
import { basicAuth } from './basic-auth';
import type { RefusedRequest } from './basic-auth';

interface Answer {
  sent?: () => void;
  status?: number;
  body?: string;
  headers: Record<string, string>;
}

function exchange(authorization: string | undefined): { request: Request; response: Response; answer: Answer } {
  const answer: Answer = { headers: {} };
  const response = {
    locals: {},
    setHeader: (name: string, value: string) => {
      answer.headers[name] = value;
    },
    status(code: number) {
      answer.status = code;
      return this;
    },
    type() {
      return this;
    },
    send(body: string) {
      answer.body = body;
      answer.sent?.();
      return this;
    },
  } as unknown as Response;
  const request = { method: 'GET', path: '/x', headers: { authorization }, query: {} } as unknown as Request;
  return { request, response, answer };
}

/** Resolves true when the middleware passes the request on, false when it answers it. */
const run = (
  middleware: ReturnType<typeof basicAuth>,
  request: Request,
  response: Response,
  answer: Answer,
): Promise<boolean> =>
  new Promise((resolve) => {
    answer.sent = () => resolve(false);
    const next: NextFunction = () => resolve(true);
    middleware(request, response, next);
  });

describe('basicAuth with bearer tokens', () => {
  const principal = { user: 'alice', groups: ['ops'], scheme: 'bearer' as const };

  it('grants a verified token its principal and keeps Basic', async () => {
    const bearer: BearerVerifier = { verify: () => Promise.resolve({ ok: true, principal }) };
    const middleware = basicAuth('u', 'p', new Set(), () => false, null, { bearer });
    const token = exchange('Bearer abc');
    expect(await run(middleware, token.request, token.response, token.answer)).toBe(true);
    expect(principalOf(token.response)).toEqual(principal);
    const basic = exchange(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(await run(middleware, basic.request, basic.response, basic.answer)).toBe(true);
    expect(principalOf(basic.response)).toEqual({ user: 'u', groups: [], scheme: 'basic' });
  });

  it('answers 401 with the reason and a Bearer challenge only, and reports the refusal without the token', async () => {
    const refused: RefusedRequest[] = [];
    const bearer: BearerVerifier = {
      verify: () => Promise.resolve({ ok: false, reason: 'the token has expired (exp)' }),
    };
    const middleware = basicAuth('u', 'p', new Set(), () => false, null, {
      bearer,
      onRefused: (_request, _response, refusal) => refused.push(refusal),
    });
    const { request, response, answer } = exchange('Bearer secret-token');
    expect(await run(middleware, request, response, answer)).toBe(false);
    expect(answer.status).toBe(401);
    expect(answer.body).toBe('{"errorDetails":"Unauthorized: the token has expired (exp)"}\n');
    expect(answer.headers['WWW-Authenticate']).toBe('Bearer realm="acm-runtime", error="invalid_token"');
    expect(refused).toEqual([{ status: 401, reason: 'Unauthorized: the token has expired (exp)', user: null }]);
    const missing = exchange(undefined);
    expect(await run(middleware, missing.request, missing.response, missing.answer)).toBe(false);
    expect(missing.answer.headers['WWW-Authenticate']).toBe('Basic realm="acm-runtime", Bearer realm="acm-runtime"');
  });

  it('answers 503 when the provider cannot be reached', async () => {
    const bearer: BearerVerifier = {
      verify: () => Promise.reject(new IdentityProviderUnavailable('https://id.example answered 500')),
    };
    const middleware = basicAuth('u', 'p', new Set(), () => false, null, { bearer });
    const { request, response, answer } = exchange('Bearer abc');
    expect(await run(middleware, request, response, answer)).toBe(false);
    expect(answer.status).toBe(503);
    expect(answer.body).toContain('the OpenID Connect provider');
  });
});
