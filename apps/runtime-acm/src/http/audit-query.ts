import type { AuditFilter, HistoryEventKind, HistoryOrder } from '@acm/domain';
import { HISTORY_EVENT_KINDS, HISTORY_ORDERS } from '@acm/domain';
import { excerpt } from '@acm/input-guards';
import { invalid, optionalString, optionalUuid } from './request-parsing';

/** An ISO-8601 date (UTC midnight) or date and time with seconds optional and a zone (Z or an offset) required. */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The fields exist on the calendar (Date.parse rolls 30 February over into March instead of refusing it). */
function onCalendar(match: RegExpExecArray): boolean {
  const field = (group: number): number => Number(match[group] ?? 0);
  const [year, month, day] = [field(1), field(2), field(3)];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && field(5) < 24 && field(6) < 60 && field(8) < 60;
}

const MAX_ACTOR_LENGTH = 256;

function optionalTime(name: string, value: unknown): number | undefined {
  const text = optionalString(name, value);
  if (text === undefined || text === '') {
    return undefined;
  }
  const match = ISO_TIME.exec(text);
  const at = match !== null && onCalendar(match) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) {
    throw invalid(
      `${name}: must be an ISO-8601 time with a zone (2026-12-01T11:30:00Z) or a date (2026-12-01), got ${excerpt(text)}`,
    );
  }
  return at;
}

function optionalActions(value: unknown): { kinds?: HistoryEventKind[]; orders?: HistoryOrder[] } {
  const text = optionalString('action', value);
  if (text === undefined || text.trim() === '') {
    return {};
  }
  const kinds: HistoryEventKind[] = [];
  const orders: HistoryOrder[] = [];
  for (const item of text.split(',').map((part) => part.trim())) {
    const kind = HISTORY_EVENT_KINDS.find((candidate) => candidate === item);
    const order = HISTORY_ORDERS.find((candidate) => candidate === item);
    if (kind !== undefined) {
      kinds.push(kind);
    } else if (order !== undefined) {
      orders.push(order);
    } else {
      throw invalid(
        `action: ${excerpt(item)} is neither an event kind (${HISTORY_EVENT_KINDS.join(', ')}) ` +
          `nor an order (${HISTORY_ORDERS.join(', ')})`,
      );
    }
  }
  return { ...(kinds.length > 0 ? { kinds } : {}), ...(orders.length > 0 ? { orders } : {}) };
}

/** The audit query's filter from the query string; each bad value is a 400 naming the parameter and the rule. */
export function parseAuditFilter(query: Record<string, unknown>): AuditFilter {
  const actor = optionalString('actor', query['actor']);
  if (actor !== undefined && (actor === '' || actor.length > MAX_ACTOR_LENGTH)) {
    throw invalid(`actor: must be a user or client name of 1 to ${MAX_ACTOR_LENGTH} characters`);
  }
  const instanceId = optionalUuid('instanceId', query['instanceId']);
  const compositionId = optionalUuid('compositionId', query['compositionId']);
  const from = optionalTime('from', query['from']);
  const to = optionalTime('to', query['to']);
  if (from !== undefined && to !== undefined && from >= to) {
    throw invalid('from: must be before to');
  }
  return {
    ...(actor !== undefined ? { actor } : {}),
    ...optionalActions(query['action']),
    ...(instanceId !== undefined ? { instanceId } : {}),
    ...(compositionId !== undefined ? { compositionId } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
  };
}
