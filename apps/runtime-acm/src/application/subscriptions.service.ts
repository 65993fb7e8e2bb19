import {
  Clock,
  DomainError,
  EventFeed,
  IdGenerator,
  SUBSCRIPTION_FORMATS,
  SubscriptionStore,
  initialDelivery,
  parseMetadataValues,
  unknownEventKinds,
} from '@acm/domain';
import type {
  DeliveryState,
  FeedEvent,
  HistoryEventKind,
  MetadataValues,
  StoredSubscription,
  SubscriptionFilter,
  SubscriptionFormat,
} from '@acm/domain';
import { Inject, Injectable } from '@nestjs/common';
import type { RuntimeConfig } from '../config/runtime.config';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { DeliveryOutcome } from './notification-sender';
import { sendNotification } from './notification-sender';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_URL_LENGTH = 2048;
const MAX_SECRET_LENGTH = 1024;
/** Host names and addresses that reach this machine: with the runtime's own port, the runtime itself. */
const THIS_MACHINE = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '0.0.0.0', '[::]', '::']);

/** Where a subscription's deliveries stand, as GET shows them. */
export interface DeliveryView {
  /** ACTIVE: delivering as events come; RETRYING: the next event failed `attempts` times and waits for a retry. */
  readonly state: 'ACTIVE' | 'RETRYING';
  readonly position: number;
  readonly delivered: number;
  readonly lastDeliveredAt: string | null;
  readonly attempts: number;
  readonly nextAttemptAt: string | null;
  readonly lastError: string | null;
  /** Events given up after NOTIFY_MAX_ATTEMPTS failed attempts, and the last of them. */
  readonly deadLetters: number;
  readonly lastDeadLetter: { readonly eventId: string; readonly error: string; readonly at: string } | null;
}

export interface SubscriptionView {
  readonly subscriptionId: string;
  readonly url: string;
  readonly filter: SubscriptionFilter;
  readonly format: SubscriptionFormat;
  readonly createdAt: string;
  /** Whether deliveries are signed; the secret itself is never shown. */
  readonly signed: boolean;
  readonly delivery: DeliveryView;
}

export interface SubscriptionTestView {
  readonly delivered: boolean;
  readonly status?: number;
  readonly error?: string;
}

const iso = (at: number | null): string | null => (at === null ? null : new Date(at).toISOString());

function deliveryView(delivery: DeliveryState): DeliveryView {
  return {
    state: delivery.attempts > 0 ? 'RETRYING' : 'ACTIVE',
    position: delivery.position,
    delivered: delivery.delivered,
    lastDeliveredAt: iso(delivery.lastDeliveredAt),
    attempts: delivery.attempts,
    nextAttemptAt: delivery.attempts > 0 ? iso(delivery.nextAttemptAt) : null,
    lastError: delivery.lastError,
    deadLetters: delivery.deadLetters,
    lastDeadLetter:
      delivery.lastDeadLetter === null
        ? null
        : { ...delivery.lastDeadLetter, at: new Date(delivery.lastDeadLetter.at).toISOString() },
  };
}

export function subscriptionView(stored: StoredSubscription): SubscriptionView {
  const { subscription } = stored;
  return {
    subscriptionId: subscription.subscriptionId,
    url: subscription.url,
    filter: subscription.filter,
    format: subscription.format,
    createdAt: new Date(subscription.createdAt).toISOString(),
    signed: stored.secret !== null,
    delivery: deliveryView(stored.delivery),
  };
}

