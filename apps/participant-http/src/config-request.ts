/**
 * The element properties of ONAP's HTTP element type (`org.onap.policy.clamp.acm.HttpAutomationCompositionElement`),
 * read into a checked request: ONAP's `ConfigRequest` / `ConfigurationEntity` / `RestParams`, plus the opt-in
 * properties ONAP's files never set (timeouts, retries, undeploy and update sequences, capture, TLS, secret headers,
 * call recording). Pure: no I/O. Every refusal names the property's path and the rule it breaks.
 */

/** ONAP's `uninitializedToPassiveTimeout` default (seconds), the time each call may take when nothing else is set. */
export const DEFAULT_CALL_TIMEOUT_SECONDS = 20;

/** The methods a call may use: the TOSCA data type's list, and the other standard ones. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Where a header value comes from when it is a secret: an environment variable or a file of the participant. */
export type SecretSource = { readonly env: string } | { readonly file: string };

export interface RestCall {
  /** `name:version` of ONAP's `restRequestId`. */
  readonly id: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly pathParams: Readonly<Record<string, string>>;
  readonly queryParams: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly expectedResponse: number;
  /** Opt-in `timeoutMs`: this call's limit; default the element's `uninitializedToPassiveTimeout` seconds. */
  readonly timeoutMs?: number;
  /** Opt-in `capture`: outProperties key → JSON pointer into the answer's body. */
  readonly capture: Readonly<Record<string, string>>;
  /** The property path of the call, for messages. */
  readonly where: string;
}

export interface ConfigurationEntity {
  /** `name:version` of ONAP's `configurationEntityId`. */
  readonly id: string;
  readonly restSequence: readonly RestCall[];
  /** Opt-in: run on undeploy (entities in reverse order). */
  readonly undeployRestSequence?: readonly RestCall[];
  /** Opt-in: run on update (entities in reverse order). */
  readonly updateRestSequence?: readonly RestCall[];
}

export interface TlsOptions {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

export interface RetrySettings {
  readonly retries: number;
  readonly baseDelayMs: number;
}

export interface ConfigRequest {
  readonly baseUrl: URL;
  readonly httpHeaders: Readonly<Record<string, string>>;
  /** Opt-in `httpHeadersFrom`: header name → secret source, read when the calls run, never logged. */
  readonly secretHeaders: Readonly<Record<string, SecretSource>>;
  readonly configurationEntities: readonly ConfigurationEntity[];
  /** ONAP's per-call limit: `uninitializedToPassiveTimeout` seconds. */
  readonly callTimeoutMs: number;
  /** Opt-in `timeoutMs` of the element: the whole sequence's limit. */
  readonly elementTimeoutMs?: number;
  /** Opt-in `retry`: transient failures retried with backoff; absent: no retry (ONAP). */
  readonly retry?: RetrySettings;
  readonly tls?: TlsOptions;
  /** Opt-in `recordCalls`: every call is written to the element's outProperties `httpCalls`. */
  readonly recordCalls: boolean;
}

/** ONAP's texts: a property that does not convert, and one that breaks a constraint. */
export const EXTRACT_ERROR = 'Error extracting ConfigRequest ';
export const CONSTRAINT_ERROR = 'Constraint violations in the config request';

export type ConfigRefusal = { readonly ok: false; readonly message: string };
export type ConfigReading = { readonly ok: true; readonly request: ConfigRequest } | ConfigRefusal;

/** A property that does not have the shape its type needs (ONAP: Jackson cannot convert it). */
class ExtractError extends Error {}
/** A property of the right shape whose value breaks a rule (ONAP: a bean validation violation). */
class ConstraintError extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Jackson converts numbers and booleans to a String field; anything else does not convert. */
function scalarText(value: unknown, where: string): string {
  if (typeof value === 'string') {
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  throw new ExtractError(`${where}: must be a string`);
}

function stringMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined || value === null) {
    return {};
  }
  if (!isObject(value)) {
    throw new ExtractError(`${where}: must be a map of strings`);
  }
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    result[key] = scalarText(entry, `${where}.${key}`);
  }
  return result;
}

function integerIn(value: unknown, where: string, min: number, max: number): number {
  const parsed = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isInteger(parsed)) {
    throw new ExtractError(`${where}: must be an integer`);
  }
  if (parsed < min || parsed > max) {
    throw new ConstraintError(`${where}: must be between ${min} and ${max}, got ${parsed}`);
  }
  return parsed;
}

function identifier(value: unknown, where: string): string {
  if (!isObject(value)) {
    throw new ConstraintError(`${where}: must not be null (a {name, version})`);
  }
  const name = value['name'];
  const version = value['version'];
  if (typeof name !== 'string' || typeof version !== 'string') {
    throw new ExtractError(`${where}: name and version must be strings`);
  }
  return `${name}:${version}`;
}

