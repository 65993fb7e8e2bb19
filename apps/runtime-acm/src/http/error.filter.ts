import type { DomainError, DomainErrorCode } from '@acm/domain';
import { isDomainError } from '@acm/domain';
import { asStoreUnavailable } from '@acm/persistence';
import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import { Catch, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

/** The one place where a refusal becomes an HTTP status. Adding a code without a status fails to compile. */
export function statusOf(code: DomainErrorCode): number {
  switch (code) {
    case 'VALIDATION_FAILED':
    case 'ORDER_NOT_ALLOWED':
    case 'ALREADY_EXISTS':
    case 'ID_MISMATCH':
      return HttpStatus.BAD_REQUEST;
    case 'NOT_FOUND':
      return HttpStatus.NOT_FOUND;
    case 'PARTICIPANT_OFFLINE':
    case 'CONCURRENT_MODIFICATION':
    case 'NOTHING_RUNNING':
    case 'SELECTION_TAKEN':
    case 'SCALING_REFUSED':
    case 'OWNED_BY_PARENT':
    case 'OUTSIDE_WINDOW':
    case 'APPROVAL_PENDING':
    case 'APPROVAL_REFUSED':
      return HttpStatus.CONFLICT;
    case 'UNAUTHENTICATED':
      return HttpStatus.UNAUTHORIZED;
    case 'FORBIDDEN':
      return HttpStatus.FORBIDDEN;
    case 'STORE_UNAVAILABLE':
      return HttpStatus.SERVICE_UNAVAILABLE;
    case 'STORE_FULL':
      return HttpStatus.INSUFFICIENT_STORAGE;
  }
}

/**
 * Seconds a client should wait before retrying a 503 or a 507: about how long a database restart or fail-over takes.
 */
export const RETRY_AFTER_SECONDS = 5;

/** An HTTP-level refusal raised before the application is reached (auth, body parsing, routing). */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Writes ONAP's error body, ending with a newline like every text a terminal shows; used by the filter and by the
 * middleware that runs before routing. A 503 or 507 says when to retry.
 */
export function sendErrorDetails(response: Response, status: number, message: string): void {
  if (status === 503 || status === 507) {
    response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  }
  response
    .status(status)
    .type('application/json')
    .send(`${JSON.stringify({ errorDetails: message })}\n`);
}

/** A route's own refusal of a request's credentials (a signed URL's token): 401 or 403, and why. */
export interface RouteRefusal {
  readonly status: 401 | 403;
  readonly reason: string;
}

/**
 * Every error leaves as ONAP's `{"errorDetails": "..."}` JSON; only the unexpected ones are logged as errors. A 401 or
 * 403 a route answers itself (the token of a signed URL, which no authentication middleware checks) is handed to
 * `onRefused` after the answer is sent, as the middleware's refusals are (the audit ledger records them).
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  constructor(
    private readonly onRefused: (request: Request, response: Response, refusal: RouteRefusal) => void = () => undefined,
  ) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const { status, message } = this.describe(error);
    if ((status === 401 || status === 403) && !response.headersSent) {
      sendErrorDetails(response, status, message);
      this.onRefused(http.getRequest<Request>(), response, { status, reason: message });
      return;
    }
    if (status >= 500) {
      const request = http.getRequest<Request>();
      const requestId = String(response.getHeader('X-ONAP-RequestID') ?? '-');
      const where = `request ${requestId}: ${request.method} ${request.originalUrl}`;
      if (status === 503 || status === 507) {
        this.logger.warn(`${where} answered ${status}: ${describeCause(error)}`);
      } else {
        this.logger.error(
          `${where} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      }
    }
    if (response.headersSent) {
      return;
    }
    sendErrorDetails(response, status, message);
  }

  private describe(error: unknown): { status: number; message: string } {
    const refusal: DomainError | undefined = isDomainError(error) ? error : asStoreUnavailable(error);
    if (refusal !== undefined) {
      return { status: statusOf(refusal.code), message: refusal.message };
    }
    if (error instanceof HttpRefusal) {
      return { status: error.status, message: error.message };
    }
    if (error instanceof HttpException) {
      const body = error.getResponse();
      const text =
        typeof body === 'object' && body !== null && 'message' in body ? String(body.message) : error.message;
      return { status: error.getStatus(), message: text };
    }
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'Internal error; the runtime log has the details' };
  }
}

function describeCause(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
