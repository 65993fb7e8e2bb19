import type { DomainErrorCode } from '@acm/domain';
import { isDomainError } from '@acm/domain';
import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import { Catch, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';

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
      return HttpStatus.CONFLICT;
  }
}

/** An HTTP-level refusal raised before the application is reached (auth, body parsing, routing). */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Writes ONAP's error body; used by the filter and by the middleware that runs before routing. */
export function sendErrorDetails(response: Response, status: number, message: string): void {
  response
    .status(status)
    .type('application/json')
    .send(JSON.stringify({ errorDetails: message }));
}

/** Every error leaves as ONAP's `{"errorDetails": "..."}` JSON; only the unexpected ones are logged as errors. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const { status, message } = this.describe(error);
    if (status >= 500) {
      this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    }
    if (response.headersSent) {
      return;
    }
    sendErrorDetails(response, status, message);
  }

  private describe(error: unknown): { status: number; message: string } {
    if (isDomainError(error)) {
      return { status: statusOf(error.code), message: error.message };
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
