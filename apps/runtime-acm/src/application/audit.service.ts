import type { AuditCursor, AuditFilter, StoredEvent } from '@acm/domain';
import { AuditLedger } from '@acm/domain';
import { Injectable } from '@nestjs/common';
import type { Disclosure } from '../security/sensitive-values';
import { maskSensitive } from '../security/sensitive-values';
import type { HistoryEventView } from './history.service';
import { EXPORT_PAGE, presentEvent } from './history.service';

/** Events a JSON page holds when the caller asks for no page: the first ones, as the history's JSON answer. */
export const AUDIT_DEFAULT_SIZE = 1000;

export interface AuditPage {
  readonly page?: number;
  readonly size?: number;
}

export interface AuditView {
  events: HistoryEventView[];
}

/** The audit ledger: history events across definitions and instances, filtered, by time then sequence. */
@Injectable()
export class AuditService {
  constructor(private readonly ledger: AuditLedger) {}

  /** One page (ONAP's page and size, together), or the first AUDIT_DEFAULT_SIZE events without them. */
  async query(filter: AuditFilter, paging: AuditPage, disclose: Disclosure = maskSensitive): Promise<AuditView> {
    const size = paging.size ?? AUDIT_DEFAULT_SIZE;
    const offset = (paging.page ?? 0) * size;
    const events = await this.ledger.events(filter, null, offset, size);
    return { events: events.map((event) => presentEvent(event, disclose)) };
  }

  /** Every matching event as NDJSON lines, read page by page after the last one (constant memory). */
  async *export(filter: AuditFilter, disclose: Disclosure = maskSensitive): AsyncIterable<string> {
    let after: AuditCursor | null = null;
    for (;;) {
      const events: StoredEvent[] = await this.ledger.events(filter, after, 0, EXPORT_PAGE);
      for (const event of events) {
        yield `${JSON.stringify(presentEvent(event, disclose))}\n`;
      }
      const last = events[events.length - 1];
      if (events.length < EXPORT_PAGE || last === undefined) {
        return;
      }
      after = last;
    }
  }
}
