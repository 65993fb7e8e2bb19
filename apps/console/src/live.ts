import { useEffect, useState } from 'preact/hooks';

import type { HistoryEvent } from './model';

export type { HistoryEvent };

type Listener = (event: HistoryEvent) => void;
export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

const listeners = new Set<Listener>();
const readyListeners = new Set<() => void>();
const statusListeners = new Set<(status: LiveStatus) => void>();
let status: LiveStatus = 'connecting';
let source: EventSource | null = null;

function setStatus(next: LiveStatus): void {
  status = next;
  for (const listener of statusListeners) {
    listener(next);
  }
}

/** One stream per page: the runtime pushes every history event it commits (`GET /v2/events`). */
function connect(): void {
  if (source !== null) {
    return;
  }
  source = new EventSource(new URL('../v2/events', window.location.href).toString());
  source.addEventListener('ready', () => {
    setStatus('live');
    // Whatever happened while the stream was down is read again over REST.
    for (const listener of readyListeners) {
      listener();
    }
  });
  source.addEventListener('history', (message: MessageEvent<string>) => {
    const event = JSON.parse(message.data) as HistoryEvent;
    for (const listener of listeners) {
      listener(event);
    }
  });
  source.addEventListener('error', () => setStatus('reconnecting'));
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
