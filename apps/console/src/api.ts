import { authorization, ensureFreshToken, refused, usesProvider } from './auth';

/** REST calls to the runtime, relative to the console's own URL so any context path works. */
const API = new URL('../v2/', window.location.href).toString();

/** A refusal or failure, readable as the runtime wrote it (`errorDetails`) or as the network error. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Json = Record<string, unknown>;

export async function call<T = Json>(method: string, path: string, body?: string, contentType?: string): Promise<T> {
  if (!(await ensureFreshToken())) {
    throw new ApiError(401, 'signing in again');
  }
  let response: Response;
  try {
    response = await fetch(API + path, {
      method,
      headers: {
        ...authorization(),
        Accept: 'application/json',
        ...(body !== undefined ? { 'Content-Type': contentType ?? 'application/json' } : {}),
        // The runtime refuses a body-less order without it: no other site's page can send it (docs/http-security.md).
        ...(method !== 'GET' ? { 'X-ACM-Request': '1' } : {}),
      },
      body,
      credentials: 'same-origin',
    });
  } catch (error) {
    throw new ApiError(0, `runtime unreachable: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (response.status === 401 && usesProvider()) {
    await refused();
  }
  if (!response.ok) {
    const details =
      typeof parsed === 'object' && parsed !== null && 'errorDetails' in parsed
        ? String((parsed as Json)['errorDetails']).trim()
        : text.trim() || response.statusText;
    throw new ApiError(response.status, `${response.status}: ${details}`);
  }
  return parsed as T;
}

export const get = <T = Json>(path: string): Promise<T> => call<T>('GET', path);
export const put = (path: string, body: Json): Promise<Json> => call('PUT', path, JSON.stringify(body));

export const compositionPath = (compositionId: string): string => `compositions/${encodeURIComponent(compositionId)}`;
export const instancePath = (compositionId: string, instanceId: string): string =>
  `${compositionPath(compositionId)}/instances/${encodeURIComponent(instanceId)}`;

/** The content type of a file a user picked: YAML unless it reads as JSON. */
export function contentTypeOf(text: string): string {
  const first = text.trimStart()[0];
  return first === '{' || first === '[' ? 'application/json' : 'application/yaml';
}

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** A field of an answer as text: strings and numbers as they are, anything else as JSON, nothing as ''. */
export function text(value: unknown): string {
  if (value === undefined || value === null) {
    return '';
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);
}
