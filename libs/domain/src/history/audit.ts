import { INSTANCE_ORDERS } from '../instance/instance-lifecycle';
import type { Actor } from './actor';
import type { HistoryEventKind, HistoryOrder, StoredEvent } from './history-events';

/** Every order an ORDERED event can name: an instance's, or a definition's prime and deprime. */
export const HISTORY_ORDERS: readonly HistoryOrder[] = [...INSTANCE_ORDERS, 'PRIME', 'DEPRIME'];

/**
 * The name an actor goes by in the audit ledger: a request's user, a participant's id, `runtime` for the runtime's
 * own rules; null for a request with no user (a signed signal URL) and for events recorded before actors were.
 */
export function actorName(actor: Actor): string | null {
  switch (actor.kind) {
    case 'request':
      return actor.user;
    case 'participant':
      return actor.participantId;
    case 'runtime':
      return 'runtime';
    case 'unrecorded':
      return null;
  }
}

/**
 * Which history events an audit query selects; every field left out selects all. `actions` holds event kinds
 * (`ORDERED`, `FAILED`, ...) and orders (`DEPLOY`, `PRIME`, ...): an order selects the ORDERED events of that order.
 * `compositionId` selects the definition's events and those of the instances stored under it. `from` is inclusive,
 * `to` exclusive (epoch milliseconds).
 */
export interface AuditFilter {
  readonly actor?: string;
  readonly kinds?: readonly HistoryEventKind[];
  readonly orders?: readonly HistoryOrder[];
  readonly instanceId?: string;
  readonly compositionId?: string;
  readonly from?: number;
  readonly to?: number;
  /** Only the events of definitions of these projects and of their instances (a caller's visible projects). */
  readonly projects?: readonly string[];
}

/** Where a page of the ledger starts: after this event in (time, sequence) order, then `offset` rows further. */
export interface AuditCursor {
  readonly at: number;
  readonly sequence: number;
}

/** Whether an event passes the filter's own fields (the subject's definition is the adapter's to check). */
export function matchesAudit(event: StoredEvent, filter: AuditFilter): boolean {
  if (filter.actor !== undefined && actorName(event.actor) !== filter.actor) {
    return false;
  }
  if (filter.instanceId !== undefined && event.subjectId !== filter.instanceId) {
    return false;
  }
  if (filter.from !== undefined && event.at < filter.from) {
    return false;
  }
  if (filter.to !== undefined && event.at >= filter.to) {
    return false;
  }
  return matchesAction(event, filter);
}

function matchesAction(event: StoredEvent, filter: AuditFilter): boolean {
  const kinds = filter.kinds ?? [];
  const orders = filter.orders ?? [];
  if (kinds.length === 0 && orders.length === 0) {
    return true;
  }
  if (kinds.includes(event.event)) {
    return true;
  }
  return event.event === 'ORDERED' && orders.includes(event.detail.order);
}

/** The ledger's order: by time, then by sequence (the order of writing). */
export function compareAudit(a: AuditCursor, b: AuditCursor): number {
  return a.at - b.at || a.sequence - b.sequence;
}

/**
 * The audit ledger: history events across every definition and instance (deleted ones included, while retention
 * keeps them), filtered, in (time, sequence) order.
 */
export abstract class AuditLedger {
  /** Up to `limit` events after `after` (null: from the first), skipping `offset` of them first. */
  abstract events(
    filter: AuditFilter,
    after: AuditCursor | null,
    offset: number,
    limit: number,
  ): Promise<StoredEvent[]>;
}
