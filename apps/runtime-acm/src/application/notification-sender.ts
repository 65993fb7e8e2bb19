import { createHmac } from 'node:crypto';
import type { FeedEvent, StoredSubscription, SubscriptionFormat } from '@acm/domain';
import { CloudEvent, HTTP } from 'cloudevents';
import { presentEvent } from './history.service';

/** The signature header: `sha256=<hex HMAC-SHA256 of the raw body with the subscription's secret>`. */
export const SIGNATURE_HEADER = 'X-Acm-Signature';
/** The event's id, the same on every attempt: a receiver deduplicates on it. */
export const EVENT_ID_HEADER = 'X-Acm-Event-Id';
/** The CloudEvents `type` prefix; the event kind follows (`org.acm-runtime.history.COMPLETED`). */
export const CLOUDEVENT_TYPE_PREFIX = 'org.acm-runtime.history.';
export const CLOUDEVENT_SOURCE = '/onap/policy/clamp/acm/v2/events';
/** The kinds an Alertmanager receiver gets as a firing alert; every other kind is sent as resolved. */
const FIRING = new Set<string>(['FAILED', 'TIMEOUT', 'NO_PROGRESS', 'WAIT_TIMED_OUT', 'WAIT_FAILED']);

/** The outcome of one delivery attempt. */
export type DeliveryOutcome =
  { readonly delivered: true; readonly status: number } | { readonly delivered: false; readonly error: string };

/** A feed event as the notification carries it: the history's event, its definition and instance. */
function eventData(event: FeedEvent): Record<string, unknown> {
  const { position: _position, compositionId, instanceMetadata: _instanceMetadata, ...stored } = event;
  const view = presentEvent(stored);
  const isDefinition = compositionId === null || compositionId === event.subjectId;
  return {
    ...view,
    compositionId: compositionId ?? event.subjectId,
    ...(isDefinition ? {} : { instanceId: event.subjectId }),
  };
}

/** The id a receiver deduplicates on: the history event's sequence, stable across attempts, replicas and restarts. */
export const eventIdOf = (event: FeedEvent): string => String(event.sequence);

/** CloudEvents 1.0, structured content mode (JSON): the event's attributes and the history event as `data`. */
export function cloudEvent(event: FeedEvent): Record<string, unknown> {
  return {
    specversion: '1.0',
    id: eventIdOf(event),
    source: CLOUDEVENT_SOURCE,
    type: `${CLOUDEVENT_TYPE_PREFIX}${event.event}`,
    subject: event.subjectId,
    time: new Date(event.at).toISOString(),
    datacontenttype: 'application/json',
    data: eventData(event),
  };
}

/** Alertmanager's webhook payload (version 4) with one alert for the event. */
export function alertmanagerPayload(event: FeedEvent): Record<string, unknown> {
  const data = eventData(event);
  const status = FIRING.has(event.event) ? 'firing' : 'resolved';
  const labels: Record<string, string> = {
    alertname: `Acm${event.event}`,
    event: event.event,
    compositionId: String(data['compositionId']),
    ...(typeof data['instanceId'] === 'string' ? { instanceId: data['instanceId'] } : {}),
    severity: status === 'firing' ? 'warning' : 'info',
  };
  const startsAt = new Date(event.at).toISOString();
  return {
    version: '4',
    groupKey: `{}:{subjectId="${event.subjectId}"}`,
    truncatedAlerts: 0,
    status,
    receiver: 'acm-runtime',
    groupLabels: { subjectId: event.subjectId },
    commonLabels: labels,
    commonAnnotations: {},
    externalURL: '',
    alerts: [
      {
        status,
        labels,
        annotations: { summary: `${event.event} on ${event.subjectId}`, eventId: eventIdOf(event) },
        startsAt,
        endsAt: status === 'resolved' ? startsAt : '0001-01-01T00:00:00Z',
        generatorURL: '',
        fingerprint: eventIdOf(event),
      },
    ],
  };
}

export function bodyOf(format: SubscriptionFormat, event: FeedEvent): { body: string; contentType: string } {
  return format === 'cloudevents'
    ? structuredCloudEvent(event)
    : { body: JSON.stringify(alertmanagerPayload(event)), contentType: 'application/json; charset=utf-8' };
}

/**
 * The CloudEvent in structured content mode, written by the official SDK (`cloudevents`), which validates the
 * attributes against the 1.0 specification (an invalid one throws) and gives the body and its content type.
 */
function structuredCloudEvent(event: FeedEvent): { body: string; contentType: string } {
  const message = HTTP.structured(new CloudEvent(cloudEvent(event)));
  const contentType = message.headers['content-type'];
  return {
    body: String(message.body),
    contentType: typeof contentType === 'string' ? contentType : 'application/cloudevents+json; charset=utf-8',
  };
}

/** `sha256=<hex>`: what a receiver recomputes over the raw body with the shared secret, and compares. */
export function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** Posts one event to a subscription's URL; a 2xx within `timeoutMs` is delivered, anything else is an error. */
export async function sendNotification(
  stored: StoredSubscription,
  event: FeedEvent,
  timeoutMs: number,
): Promise<DeliveryOutcome> {
  const { body, contentType } = bodyOf(stored.subscription.format, event);
  const headers: Record<string, string> = {
    'Content-Type': contentType,
    [EVENT_ID_HEADER]: eventIdOf(event),
    'User-Agent': 'acm-runtime-notifications',
  };
  if (stored.secret !== null) {
    headers[SIGNATURE_HEADER] = signatureOf(stored.secret, body);
  }
  try {
    const response = await fetch(stored.subscription.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel().catch(() => undefined);
    return response.status >= 200 && response.status < 300
      ? { delivered: true, status: response.status }
      : { delivered: false, error: `HTTP ${response.status}` };
  } catch (error) {
    const name = (error as Error).name;
    return {
      delivered: false,
      error: name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `not reached: ${causeOf(error)}`,
    };
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') {
    return cause.code;
  }
  return typeof cause?.message === 'string' ? cause.message : (error as Error).message;
}
