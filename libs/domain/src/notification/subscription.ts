import type { HistoryEventKind } from '../history/history-events';
import { HISTORY_EVENT_KINDS } from '../history/history-events';
import type { FeedEvent } from '../ports/event-feed.port';
import type { MetadataValues } from '../instance/metadata-filter';
import { metadataHolds } from '../instance/metadata-filter';

/** How a delivery's body is written. */
export const SUBSCRIPTION_FORMATS = ['cloudevents', 'alertmanager'] as const;
export type SubscriptionFormat = (typeof SUBSCRIPTION_FORMATS)[number];

/** Which events a subscription receives: every condition given must hold (an empty filter takes every event). */
export interface SubscriptionFilter {
  readonly kinds?: readonly HistoryEventKind[];
  readonly compositionId?: string;
  readonly instanceId?: string;
  /**
   * Only events of instances whose metadata has these values (compared as text, as a rollout's `filter.metadata`);
   * a definition's events never match it.
   */
  readonly metadata?: MetadataValues;
}

/** Where a subscription stands in the feed, and what its deliveries did. */
export interface DeliveryState {
  /** The feed position up to which every matching event was delivered (or dead-lettered). */
  readonly position: number;
  /** Failed attempts at the event after `position` (0: none yet). */
  readonly attempts: number;
  /** When the next attempt may run (epoch ms). */
  readonly nextAttemptAt: number;
  readonly delivered: number;
  readonly lastDeliveredAt: number | null;
  readonly lastError: string | null;
  /** Events given up after the last allowed attempt. */
  readonly deadLetters: number;
  readonly lastDeadLetter: { readonly eventId: string; readonly error: string; readonly at: number } | null;
}

export interface Subscription {
  readonly subscriptionId: string;
  readonly url: string;
  readonly filter: SubscriptionFilter;
  readonly format: SubscriptionFormat;
  readonly createdAt: number;
}

/** A subscription as stored: its secret never leaves the store except to sign a delivery. */
export interface StoredSubscription {
  readonly subscription: Subscription;
  readonly secret: string | null;
  readonly delivery: DeliveryState;
}

/** The retry rule of deliveries. */
export interface DeliveryRetryPolicy {
  /** Attempts at one event before it is dead-lettered. */
  readonly maxAttempts: number;
  /** The wait after the first failure; each further failure doubles it, up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** A new subscription's delivery state: it starts at the feed's head, so it receives what commits from now on. */
export function initialDelivery(head: number, now: number): DeliveryState {
  return {
    position: head,
    attempts: 0,
    nextAttemptAt: now,
    delivered: 0,
    lastDeliveredAt: null,
    lastError: null,
    deadLetters: 0,
    lastDeadLetter: null,
  };
}

/** The kinds in `names` that are no event kind of the ledger (for the refusal, which names them). */
export function unknownEventKinds(names: readonly string[]): string[] {
  const known = new Set<string>(HISTORY_EVENT_KINDS);
  return names.filter((name) => !known.has(name));
}

export function matchesFilter(filter: SubscriptionFilter, event: FeedEvent): boolean {
  if (filter.kinds !== undefined && filter.kinds.length > 0 && !filter.kinds.includes(event.event)) {
    return false;
  }
  if (filter.instanceId !== undefined && event.subjectId !== filter.instanceId) {
    return false;
  }
  if (
    filter.compositionId !== undefined &&
    event.subjectId !== filter.compositionId &&
    event.compositionId !== filter.compositionId
  ) {
    return false;
  }
  if (
    filter.metadata !== undefined &&
    !(isInstanceEvent(event) && metadataHolds(filter.metadata, event.instanceMetadata ?? null))
  ) {
    return false;
  }
  return true;
}

/** An instance's event: its subject is not its definition (a definition's, a rollout's or a refusal's are not). */
function isInstanceEvent(event: FeedEvent): boolean {
  return event.compositionId !== null && event.subjectId !== event.compositionId;
}

/**
 * The wait before attempt `failures + 1`: exponential (base × 2^(failures−1), capped), with "equal jitter" so
 * receivers coming back are not hit by every replica at once: half the wait is fixed, the other half scaled by
 * `jitter` (a number in [0, 1) the caller draws).
 */
export function deliveryRetryDelayMs(failures: number, policy: DeliveryRetryPolicy, jitter: number): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const full = Math.min(policy.baseDelayMs * 2 ** exponent, policy.maxDelayMs);
  const bounded = Math.min(Math.max(jitter, 0), 1);
  return Math.round(full / 2 + (full / 2) * bounded);
}

/** The state after the event at `position` went out and the receiver answered 2xx. */
export function afterDelivered(state: DeliveryState, position: number, now: number): DeliveryState {
  return {
    ...state,
    position,
    attempts: 0,
    nextAttemptAt: now,
    delivered: state.delivered + 1,
    lastDeliveredAt: now,
  };
}

/** The state after the feed was read up to `position` with no event for the subscription. */
export function afterSkipped(state: DeliveryState, position: number): DeliveryState {
  return position > state.position ? { ...state, position } : state;
}

/**
 * The state after an attempt at the event (`position`, `eventId`) failed with `error`: a later attempt after the
 * backoff, or, the last attempt spent, the event dead-lettered (counted, its error kept) and the feed goes on.
 */
export function afterFailed(
  state: DeliveryState,
  event: { readonly position: number; readonly eventId: string },
  error: string,
  now: number,
  policy: DeliveryRetryPolicy,
  jitter: number,
): DeliveryState {
  const failures = state.attempts + 1;
  if (failures >= policy.maxAttempts) {
    return {
      ...state,
      position: event.position,
      attempts: 0,
      nextAttemptAt: now,
      lastError: error,
      deadLetters: state.deadLetters + 1,
      lastDeadLetter: { eventId: event.eventId, error, at: now },
    };
  }
  return {
    ...state,
    attempts: failures,
    nextAttemptAt: now + deliveryRetryDelayMs(failures, policy, jitter),
    lastError: error,
  };
}
