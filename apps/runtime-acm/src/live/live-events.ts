import type { FeedEvent } from '@acm/domain';
import type { BeforeApplicationShutdown } from '@nestjs/common';
import { Injectable } from '@nestjs/common';
import { Observable } from 'rxjs';
import type { HistoryEventView } from '../application/history.service';
import { presentEvent } from '../application/history.service';
import { EventFeedFollower, FEED_PAGE } from './event-feed-follower';

/** A history event as the stream sends it: the shape of one `events[]` entry of `GET .../history`. */
export type LiveEvent = HistoryEventView;

/** A streamed event and its feed position (the SSE id a client resumes from). */
export interface PositionedEvent {
  readonly position: number;
  readonly event: LiveEvent;
}

/** A feed event as the history shows it (its feed fields are the stream's, not the event's). */
function viewOf(event: FeedEvent): LiveEvent {
  const {
    position: _position,
    compositionId: _compositionId,
    project: _project,
    instanceMetadata: _instanceMetadata,
    ...stored
  } = event;
  return presentEvent(stored);
}

/**
 * Every replica's committed history events, from the event feed: the stream says exactly what `GET .../history` will
 * answer, with sensitive values masked as the history masks them, in feed (commit) order.
 */
@Injectable()
export class LiveEvents implements BeforeApplicationShutdown {
  private readonly open = new Set<() => void>();

  constructor(private readonly follower: EventFeedFollower) {}

  /**
   * Every event from now on, or, given `after` (a client's Last-Event-ID), every event after that position first;
   * optionally only those of the given subjects (definition or instance ids). While the backlog is read the live
   * events are held, then those not yet sent follow: none missed, none twice. `projects`: only the events of
   * definitions and instances of these projects (a caller's visible projects); absent, every project's.
   */
  stream(subjectIds?: ReadonlySet<string>, after?: number, projects?: readonly string[]): Observable<PositionedEvent> {
    return new Observable<PositionedEvent>((subscriber) => {
      // Refused requests are the audit ledger's, which only an admin reads; the stream is open to every viewer.
      const wanted = (event: FeedEvent): boolean =>
        event.event !== 'ACCESS_REFUSED' &&
        (subjectIds === undefined || subjectIds.has(event.subjectId)) &&
        (projects === undefined || projects.includes(event.project ?? ''));
      let sent = after ?? this.follower.emitted;
      let held: FeedEvent[] | null = after === undefined ? null : [];
      const send = (event: FeedEvent): void => {
        if (event.position <= sent) {
          return;
        }
        sent = event.position;
        if (wanted(event)) {
          subscriber.next({ position: event.position, event: viewOf(event) });
        }
      };
      const live = this.follower.live().subscribe({
        next: (event) => (held === null ? send(event) : held.push(event)),
        complete: () => subscriber.complete(),
      });
      const close = (): void => subscriber.complete();
      this.open.add(close);
      if (held !== null) {
        void this.catchUp(send, () => sent)
          .then(() => {
            const waiting = held ?? [];
            held = null;
            waiting.forEach(send);
          })
          .catch((error: unknown) => subscriber.error(error));
      }
      return () => {
        this.open.delete(close);
        live.unsubscribe();
      };
    });
  }

  private async catchUp(send: (event: FeedEvent) => void, sent: () => number): Promise<void> {
    for (;;) {
      const page = await this.follower.after(sent(), FEED_PAGE);
      page.forEach(send);
      if (page.length < FEED_PAGE) {
        return;
      }
    }
  }

  /** Open streams end before the HTTP server closes, so they never hold a stop up. */
  beforeApplicationShutdown(): void {
    for (const close of [...this.open]) {
      close();
    }
  }
}
