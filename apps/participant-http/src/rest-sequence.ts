/**
 * Runs the REST calls of an element's configuration entities in order and judges them as ONAP's http participant
 * does: a call succeeds when its status is its `expectedResponse`; a call without an answer counts as status 404
 * with the error's text; the element fails when any call failed, with ONAP's message
 * `Error on Invoking the http request: [(status,body), …]`, followed by the calls that failed.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';

import { ResourceCallFailedError, withRetry } from '@acm/participant-sdk/provider';
import type { ParticipantLogger, ParticipantTimers } from '@acm/participant-sdk';

import { headerProblem } from './config-request';
import type { ConfigRequest, RestCall, SecretSource } from './config-request';
import { CallError, callUrl, send, shownUrl } from './rest-client';
import type { CallAnswer, TlsMaterial } from './rest-client';

/** ONAP's prefix of a failed deploy's message. */
export const INVOKE_ERROR = 'Error on Invoking the http request: ';
/** Only environment variables with this prefix may be read into headers (element properties come from the runtime). */
export const SECRET_ENV_PREFIX = 'HTTP_SECRET_';
/** The statuses retried under the opt-in `retry` when they are not the call's expected status. */
export const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** How much of an answer's body a message quotes. */
const BODY_EXCERPT = 200;

/** Where secrets come from: the participant's environment and one directory of files. */
export interface SecretSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** HTTP_SECRETS_DIR: files named by `httpHeadersFrom` and `tls` are read from here only. */
  readonly dir?: string;
}

export interface SequenceContext {
  readonly logger: ParticipantLogger;
  readonly timers: ParticipantTimers;
  readonly secrets: SecretSources;
  readonly signal: AbortSignal;
  /** Milliseconds since an arbitrary origin, for durations and the element deadline. */
  readonly now: () => number;
}

/** One call as recorded in `outProperties.httpCalls` (opt-in `recordCalls`): never a header or a body. */
export interface CallRecord {
  entity: string;
  request: string;
  method: string;
  url: string;
  status: number | null;
  ok: boolean;
  attempts: number;
  durationMs: number;
  error?: string;
}

export interface SequenceOutcome {
  readonly ok: boolean;
  readonly message?: string;
  readonly outProperties: Record<string, unknown>;
}

/** A transient status, thrown inside the retry so the provider kit's retry sees it. */
class TransientStatus extends Error {
  constructor(readonly answer: CallAnswer) {
    super(`status ${answer.status}`);
  }

  get status(): number {
    return this.answer.status;
  }
}

/** A secret or TLS file that cannot be used: the element fails, naming the property, never the value. */
class SecretError extends Error {}

function fileIn(dir: string | undefined, file: string, where: string): string {
  if (dir === undefined) {
    throw new SecretError(`${where}: HTTP_SECRETS_DIR is not set, so no file is read`);
  }
  const path = resolve(dir, file);
  const inside = relative(resolve(dir), path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new SecretError(`${where}: "${file}" is outside HTTP_SECRETS_DIR`);
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new SecretError(`${where}: cannot read "${file}" in HTTP_SECRETS_DIR (${code})`);
  }
}

function secretValue(name: string, source: SecretSource, secrets: SecretSources): string {
  const where = `httpHeadersFrom.${name}`;
  let value: string;
  if ('env' in source) {
    if (!source.env.startsWith(SECRET_ENV_PREFIX)) {
      throw new SecretError(`${where}.env: only variables named ${SECRET_ENV_PREFIX}* are read`);
    }
    const found = secrets.env[source.env];
    if (found === undefined) {
      throw new SecretError(`${where}.env: ${source.env} is not set`);
    }
    value = found;
  } else {
    value = fileIn(secrets.dir, source.file, `${where}.file`);
  }
  // A file usually ends with a line break; anything else in it breaks the header rule.
  value = value.replace(/\r?\n$/, '');
  if (headerProblem(name, value, 'httpHeadersFrom') !== undefined) {
    throw new SecretError(`${where}: the value must not contain a line break or control character`);
  }
  return value;
}

