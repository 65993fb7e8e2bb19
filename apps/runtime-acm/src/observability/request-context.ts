import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestActor } from '@acm/domain';

/** What every log line written while serving one request or one participant message carries. */
export interface RequestContext {
  /** X-ONAP-RequestID of the REST request, when the work started from one. */
  readonly requestId?: string;
  /** The user of HTTP Basic auth. */
  readonly user?: string;
  /** The participant message being handled (its messageType), when the work started from Kafka. */
  readonly messageType?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `work` with `context` visible to everything it calls, synchronously or not. */
export function withRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The context of the work in progress, if any. */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/** The actor of history events the current REST request causes: its user and request id; null outside a request. */
export function requestActor(): RequestActor | null {
  const context = storage.getStore();
  if (context?.requestId === undefined) {
    return null;
  }
  return { kind: 'request', user: context.user ?? null, requestId: context.requestId };
}