const invalid = (message: string): DomainError => new DomainError('VALIDATION_FAILED', message);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Webhook subscriptions, beyond ONAP: who is told of which history events, and how their deliveries went. */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly feed: EventFeed,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
  ) {}

  async create(body: unknown): Promise<StoredSubscription> {
    if (!isRecord(body)) {
      throw invalid('The body must be a JSON or YAML object with at least "url"');
    }
    const known = new Set(['url', 'filter', 'format', 'secret']);
    const unknown = Object.keys(body).filter((key) => !known.has(key));
    if (unknown.length > 0) {
      throw invalid(`${unknown.join(', ')}: unknown field; a subscription has url, filter, format and secret`);
    }
    const url = this.urlOf(body['url']);
    const filter = filterOf(body['filter']);
    const format = formatOf(body['format']);
    const secret = secretOf(body['secret']);
    await this.feed.stamp();
    const now = this.clock.now();
    const stored: StoredSubscription = {
      subscription: { subscriptionId: this.ids.uuid(), url, filter, format, createdAt: now },
      secret,
      delivery: initialDelivery(await this.feed.head(), now),
    };
    await this.store.create(stored);
    return stored;
  }

  list(limit: number): Promise<StoredSubscription[]> {
    return this.store.list(limit);
  }

  /**
   * The definition a subscription's filter names (its project is the subscription's), null for one that names none
   * (it spans projects), undefined for an unknown subscription.
   */
  async compositionOf(subscriptionId: string): Promise<string | null | undefined> {
    const stored = await this.store.find(subscriptionId);
    return stored === null ? undefined : (stored.subscription.filter.compositionId ?? null);
  }

  async get(subscriptionId: string): Promise<StoredSubscription> {
    const stored = await this.store.find(subscriptionId);
    if (stored === null) {
      throw new DomainError('NOT_FOUND', `Subscription ${subscriptionId} not found`);
    }
    return stored;
  }

  async delete(subscriptionId: string): Promise<void> {
    if (!(await this.store.delete(subscriptionId))) {
      throw new DomainError('NOT_FOUND', `Subscription ${subscriptionId} not found`);
    }
  }

  /** Sends a TEST event at once (not through the feed, not retried) and answers what the receiver did. */
  async test(subscriptionId: string): Promise<SubscriptionTestView> {
    const stored = await this.get(subscriptionId);
    const now = this.clock.now();
    const event = {
      position: 0,
      sequence: 0,
      subjectId: subscriptionId,
      compositionId: null,
      operationId: null,
      event: 'TEST' as HistoryEventKind,
      detail: { message: 'A test event: the subscription reaches its receiver' },
      actor: { kind: 'runtime' },
      at: now,
    } as unknown as FeedEvent;
    const outcome: DeliveryOutcome = await sendNotification(stored, event, this.config.notifyTimeoutMs);
    return outcome.delivered ? { delivered: true, status: outcome.status } : { delivered: false, error: outcome.error };
  }

  private urlOf(value: unknown): string {
    if (typeof value !== 'string' || value.length === 0) {
      throw invalid('url: required, the http or https URL events are posted to');
    }
    if (value.length > MAX_URL_LENGTH) {
      throw invalid(`url: at most ${MAX_URL_LENGTH} characters`);
    }
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw invalid('url: not a URL (an absolute http or https URL is expected)');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw invalid(`url: the scheme must be http or https, not ${parsed.protocol.replace(/:$/, '')}`);
    }
    if (this.pointsAtItself(parsed)) {
      throw invalid('url: points at this runtime itself; a subscription must post to another service');
    }
    return parsed.toString();
  }

  private pointsAtItself(url: URL): boolean {
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    const host = url.hostname.toLowerCase();
    if (port === this.config.port && (THIS_MACHINE.has(host) || host === this.config.host.toLowerCase())) {
      return true;
    }
    if (this.config.publicUrl !== null) {
      const own = new URL(this.config.publicUrl);
      return own.origin === url.origin;
    }
    return false;
  }
}

function filterOf(value: unknown): SubscriptionFilter {
  if (value === undefined || value === null) {
    return {};
  }
  if (!isRecord(value)) {
    throw invalid('filter: must be an object with kinds, compositionId, instanceId or metadata');
  }
  const fields = ['kinds', 'compositionId', 'instanceId', 'metadata'];
  const unknown = Object.keys(value).filter((key) => !fields.includes(key));
  if (unknown.length > 0) {
    throw invalid(`filter.${unknown[0]}: unknown field; a filter has kinds, compositionId, instanceId and metadata`);
  }
  const filter: {
    kinds?: HistoryEventKind[];
    compositionId?: string;
    instanceId?: string;
    metadata?: MetadataValues;
  } = {};
  const kinds = value['kinds'];
  if (kinds !== undefined) {
    if (!Array.isArray(kinds) || kinds.some((kind) => typeof kind !== 'string')) {
      throw invalid('filter.kinds: must be a list of event kinds');
    }
    const unknownKinds = unknownEventKinds(kinds as string[]);
    if (unknownKinds.length > 0) {
      throw invalid(
        `filter.kinds: unknown event kind ${unknownKinds.map((kind) => JSON.stringify(kind).slice(0, 80)).join(', ')}`,
      );
    }
    filter.kinds = [...new Set(kinds as HistoryEventKind[])];
  }
  for (const field of ['compositionId', 'instanceId'] as const) {
    const id = value[field];
    if (id !== undefined) {
      if (typeof id !== 'string' || !UUID.test(id)) {
        throw invalid(`filter.${field}: must be a UUID`);
      }
      filter[field] = id.toLowerCase();
    }
  }
  if (value['metadata'] !== undefined) {
    filter.metadata = parseMetadataValues('filter.metadata', value['metadata']);
  }
  return filter;
}

function formatOf(value: unknown): SubscriptionFormat {
  if (value === undefined) {
    return 'cloudevents';
  }
  if (typeof value !== 'string' || !(SUBSCRIPTION_FORMATS as readonly string[]).includes(value)) {
    throw invalid(`format: one of ${SUBSCRIPTION_FORMATS.join(', ')}`);
  }
  return value as SubscriptionFormat;
}

function secretOf(value: unknown): string | null {
  if (value === undefined || value === null) {
    return null;
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SECRET_LENGTH) {
    throw invalid(`secret: a string of 1 to ${MAX_SECRET_LENGTH} characters`);
  }
  return value;
}
