import { DomainError } from '@acm/domain';
import type { ArgumentsHost } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { ErrorFilter, statusOf } from './error.filter';

/** The parts of Express's request and response the filter uses, recorded. */
function httpHost(requestId: string) {
  const sent: { status?: number; headers: Record<string, string>; body?: string } = { headers: {} };
  const response = {
    headersSent: false,
    getHeader: (name: string) => (name === 'X-ONAP-RequestID' ? requestId : undefined),
    setHeader: (name: string, value: string) => {
      sent.headers[name] = value;
    },
    status(code: number) {
      sent.status = code;
      return this;
    },
    type() {
      return this;
    },
    send(body: string) {
      sent.body = body;
      return this;
    },
  };
  const request = { method: 'GET', originalUrl: '/onap/policy/clamp/acm/v2/compositions' };
  const host = {
    switchToHttp: () => ({ getResponse: () => response, getRequest: () => request }),
  } as unknown as ArgumentsHost;
  return { host, sent };
}

describe(ErrorFilter.name, () => {
  afterEach(() => jest.restoreAllMocks());

  it('answers an unexpected error with 500 and logs it with the request id, method and URL', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, sent } = httpHost('req-42');

    new ErrorFilter().catch(new TypeError('a real bug'), host);

    expect(sent.status).toBe(500);
    expect(JSON.parse(sent.body!)).toEqual({ errorDetails: 'Internal error; the runtime log has the details' });
    expect(logged).toHaveBeenCalledWith(
      expect.stringMatching(
        /^request req-42: GET \/onap\/policy\/clamp\/acm\/v2\/compositions failed: TypeError: a real bug/,
      ),
    );
  });

  it("hands a route's own 401 and 403 (a signed URL's token) to onRefused after answering; nothing else", () => {
    const refused: Array<{ status: number; reason: string; answered: number | undefined }> = [];
    const { host, sent } = httpHost('req-44');
    const filter = new ErrorFilter((_request, _response, refusal) =>
      refused.push({ ...refusal, answered: sent.status }),
    );

    filter.catch(new DomainError('FORBIDDEN', 'the token is forged or expired'), host);
    filter.catch(new DomainError('UNAUTHENTICATED', 'token: not a signed URL token'), host);
    filter.catch(new DomainError('NOT_FOUND', 'no such instance'), host);

    expect(refused).toEqual([
      { status: 403, reason: 'the token is forged or expired', answered: 403 },
      { status: 401, reason: 'token: not a signed URL token', answered: 401 },
    ]);
    expect(sent.status).toBe(404);
  });

  it('answers a refused connection to the database with 503 and Retry-After, logged as a warning', () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, sent } = httpHost('req-43');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

    new ErrorFilter().catch(refused, host);

    expect(sent).toEqual({
      status: 503,
      headers: { 'Retry-After': '5' },
      body: `${JSON.stringify({ errorDetails: 'The database is not reachable; retry later' })}\n`,
    });
    expect(warned).toHaveBeenCalledWith(expect.stringContaining('request req-43'));
    expect(logged).not.toHaveBeenCalled();
  });

  it.each([
    [
      'a full disk',
      { code: '53100', message: 'could not extend file "base/5/16384": No space left on device' },
      507,
      'The database cannot write: its disk is full (SQLSTATE 53100); retry once space is freed',
    ],
    [
      'a server out of memory',
      { code: '53200', message: 'out of memory' },
      503,
      'The database is out of memory (SQLSTATE 53200); retry later',
    ],
    [
      'a server with no connection slot',
      { code: '53300', message: 'sorry, too many clients already' },
      503,
      'The database has no connection slot left (SQLSTATE 53300); retry later',
    ],
    [
      'a statement past the deadline',
      { code: '57014', message: 'canceling statement due to statement timeout' },
      503,
      'The database did not finish within the statement deadline (DATABASE_STATEMENT_TIMEOUT_MS); nothing was changed; retry later',
    ],
    [
      'a silent server',
      { message: 'Query read timeout' },
      503,
      'The database did not answer within the statement deadline (DATABASE_STATEMENT_TIMEOUT_MS); retry later',
    ],
    [
      'a silent server at COMMIT',
      { message: 'Query failed', query: 'COMMIT', driverError: Object.assign(new Error('Query read timeout')) },
      503,
      'The database did not confirm the commit within the statement deadline (DATABASE_STATEMENT_TIMEOUT_MS): the order was applied only if its history says so; retry later',
    ],
  ])('answers %s with %i, Retry-After and errorDetails naming the cause', (_name, fields, status, message) => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, sent } = httpHost('req-44');

    new ErrorFilter().catch(Object.assign(new Error(fields.message), fields), host);

    expect(sent).toEqual({
      status,
      headers: { 'Retry-After': '5' },
      body: `${JSON.stringify({ errorDetails: message })}\n`,
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it('maps STORE_UNAVAILABLE to 503, STORE_FULL to 507 and validation to 400', () => {
    expect(statusOf('STORE_FULL')).toBe(507);
    expect(statusOf('VALIDATION_FAILED')).toBe(400);
    expect(statusOf(new DomainError('STORE_UNAVAILABLE', 'x').code)).toBe(503);
  });
});
