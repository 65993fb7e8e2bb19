/**
 * kafkajs 2.2.4's request queue re-arms a timer forever on an idle connection: with nothing pending and no
 * throttle, `scheduleCheckPendingRequests` passes a negative delay to `setTimeout`, Node runs it after 1 ms, the
 * callback checks the (empty) queue and schedules itself again. Every broker connection of every client spins
 * like this (upstream tulios/kafkajs#1556, #1604, #1704; the fix proposed in tulios/kafkajs#1667 is unmerged).
 *
 * The fix carried here is the upstream one, applied once to kafkajs's own class: arm the timer only when a request
 * is pending. `push` schedules the check whenever it queues a request, and a response or a timeout re-checks the
 * queue, so nothing waits on the timer when the queue is empty. A throttle with requests pending is unchanged: the
 * check runs when the throttle ends (or after 10 ms when the throttle ends "now", as kafkajs#1532 requires).
 *
 * It is guarded: only kafkajs 2.2.x with the known method body is patched; anything else is left as it is and
 * reported, so an upgrade that fixed (or changed) the method is never patched blindly.
 */
/** kafkajs's RequestQueue, as far as the fix needs it. */
export interface KafkajsRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

export type KafkajsRequestQueueClass = {
  prototype: KafkajsRequestQueue;
} & (new (options: Record<string, unknown>) => KafkajsRequestQueue);

export type IdleLoopFixResult =
  | { readonly applied: true; readonly version: string }
  | { readonly applied: false; readonly version: string; readonly reason: string };

/** kafkajs's delay before re-checking a queue whose throttle has just ended (its CHECK_PENDING_REQUESTS_INTERVAL). */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;
const PATCHED = Symbol.for('acm.kafkajs.requestQueue.idleLoopFixed');
/** Fragments of kafkajs 2.2.4's method that make it the known, looping one. */
const KNOWN_BODY = ['this.throttledUntil - Date.now()', 'this.pending.length > 0', 'setTimeout('];

/** kafkajs's version and RequestQueue class: the same module instance `import ... from 'kafkajs'` uses. */
export function loadKafkajsRequestQueue(): { version: string; RequestQueue: KafkajsRequestQueueClass } {
  // kafkajs has no "exports" map and no types for its internals: a plain require of its own files.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('kafkajs/package.json') as { version: string };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RequestQueue = require('kafkajs/src/network/requestQueue') as KafkajsRequestQueueClass;
  return { version, RequestQueue };
}

/** The fixed method: a timer only when a request waits. */
function scheduleCheckPendingRequests(this: KafkajsRequestQueue): void {
  if (this.pending.length === 0 || this.throttleCheckTimeoutId) {
    return;
  }
  const untilUnthrottled = this.throttledUntil - Date.now();
  const delay = untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delay);
}

/** Applies the fix to the given RequestQueue class (once), if it is the known version and method. */
export function fixKafkajsIdleLoop(version: string, RequestQueue: KafkajsRequestQueueClass): IdleLoopFixResult {
  const prototype = RequestQueue.prototype as KafkajsRequestQueue & { [PATCHED]?: true };
  if (prototype[PATCHED]) {
    return { applied: true, version };
  }
  if (!/^2\.2\.\d+$/.test(version)) {
    return { applied: false, version, reason: `kafkajs ${version} is not the 2.2.x this fix was written for` };
  }
  const original: unknown = Object.getOwnPropertyDescriptor(prototype, 'scheduleCheckPendingRequests')?.value;
  const source = typeof original === 'function' ? Function.prototype.toString.call(original) : '';
  if (!KNOWN_BODY.every((fragment) => source.includes(fragment))) {
    return { applied: false, version, reason: 'RequestQueue.scheduleCheckPendingRequests is not the known method' };
  }
  prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  prototype[PATCHED] = true;
  return { applied: true, version };
}

let installed: IdleLoopFixResult | undefined;

/** Fixes the kafkajs this process loads (once per process); the result says whether it did and why not. */
export function installKafkajsIdleLoopFix(): IdleLoopFixResult {
  if (installed === undefined) {
    try {
      const { version, RequestQueue } = loadKafkajsRequestQueue();
      installed = fixKafkajsIdleLoop(version, RequestQueue);
    } catch (error) {
      installed = { applied: false, version: 'unknown', reason: `kafkajs's RequestQueue not found: ${String(error)}` };
    }
  }
  return installed;
}