/** The headers and TLS material of the calls, secrets read now (and held only for the calls). */
function callSettings(
  request: ConfigRequest,
  secrets: SecretSources,
): { headers: Record<string, string>; tls: TlsMaterial } {
  const headers: Record<string, string> = { ...request.httpHeaders };
  for (const [name, source] of Object.entries(request.secretHeaders)) {
    headers[name] = secretValue(name, source, secrets);
  }
  const tls: { -readonly [K in keyof TlsMaterial]: TlsMaterial[K] } = {};
  if (request.tls?.caFile !== undefined) {
    tls.ca = fileIn(secrets.dir, request.tls.caFile, 'tls.caFile');
  }
  if (request.tls?.certFile !== undefined && request.tls.keyFile !== undefined) {
    tls.cert = fileIn(secrets.dir, request.tls.certFile, 'tls.certFile');
    tls.key = fileIn(secrets.dir, request.tls.keyFile, 'tls.keyFile');
  }
  return { headers, tls };
}

/** RFC 6901 resolution; `undefined` when the pointer matches nothing. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  if (pointer === '') {
    return document;
  }
  let current: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(token)) {
      current = current[Number(token)];
    } else if (typeof current === 'object' && current !== null && !Array.isArray(current)) {
      current = Object.prototype.hasOwnProperty.call(current, token)
        ? (current as Record<string, unknown>)[token]
        : undefined;
    } else {
      return undefined;
    }
    if (current === undefined) {
      return undefined;
    }
  }
  return current;
}

function captured(call: RestCall, body: string, into: Record<string, unknown>): string | undefined {
  const entries = Object.entries(call.capture);
  if (entries.length === 0) {
    return undefined;
  }
  let document: unknown;
  try {
    document = JSON.parse(body) as unknown;
  } catch {
    return `${call.where}.capture: the answer is not JSON, so no pointer can match`;
  }
  for (const [key, pointer] of entries) {
    const value = resolvePointer(document, pointer);
    if (value === undefined) {
      return `${call.where}.capture.${key}: the pointer "${pointer}" matches nothing in the answer`;
    }
    into[key] = value;
  }
  return undefined;
}

interface CallResult {
  /** ONAP's pair: the status (404 when there was no answer) and the body or the error's text. */
  readonly status: number;
  readonly text: string;
  readonly record: CallRecord;
  /** Why the call failed, for the message's list; absent on success. */
  readonly failure?: string;
}

function excerptOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BODY_EXCERPT ? `${flat.slice(0, BODY_EXCERPT)}…` : flat;
}

/** The element's opt-in `timeoutMs`, shared by its calls. */
interface ElementBudget {
  readonly deadline: number | undefined;
  spent: boolean;
}

