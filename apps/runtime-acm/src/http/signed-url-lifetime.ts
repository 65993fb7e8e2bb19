import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { excerpt } from '@acm/input-guards';
import { SIGNAL_URL_LIFETIME } from '../security/signal-token';
import { invalid } from './request-parsing';

/** The `expiresIn` query of a route that hands out a signed URL: whole seconds within the signed URLs' bounds. */
export function parseSignedUrlLifetime(value: unknown): number {
  if (value === undefined || value === '') {
    return SIGNAL_URL_LIFETIME.defaultSeconds;
  }
  const seconds = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > SIGNAL_URL_LIFETIME.maxSeconds) {
    throw invalid(
      `expiresIn: must be a number of seconds from 1 to ${SIGNAL_URL_LIFETIME.maxSeconds}, got ${excerpt(value)}`,
    );
  }
  return seconds;
}

/** Documents the `expiresIn` query that {@link parseSignedUrlLifetime} reads. */
export function ApiSignedUrlLifetime(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'expiresIn',
      required: false,
      description: `Seconds the URL stays valid (default ${SIGNAL_URL_LIFETIME.defaultSeconds}, at most ${SIGNAL_URL_LIFETIME.maxSeconds})`,
    }),
  );
}
