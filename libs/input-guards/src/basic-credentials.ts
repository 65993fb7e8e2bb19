import { createHash, timingSafeEqual } from 'node:crypto';

/** The user name and password a server accepts. */
export interface BasicCredentials {
  readonly user: string;
  readonly password: string;
}

/** `Basic` and one token68 of base64 (RFC 7617), nothing before or after it. */
const BASIC_HEADER = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;

/**
 * Both sides are hashed to a fixed length first, so the comparison takes the same time whatever the lengths, and the
 * user name and password are always both compared, so the time does not tell whether the user name was right.
 */
function sameSecret(given: string, expected: string): boolean {
  const left = createHash('sha256').update(given, 'utf8').digest();
  const right = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(left, right);
}

/**
 * True when an `Authorization` header carries exactly the expected HTTP Basic credentials. A header with anything
 * after the base64 token (`Basic <valid> junk`), or whose token does not decode to `user:password`, is refused.
 */
export function basicCredentialsMatch(header: string | undefined, expected: BasicCredentials): boolean {
  const given = basicCredentialsOf(header);
  const userMatches = sameSecret(given?.user ?? '', expected.user);
  const passwordMatches = sameSecret(given?.password ?? '', expected.password);
  return given !== null && userMatches && passwordMatches;
}

/** The user name and password of an HTTP Basic `Authorization` header, or null when it is not one. */
export function basicCredentialsOf(header: string | undefined): BasicCredentials | null {
  const token = BASIC_HEADER.exec(header ?? '')?.[1];
  const decoded = token !== undefined && token.length % 4 !== 1 ? Buffer.from(token, 'base64').toString('utf8') : '';
  const separator = decoded.indexOf(':');
  const user = separator > 0 ? decoded.slice(0, separator) : '';
  const password = separator > 0 ? decoded.slice(separator + 1) : '';
  return separator > 0 ? { user, password } : null;
}