/** A header name is an HTTP token; a value holds no line break or control character (header injection). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex -- the rule is exactly "no control character"
const HEADER_VALUE_FORBIDDEN = /[\u0000-\u0008\u000a-\u001f\u007f]/;

export function headerProblem(name: string, value: string, where: string): string | undefined {
  if (!HEADER_NAME.test(name)) {
    return `${where}: header name "${name}" is not an HTTP token`;
  }
  if (HEADER_VALUE_FORBIDDEN.test(value)) {
    return `${where}.${name}: a header value must not contain a line break or control character`;
  }
  return undefined;
}

/** RFC 6901: `""` or `/a/b`; `~` only as `~0` or `~1`. */
const JSON_POINTER = /^(\/([^~]|~[01])*)*$/;

function restCall(value: unknown, where: string): RestCall {
  if (!isObject(value)) {
    throw new ExtractError(`${where}: must be a REST request (a map)`);
  }
  const id = identifier(value['restRequestId'], `${where}.restRequestId`);
  const method = value['httpMethod'];
  if (method === undefined || method === null) {
    throw new ConstraintError(`${where}.httpMethod: must not be null`);
  }
  const upper = scalarText(method, `${where}.httpMethod`).toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(upper)) {
    throw new ConstraintError(`${where}.httpMethod: must be one of ${HTTP_METHODS.join(', ')}, got "${upper}"`);
  }
  const path = value['path'];
  if (path === undefined || path === null) {
    throw new ConstraintError(`${where}.path: must not be null`);
  }
  if (value['expectedResponse'] === undefined || value['expectedResponse'] === null) {
    throw new ConstraintError(`${where}.expectedResponse: must be between 100 and 599, got nothing`);
  }
  const call: {
    -readonly [K in keyof RestCall]: RestCall[K];
  } = {
    id,
    method: upper as HttpMethod,
    path: scalarText(path, `${where}.path`),
    pathParams: stringMap(value['pathParams'], `${where}.pathParams`),
    queryParams: stringMap(value['queryParams'], `${where}.queryParams`),
    expectedResponse: integerIn(value['expectedResponse'], `${where}.expectedResponse`, 100, 599),
    capture: {},
    where,
  };
  const body = value['body'];
  if (body !== undefined && body !== null) {
    if (typeof body !== 'string') {
      throw new ExtractError(`${where}.body: must be a string (write a JSON body as a quoted string)`);
    }
    call.body = body;
  }
  if (value['timeoutMs'] !== undefined) {
    call.timeoutMs = integerIn(value['timeoutMs'], `${where}.timeoutMs`, 1, 3_600_000);
  }
  const capture = stringMap(value['capture'], `${where}.capture`);
  for (const [key, pointer] of Object.entries(capture)) {
    if (!JSON_POINTER.test(pointer)) {
      throw new ConstraintError(`${where}.capture.${key}: "${pointer}" is not a JSON pointer (RFC 6901)`);
    }
  }
  call.capture = capture;
  const placeholders = [...call.path.matchAll(/\{([^}]*)\}/g)].map((match) => match[1] ?? '');
  const missing = placeholders.filter((name) => !(name in call.pathParams));
  if (missing.length > 0) {
    throw new ConstraintError(`${where}.pathParams: no value for {${missing.join('}, {')}} of path "${call.path}"`);
  }
  return call;
}

function sequence(value: unknown, where: string): RestCall[] {
  if (!Array.isArray(value)) {
    throw new ExtractError(`${where}: must be a list of REST requests`);
  }
  return value.map((entry, index) => restCall(entry, `${where}[${index}]`));
}