async function runCall(
  request: ConfigRequest,
  entity: string,
  call: RestCall,
  settings: { headers: Record<string, string>; tls: TlsMaterial },
  budget: ElementBudget,
  context: SequenceContext,
  outProperties: Record<string, unknown>,
): Promise<CallResult> {
  const url = callUrl(request.baseUrl, call);
  const shown = shownUrl(url);
  const started = context.now();
  const record: CallRecord = {
    entity,
    request: call.id,
    method: call.method,
    url: shown,
    status: null,
    ok: false,
    attempts: 0,
    durationMs: 0,
  };
  const finish = (status: number, text: string, failure?: string): CallResult => {
    record.durationMs = Math.max(0, Math.round(context.now() - started));
    record.ok = failure === undefined;
    if (failure !== undefined) {
      record.error = failure;
    }
    context.logger(failure === undefined ? 'info' : 'warn', 'HTTP call', {
      entity,
      request: call.id,
      method: call.method,
      url: shown,
      status: record.status,
      durationMs: record.durationMs,
      attempts: record.attempts,
      ...(failure === undefined ? {} : { failure }),
    });
    return { status, text, record, ...(failure === undefined ? {} : { failure }) };
  };
  const remaining = budget.deadline === undefined ? undefined : Math.ceil(budget.deadline - context.now());
  if (budget.spent || (remaining !== undefined && remaining <= 0)) {
    return finish(404, 'element timeout passed', `timeoutMs: the element's ${request.elementTimeoutMs} ms passed`);
  }
  const callLimit = call.timeoutMs ?? request.callTimeoutMs;
  const timeoutMs = Math.min(callLimit, remaining ?? Number.MAX_SAFE_INTEGER);
  // A timer may fire a fraction of a millisecond before the clock reads the deadline: a call cut by the element's
  // limit spends the budget, so the calls after it are not sent with a sliver of time.
  const cutByElement = remaining !== undefined && remaining < callLimit;
  const attempt = async (): Promise<CallAnswer> => {
    record.attempts += 1;
    const answer = await send(url, call, {
      headers: settings.headers,
      tls: settings.tls,
      timeoutMs,
      signal: context.signal,
    });
    if (
      request.retry !== undefined &&
      answer.status !== call.expectedResponse &&
      TRANSIENT_STATUSES.has(answer.status)
    ) {
      throw new TransientStatus(answer);
    }
    return answer;
  };
  let answer: CallAnswer;
  try {
    answer =
      request.retry === undefined
        ? await attempt()
        : await withRetry(`${call.method} ${shown}`, call.method === 'GET' ? 'read' : 'write', attempt, {
            policy: request.retry,
            timers: context.timers,
            signal: context.signal,
            isTransient: (error) =>
              error instanceof TransientStatus || (error instanceof CallError && error.code === 'ECONNREFUSED'),
          });
  } catch (thrown) {
    const error = thrown instanceof ResourceCallFailedError ? thrown.lastError : thrown;
    if (error instanceof TransientStatus) {
      answer = error.answer;
    } else {
      const text = error instanceof Error ? error.message : String(error);
      if (cutByElement && error instanceof CallError && error.code === 'ETIMEDOUT') {
        budget.spent = true;
      }
      return finish(404, text, `${call.method} ${shown}: no answer (${text})`);
    }
  }
  record.status = answer.status;
  if (answer.status !== call.expectedResponse) {
    return finish(
      answer.status,
      excerptOf(answer.body),
      `${call.method} ${shown}: status ${answer.status}, expected ${call.expectedResponse}`,
    );
  }
  const captureProblem = captured(call, answer.body, outProperties);
  if (captureProblem !== undefined) {
    return finish(answer.status, excerptOf(answer.body), captureProblem);
  }
  return finish(answer.status, excerptOf(answer.body));
}

export type SequenceKind = 'restSequence' | 'undeployRestSequence' | 'updateRestSequence';

/**
 * Runs `kind` of every entity: the entities in order for `restSequence`, in reverse order for the undeploy and
 * update sequences; the calls of each in order. Like ONAP, every call runs even after one failed; the opt-in element
 * `timeoutMs` marks the calls it leaves no time for as failed.
 */
export async function runSequences(
  request: ConfigRequest,
  kind: SequenceKind,
  context: SequenceContext,
): Promise<SequenceOutcome> {
  let settings: { headers: Record<string, string>; tls: TlsMaterial };
  try {
    settings = callSettings(request, context.secrets);
  } catch (error) {
    if (error instanceof SecretError) {
      return { ok: false, message: error.message, outProperties: {} };
    }
    throw error;
  }
  const entities =
    kind === 'restSequence' ? request.configurationEntities : [...request.configurationEntities].reverse();
  const budget: ElementBudget = {
    deadline: request.elementTimeoutMs === undefined ? undefined : context.now() + request.elementTimeoutMs,
    spent: false,
  };
  const outProperties: Record<string, unknown> = {};
  const results: CallResult[] = [];
  for (const entity of entities) {
    for (const call of entity[kind] ?? []) {
      if (context.signal.aborted) {
        break;
      }
      results.push(await runCall(request, entity.id, call, settings, budget, context, outProperties));
    }
  }
  if (request.recordCalls) {
    outProperties['httpCalls'] = results.map((result) => result.record);
  }
  const failed = results.filter((result) => result.failure !== undefined);
  if (failed.length === 0) {
    return { ok: true, outProperties };
  }
  const pairs = failed.map((result) => `(${result.status},${result.text})`).join(', ');
  const why = failed.map((result) => `${result.record.entity} ${result.record.request}: ${result.failure}`).join('; ');
  return { ok: false, message: `${INVOKE_ERROR}[${pairs}]; failed calls: ${why}`, outProperties };
}
