import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '@acm/domain';

/** What a signed signal URL grants: signals for one element of one instance, until it expires. */
export interface SignalGrant {
  readonly compositionId: string;
  readonly instanceId: string;
  readonly elementId: string;
  /** Epoch seconds after which the token no longer grants anything. */
  readonly expiresAt: number;
}

/** How long a signed URL lives unless asked otherwise, and at most (Heat's pre-signed URLs have no expiry). */
export const SIGNAL_URL_LIFETIME = { defaultSeconds: 24 * 3600, maxSeconds: 30 * 24 * 3600 } as const;

/**
 * The HMAC key of signed signal URLs: SIGNAL_KEY as given; else derived from MSG_ENCRYPTION_KEY, else from the
 * runtime's Basic credentials, each under its own label so the derived key reveals nothing of the secret and
 * every replica with the same configuration derives the same key. Changing the source invalidates every URL.
 */
export function signalKeyOf(config: {
  readonly signalKey: string | null;
  readonly encryptionKey: string | null;
  readonly user: string;
  readonly password: string;
}): Buffer {
  if (config.signalKey !== null) {
    return Buffer.from(config.signalKey, 'utf8');
  }
  const source =
    config.encryptionKey !== null
      ? `MSG_ENCRYPTION_KEY\n${config.encryptionKey}`
      : `RUNTIME_CREDENTIALS\n${config.user}\n${config.password}`;
  return createHash('sha256').update(`acm-runtime signal url key\n${source}`).digest();
}

function mac(key: Buffer, grant: SignalGrant): string {
  const bound = `${grant.compositionId}\n${grant.instanceId}\n${grant.elementId}\n${grant.expiresAt}`;
  return createHmac('sha256', key).update(bound).digest('base64url');
}

/** The token of a signed URL: `<expiry in epoch seconds>.<base64url HMAC-SHA256 of the ids and the expiry>`. */
export function signalToken(key: Buffer, grant: SignalGrant): string {
  return `${grant.expiresAt}.${mac(key, grant)}`;
}

/**
 * Checks a token against the ids of the request, before anything is read: a malformed token is 401, one that
 * does not match (another element, a changed key, a forgery) or has expired is 403, and neither says whether the
 * element exists.
 */
export function verifySignalToken(
  key: Buffer,
  token: unknown,
  ids: Omit<SignalGrant, 'expiresAt'>,
  nowMs: number,
): void {
  const match = typeof token === 'string' ? /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token) : null;
  if (match === null) {
    throw new DomainError('UNAUTHENTICATED', 'Unauthorized: token: must be a signal token as issued by signal-url', {
      problems: [{ field: 'token', rule: 'must be <expiry>.<signature> as returned by GET .../signal-url' }],
    });
  }
  const expiresAt = Number(match[1]);
  const expected = Buffer.from(mac(key, { ...ids, expiresAt }), 'utf8');
  const given = Buffer.from(match[2]!, 'utf8');
  if (!timingSafeEqual(expected, given) || expiresAt * 1000 <= nowMs) {
    throw new DomainError('FORBIDDEN', 'Forbidden: the token does not grant signals for this element, or has expired', {
      problems: [
        { field: 'token', rule: 'must be signed for this composition, instance and element, and not expired' },
      ],
    });
  }
}
