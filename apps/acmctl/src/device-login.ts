import { AcmctlError, EXIT } from './exit-codes';

/** The OAuth 2.0 device authorization grant (RFC 8628): acmctl signs in without a browser of its own. */
export interface DeviceLoginOptions {
  /** The OpenID Connect issuer (its discovery document names the endpoints). */
  readonly issuer: string;
  /** The provider's public client of acmctl (no secret: a command line cannot keep one). */
  readonly clientId: string;
  readonly scope: string;
  /** Told the verification URL and the code the user enters there. */
  readonly prompt: (verification: { uri: string; uriComplete: string | null; userCode: string }) => void;
  /** Waits between two polls of the token endpoint (the provider's interval, RFC 8628 section 3.5). */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface DeviceLoginResult {
  readonly accessToken: string;
  /** Milliseconds since the epoch, when the provider said. */
  readonly expiresAt: number | null;
}

interface Discovery {
  readonly device_authorization_endpoint?: string;
  readonly token_endpoint?: string;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function postForm(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams(form),
    });
  } catch (error) {
    throw new AcmctlError(EXIT.UNREACHABLE, `cannot reach the OpenID provider at ${url}: ${String(error)}`);
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    throw new AcmctlError(EXIT.SERVER_ERROR, `the OpenID provider answered ${response.status} without JSON at ${url}`);
  }
}

async function discover(issuer: string): Promise<{ device: string; token: string }> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let discovery: Discovery;
  try {
    const response = await fetch(url, { headers: { Accept: 'application/json' } });
    if (!response.ok) {
      throw new Error(`answered ${response.status}`);
    }
    discovery = (await response.json()) as Discovery;
  } catch (error) {
    throw new AcmctlError(
      EXIT.UNREACHABLE,
      `cannot read the OpenID provider's discovery document ${url}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (discovery.device_authorization_endpoint === undefined || discovery.token_endpoint === undefined) {
    throw new AcmctlError(EXIT.USAGE, `the OpenID provider ${issuer} offers no device authorization (RFC 8628)`);
  }
  return { device: discovery.device_authorization_endpoint, token: discovery.token_endpoint };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const seconds = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;

/**
 * Asks the provider for a device code, tells the user where to enter it, and polls the token endpoint at the
 * provider's interval (5 s more after a `slow_down`) until the user approves, refuses, or the code expires.
 */
export async function deviceLogin(options: DeviceLoginOptions): Promise<DeviceLoginResult> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const endpoints = await discover(options.issuer);
  const started = await postForm(endpoints.device, { client_id: options.clientId, scope: options.scope });
  const deviceCode = text(started.body['device_code']);
  const userCode = text(started.body['user_code']);
  const uri = text(started.body['verification_uri']);
  if (started.status !== 200 || deviceCode === null || userCode === null || uri === null) {
    throw new AcmctlError(
      EXIT.UNAUTHORIZED,
      `the OpenID provider refused a device code for client ${options.clientId}: ${describe(started.body, started.status)}`,
    );
  }
  options.prompt({ uri, uriComplete: text(started.body['verification_uri_complete']), userCode });
  let intervalS = seconds(started.body['interval'], 5);
  const deadline = Date.now() + seconds(started.body['expires_in'], 600) * 1000;
  while (Date.now() < deadline) {
    await sleep(intervalS * 1000);
    const answer = await postForm(endpoints.token, {
      grant_type: DEVICE_GRANT,
      device_code: deviceCode,
      client_id: options.clientId,
    });
    const accessToken = text(answer.body['access_token']);
    if (answer.status === 200 && accessToken !== null) {
      const expiresIn = answer.body['expires_in'];
      return { accessToken, expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : null };
    }
    const error = text(answer.body['error']);
    if (error === 'slow_down') {
      intervalS += 5;
    } else if (error !== 'authorization_pending') {
      throw new AcmctlError(EXIT.UNAUTHORIZED, `the sign-in did not complete: ${describe(answer.body, answer.status)}`);
    }
  }
  throw new AcmctlError(EXIT.TIMEOUT, 'the sign-in did not complete: the device code expired before it was approved');
}

function describe(body: Record<string, unknown>, status: number): string {
  const error = text(body['error']) ?? String(status);
  const description = text(body['error_description']);
  return description === null ? error : `${error} (${description})`;
}
