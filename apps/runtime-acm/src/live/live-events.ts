import { TypeOrmUnitOfWork } from '@acm/persistence';
import type { BeforeApplicationShutdown } from '@nestjs/common';
import { Injectable } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { Subject, filter } from 'rxjs';
import type { HistoryEventView } from '../application/history.service';
import { presentEvent } from '../application/history.service';

/** A history event as the stream sends it: the shape of one `events[]` entry of `GET .../history`. */
export type LiveEvent = HistoryEventView;

/**
 * The history events this replica commits, as they commit. They come from the store's history write path
 * (never from the engine), so the stream says exactly what `GET .../history` will answer, in sequence order,
 * with sensitive values masked as the history masks them.
 */
@Injectable()
export class LiveEvents implements BeforeApplicationShutdown {
  private readonly events = new Subject<LiveEvent>();

  constructor(unitOfWork: TypeOrmUnitOfWork) {
    unitOfWork.onEventsCommitted((events) => {
      for (const event of events) {
        // Refused requests are the audit ledger's, which only an admin reads; the stream is open to every viewer.
        if (event.event !== 'ACCESS_REFUSED') {
          this.events.next(presentEvent(event));
        }
      }
    });
  }

  /** Every event, or those of the given subjects (definition or instance ids). */
  stream(subjectIds?: ReadonlySet<string>): Observable<LiveEvent> {
    return subjectIds === undefined
      ? this.events.asObservable()
      : this.events.pipe(filter((event) => subjectIds.has(event.subjectId)));
  }

  /** Open streams end before the HTTP server closes, so they never hold a stop up. */
  beforeApplicationShutdown(): void {
    this.events.complete();
  }
}