function entity(value: unknown, where: string): ConfigurationEntity {
  if (!isObject(value)) {
    throw new ExtractError(`${where}: must be a configuration entity (a map)`);
  }
  const id = identifier(value['configurationEntityId'], `${where}.configurationEntityId`);
  if (value['restSequence'] === undefined || value['restSequence'] === null) {
    throw new ConstraintError(`${where}.restSequence: must not be null`);
  }
  const result: { -readonly [K in keyof ConfigurationEntity]: ConfigurationEntity[K] } = {
    id,
    restSequence: sequence(value['restSequence'], `${where}.restSequence`),
  };
  if (value['undeployRestSequence'] !== undefined) {
    result.undeployRestSequence = sequence(value['undeployRestSequence'], `${where}.undeployRestSequence`);
  }
  if (value['updateRestSequence'] !== undefined) {
    result.updateRestSequence = sequence(value['updateRestSequence'], `${where}.updateRestSequence`);
  }
  return result;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function secretHeaders(value: unknown): Record<string, SecretSource> {
  if (value === undefined) {
    return {};
  }
  if (!isObject(value)) {
    throw new ExtractError('httpHeadersFrom: must be a map of header name → {env} or {file}');
  }
  const result: Record<string, SecretSource> = {};
  for (const [name, source] of Object.entries(value)) {
    const where = `httpHeadersFrom.${name}`;
    const nameProblem = headerProblem(name, '', 'httpHeadersFrom');
    if (nameProblem !== undefined) {
      throw new ConstraintError(nameProblem);
    }
    if (isObject(source) && typeof source['env'] === 'string' && source['file'] === undefined) {
      if (!ENV_NAME.test(source['env'])) {
        throw new ConstraintError(`${where}.env: "${source['env']}" is not an environment variable name`);
      }
      result[name] = { env: source['env'] };
    } else if (isObject(source) && typeof source['file'] === 'string' && source['env'] === undefined) {
      result[name] = { file: source['file'] };
    } else {
      throw new ExtractError(`${where}: must be {env: NAME} or {file: name}`);
    }
  }
  return result;
}

function tlsOptions(value: unknown): TlsOptions | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!isObject(value)) {
    throw new ExtractError('tls: must be a map of caFile, certFile, keyFile');
  }
  const result: { -readonly [K in keyof TlsOptions]: TlsOptions[K] } = {};
  for (const key of ['caFile', 'certFile', 'keyFile'] as const) {
    const entry = value[key];
    if (entry !== undefined) {
      result[key] = scalarText(entry, `tls.${key}`);
    }
  }
  if ((result.certFile === undefined) !== (result.keyFile === undefined)) {
    throw new ConstraintError('tls: certFile and keyFile go together (a client certificate needs its key)');
  }
  return result;
}

function retrySettings(value: unknown): RetrySettings | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!isObject(value)) {
    throw new ExtractError('retry: must be a map {retries, baseDelayMs}');
  }
  return {
    retries: integerIn(value['retries'] ?? 3, 'retry.retries', 0, 10),
    baseDelayMs: integerIn(value['baseDelayMs'] ?? 1000, 'retry.baseDelayMs', 1, 600_000),
  };
}

function baseUrl(value: unknown): URL {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    throw new ConstraintError('baseUrl: must not be blank');
  }
  const text = scalarText(value, 'baseUrl').trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConstraintError('baseUrl: must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConstraintError(`baseUrl: must be an http or https URL, got the scheme "${url.protocol}"`);
  }
  return url;
}

/**
 * Reads the merged element properties (the definition's, then the instance's on top, as ONAP merges them). A
 * missing `httpHeaders` is an empty map and a missing `uninitializedToPassiveTimeout` is 20 s, where ONAP's bean
 * validation refuses both (docs/compatibility.md).
 */
export function readConfigRequest(properties: Readonly<Record<string, unknown>>): ConfigReading {
  try {
    const url = baseUrl(properties['baseUrl']);
    const headers = stringMap(properties['httpHeaders'], 'httpHeaders');
    for (const [name, value] of Object.entries(headers)) {
      const problem = headerProblem(name, value, 'httpHeaders');
      if (problem !== undefined) {
        throw new ConstraintError(problem);
      }
    }
    const entities = properties['configurationEntities'];
    if (entities === undefined || entities === null) {
      throw new ConstraintError('configurationEntities: must not be null');
    }
    // The TOSCA type declares a map; ONAP's files (and its model) use a list. Both are read, a map in its order.
    const list = Array.isArray(entities) ? entities : isObject(entities) ? Object.values(entities) : undefined;
    if (list === undefined) {
      throw new ExtractError('configurationEntities: must be a list of configuration entities');
    }
    const timeoutSeconds =
      properties['uninitializedToPassiveTimeout'] === undefined
        ? DEFAULT_CALL_TIMEOUT_SECONDS
        : integerIn(properties['uninitializedToPassiveTimeout'], 'uninitializedToPassiveTimeout', 1, 86_400);
    const request: { -readonly [K in keyof ConfigRequest]: ConfigRequest[K] } = {
      baseUrl: url,
      httpHeaders: headers,
      secretHeaders: secretHeaders(properties['httpHeadersFrom']),
      configurationEntities: list.map((each, index) => entity(each, `configurationEntities[${index}]`)),
      callTimeoutMs: timeoutSeconds * 1000,
      recordCalls: properties['recordCalls'] === true,
    };
    if (properties['timeoutMs'] !== undefined) {
      request.elementTimeoutMs = integerIn(properties['timeoutMs'], 'timeoutMs', 1, 86_400_000);
    }
    const retry = retrySettings(properties['retry']);
    if (retry !== undefined) {
      request.retry = retry;
    }
    const tls = tlsOptions(properties['tls']);
    if (tls !== undefined) {
      request.tls = tls;
    }
    return { ok: true, request };
  } catch (error) {
    if (error instanceof ExtractError) {
      return { ok: false, message: `${EXTRACT_ERROR.trimEnd()}: ${error.message}` };
    }
    if (error instanceof ConstraintError) {
      return { ok: false, message: `${CONSTRAINT_ERROR}: ${error.message}` };
    }
    throw error;
  }
}
