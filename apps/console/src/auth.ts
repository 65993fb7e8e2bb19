/**
 * How the console authenticates. The runtime's `v2/console/config` says: HTTP Basic (the browser asks and sends the
 * credentials itself), or the OpenID Connect provider, where the console signs in with the authorization-code flow
 * and PKCE (RFC 7636) as a public client. A few lines of WebCrypto rather than a library: the flow needs one
 * redirect, one token request and a SHA-256, and the console bundles nothing it does not use.
 * The token lives in sessionStorage (this tab only, gone when it closes), never in localStorage or a URL.
 */

export interface ConsoleOidc {
  readonly issuer: string;
  readonly clientId: string;
  readonly scopes: string;
}

interface Session {
  readonly accessToken: string;
  readonly idToken: string | null;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
  readonly user: string;
}

/** What a sign-in in progress keeps across the redirect to the provider and back. */
interface PendingSignIn {
  readonly state: string;
  readonly verifier: string;
  readonly hash: string;
}

interface ProviderMetadata {
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly end_session_endpoint?: string;
}

const SESSION_KEY = 'acm-console.session';
const PENDING_KEY = 'acm-console.sign-in';
/** A token this close to its expiry is not sent: the console signs in again first. */
const EXPIRY_MARGIN_MS = 10_000;

let oidc: ConsoleOidc | null = null;
let session: Session | null = null;
/**
 * The token came from a sign-in this page load finished: a 401 to it is not cured by signing in again (the runtime
 * refuses what the provider issues, e.g. a wrong audience), so the console shows the refusal instead of looping.
 */
let freshFromProvider = false;

export const base64Url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const randomText = (): string => base64Url(crypto.getRandomValues(new Uint8Array(32)));

/** RFC 7636's S256 challenge of a verifier. */
export async function pkceChallenge(verifier: string): Promise<string> {
  return base64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** The claims of a JWT, read for display only (the runtime checks the token; the console trusts nothing in it). */
export function jwtClaims(token: string): Record<string, unknown> {
  const payload = token.split('.')[1] ?? '';
  try {
    const binary = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const parsed: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The console's own URL without query or fragment: its redirect URI at the provider. */
const redirectUri = (): string => `${window.location.origin}${window.location.pathname}`;

async function metadata(issuer: string): Promise<ProviderMetadata> {
  const response = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) {
    throw new Error(`the OpenID provider ${issuer} answered ${response.status} to its discovery`);
  }
  return (await response.json()) as ProviderMetadata;
}

function readSession(): Session | null {
  try {
    const stored = sessionStorage.getItem(SESSION_KEY);
    return stored === null ? null : (JSON.parse(stored) as Session);
  } catch {
    return null;
  }
}

const usable = (candidate: Session | null): candidate is Session =>
  candidate !== null && candidate.expiresAt - EXPIRY_MARGIN_MS > Date.now();

/** Sends the browser to the provider's sign-in page; the console comes back to `finishSignIn`. */
export async function signIn(): Promise<void> {
  if (oidc === null) {
    return;
  }
  const provider = await metadata(oidc.issuer);
  const pending: PendingSignIn = { state: randomText(), verifier: randomText(), hash: window.location.hash };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  sessionStorage.removeItem(SESSION_KEY);
  session = null;
  const url = new URL(provider.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: oidc.clientId,
    redirect_uri: redirectUri(),
    scope: oidc.scopes,
    state: pending.state,
    code_challenge: await pkceChallenge(pending.verifier),
    code_challenge_method: 'S256',
  }).toString();
  window.location.assign(url.toString());
}

/** Back from the provider with `code` and `state`: trades the code for the tokens (with the PKCE verifier). */
async function finishSignIn(config: ConsoleOidc, query: URLSearchParams): Promise<Session> {
  const pendingText = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = pendingText === null ? null : (JSON.parse(pendingText) as PendingSignIn);
  const hash = pending?.hash ?? '';
  window.history.replaceState(null, '', `${redirectUri()}${hash}`);
  const error = query.get('error');
  if (error !== null) {
    throw new Error(`the OpenID provider refused the sign-in: ${query.get('error_description') ?? error}`);
  }
  if (pending === null || query.get('state') !== pending.state) {
    throw new Error('the sign-in answer does not match the sign-in this tab started (state)');
  }
  const provider = await metadata(config.issuer);
  const response = await fetch(provider.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: query.get('code') ?? '',
      redirect_uri: redirectUri(),
      client_id: config.clientId,
      code_verifier: pending.verifier,
    }),
  });
  const answer = (await response.json()) as {
    access_token?: string;
    id_token?: string;
    expires_in?: number;
    error_description?: string;
  };
  if (!response.ok || answer.access_token === undefined) {
    throw new Error(`the OpenID provider refused the token: ${answer.error_description ?? response.status}`);
  }
  const claims = jwtClaims(answer.id_token ?? answer.access_token);
  const user = claims['preferred_username'] ?? claims['sub'];
  return {
    accessToken: answer.access_token,
    idToken: answer.id_token ?? null,
    expiresAt: Date.now() + (answer.expires_in ?? 300) * 1000,
    user: typeof user === 'string' ? user : 'signed in',
  };
}

