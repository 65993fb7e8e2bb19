import { useEffect, useState } from 'preact/hooks';

import { authorization, ensureFreshToken, refused, usesProvider } from './auth';
import type { HistoryEvent } from './model';
import { EventStreamParser } from './sse';

export type { HistoryEvent };

type Listener = (event: HistoryEvent) => void;
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'refused';

const listeners = new Set<Listener>();
const readyListeners = new Set<() => void>();
const statusListeners = new Set<(status: LiveStatus) => void>();
let status: LiveStatus = 'connecting';
let connected = false;
/** Why the runtime refused the stream, when signing in again cannot help (`refused`). */
let refusal = '';

export const liveRefusal = (): string => refusal;

/** How long the stream waits before it connects again (the runtime's `retry:` says 2 s). */
const RETRY_MS = 2000;

function setStatus(next: LiveStatus): void {
  status = next;
  for (const listener of statusListeners) {
    listener(next);
  }
}

function ready(): void {
  setStatus('live');
  // Whatever happened while the stream was down is read again over REST.
  for (const listener of readyListeners) {
    listener();
  }
}

function pushed(data: string): void {
  const event = JSON.parse(data) as HistoryEvent;
  for (const listener of listeners) {
    listener(event);
  }
}

/** The runtime's reason for a refusal (`errorDetails`), as the REST calls show it. */
async function refusalOf(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { errorDetails?: unknown };
  return `${response.status}: ${typeof body.errorDetails === 'string' ? body.errorDetails : response.statusText}`;
}

const streamUrl = (): string => new URL('../v2/events', window.location.href).toString();

/** One stream per page: the runtime pushes every history event it commits (`GET /v2/events`). */
function connect(): void {
  if (connected) {
    return;
  }
  connected = true;
  if (usesProvider()) {
    void followWithToken();
    return;
  }
  // HTTP Basic: the browser's EventSource sends the credentials it holds and reconnects by itself.
  const source = new EventSource(streamUrl());
  source.addEventListener('ready', ready);
  source.addEventListener('history', (message: MessageEvent<string>) => pushed(message.data));
  source.addEventListener('error', () => setStatus('reconnecting'));
}

/**
 * The same stream read with fetch, since EventSource cannot send an Authorization header (and a token never goes in a
 * URL): reconnects as EventSource would, resuming after the last event id, and signs in again on a 401.
 */
async function followWithToken(): Promise<void> {
  let lastId: string | null = null;
  for (;;) {
    try {
      if (!(await ensureFreshToken())) {
        return;
      }
      const response = await fetch(streamUrl(), {
        headers: {
          ...authorization(),
          Accept: 'text/event-stream',
          ...(lastId === null ? {} : { 'Last-Event-ID': lastId }),
        },
        cache: 'no-store',
      });
      if (response.status === 401) {
        if (!(await refused())) {
          refusal = await refusalOf(response);
          setStatus('refused');
        }
        return;
      }
      if (response.ok && response.body !== null) {
        const parser = new EventStreamParser();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
          for (const event of parser.push(chunk.value)) {
            lastId = event.id ?? lastId;
            if (event.event === 'ready') {
              ready();
            } else if (event.event === 'history') {
              pushed(event.data);
            }
          }
        }
      }
    } catch {
      // A network failure or a cut stream: connect again, as EventSource does.
    }
    setStatus('reconnecting');
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/**
 * Calls `onEvent` for each pushed event and `reload` once the stream is (again) subscribed, so a page reads
 * its baseline after the subscription and misses nothing.
 */
export function useLiveEvents(onEvent: Listener, reload: () => void, deps: readonly unknown[]): void {
  useEffect(() => {
    connect();
    listeners.add(onEvent);
    readyListeners.add(reload);
    if (status === 'live') {
      reload();
    }
    return () => {
      listeners.delete(onEvent);
      readyListeners.delete(reload);
    };
  }, deps);
}

export function useLiveStatus(): LiveStatus {
  const [current, setCurrent] = useState(status);
  useEffect(() => {
    connect();
    statusListeners.add(setCurrent);
    setCurrent(status);
    return () => {
      statusListeners.delete(setCurrent);
    };
  }, []);
  return current;
}