/**
 * Reads how the console authenticates and, with a provider, makes sure it holds a token: back from the provider it
 * trades the code; without a usable token it sends the browser to sign in and answers false (the page is leaving).
 */
export async function startAuthentication(): Promise<boolean> {
  const response = await fetch(new URL('../v2/console/config', window.location.href).toString(), {
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) {
    throw new Error(`the runtime answered ${response.status} to v2/console/config`);
  }
  oidc = ((await response.json()) as { oidc: ConsoleOidc | null }).oidc;
  if (oidc === null) {
    return true;
  }
  const query = new URLSearchParams(window.location.search);
  if (query.has('code') || query.has('error')) {
    session = await finishSignIn(oidc, query);
    freshFromProvider = true;
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
    return true;
  }
  const stored = readSession();
  if (usable(stored)) {
    session = stored;
    return true;
  }
  await signIn();
  return false;
}

/** The headers that authenticate a call: the bearer token when signed in through the provider, else none. */
export function authorization(): Record<string, string> {
  return session === null ? {} : { Authorization: `Bearer ${session.accessToken}` };
}

/** Whether the console signs in through the provider (its calls then carry a bearer token). */
export const usesProvider = (): boolean => oidc !== null;

/** The signed-in user's name, null under HTTP Basic. */
export const signedInUser = (): string | null => session?.user ?? null;

/**
 * Before a call: a token about to expire is not sent, the console signs in again (with the provider's session still
 * open, that is a round trip of redirects). Answers false while the page is leaving.
 */
export async function ensureFreshToken(): Promise<boolean> {
  if (oidc === null || usable(session)) {
    return true;
  }
  await signIn();
  return false;
}

/**
 * A 401 to a bearer token (expired, revoked, keys rotated away): sign in again, unless the token is the one this page
 * load just got (answers false: the caller shows the runtime's refusal).
 */
export async function refused(): Promise<boolean> {
  if (oidc === null || freshFromProvider) {
    return false;
  }
  await signIn();
  return true;
}

/** Forgets the token and ends the provider's session, back to the console (which then asks to sign in). */
export async function signOut(): Promise<void> {
  const idToken = session?.idToken ?? null;
  sessionStorage.removeItem(SESSION_KEY);
  session = null;
  if (oidc === null) {
    return;
  }
  const provider = await metadata(oidc.issuer);
  if (provider.end_session_endpoint === undefined) {
    window.location.assign(redirectUri());
    return;
  }
  const url = new URL(provider.end_session_endpoint);
  url.search = new URLSearchParams({
    client_id: oidc.clientId,
    post_logout_redirect_uri: redirectUri(),
    ...(idToken === null ? {} : { id_token_hint: idToken }),
  }).toString();
  window.location.assign(url.toString());
}
