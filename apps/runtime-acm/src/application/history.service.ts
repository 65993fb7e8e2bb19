import type { Operation, OperationCursor, StoredEvent } from '@acm/domain';
import { DomainError, ReadModels, RetentionStore } from '@acm/domain';
import { Injectable } from '@nestjs/common';
import type { Disclosure } from '../security/sensitive-values';
import { maskSensitive } from '../security/sensitive-values';
import { formatLastMsg } from './views';

export type OperationHistoryView = Omit<Operation, 'startedAt' | 'deadlineAt' | 'finishedAt'> & {
  startedAt: string;
  deadlineAt: string;
  finishedAt?: string;
  durationMs?: number;
};

export interface HistoryView {
  operations: OperationHistoryView[];
  events: HistoryEventView[];
}

/** An event as REST and the live stream show it: `at` in ONAP's time format, one type per kind still. */
export type HistoryEventView = StoredEvent extends infer E
  ? E extends StoredEvent
    ? Omit<E, 'at'> & { readonly at: string }
    : never
  : never;

/** The view of a stored event, its detail disclosed as asked (masked by default). */
export function presentEvent(event: StoredEvent, disclose: Disclosure = maskSensitive): HistoryEventView {
  return { ...event, detail: disclose(event.detail), at: formatLastMsg(event.at) } as HistoryEventView;
}

/** Rows read per statement while exporting: the export holds one page in memory, whatever the history's size. */
export const EXPORT_PAGE = 500;

/** The append-only history of a definition or instance: its operations and every event, oldest first. */
@Injectable()
export class HistoryService {
  constructor(
    private readonly reads: ReadModels,
    private readonly archive: RetentionStore,
  ) {}

  /** Sensitive values an event carries (a participant's message, say) are masked unless `disclose` says otherwise. */
  async of(
    compositionId: string,
    instanceId?: string,
    disclose: Disclosure = maskSensitive,
    limit = 1000,
  ): Promise<HistoryView> {
    return this.reads.read(async (store) => {
      if (instanceId === undefined) {
        if (!(await store.definitions.find(compositionId))) {
          throw new DomainError('NOT_FOUND', `Automation composition definition ${compositionId} not found`);
        }
      }
      const subjectId = instanceId ?? compositionId;
      const [operations, events] = await Promise.all([
        store.operations.history(subjectId, limit),
        store.events.list(subjectId, limit),
      ]);
      if (instanceId !== undefined && operations.length === 0 && !(await store.instances.find(instanceId))) {
        throw new DomainError('NOT_FOUND', `Automation composition instance ${instanceId} not found`);
      }
      return {
        operations: operations.map(operationView),
        events: events.map((event) => presentEvent(event, disclose)),
      };
    });
  }

  /**
   * The whole history of a definition or instance (a deleted instance's too, while retention keeps it), as NDJSON
   * lines: its operations oldest first, then its events in sequence order. Refuses an unknown subject before the
   * first line, as `of` does; the lines are then read page by page as the consumer pulls them.
   */
  async exportOf(
    compositionId: string,
    instanceId?: string,
    disclose: Disclosure = maskSensitive,
  ): Promise<AsyncIterable<string>> {
    const subjectId = instanceId ?? compositionId;
    await this.reads.read(async (store) => {
      if (instanceId === undefined) {
        if (!(await store.definitions.find(compositionId))) {
          throw new DomainError('NOT_FOUND', `Automation composition definition ${compositionId} not found`);
        }
        return;
      }
      const [operations, events] = await Promise.all([
        this.archive.operationsPage(subjectId, null, 1),
        this.archive.eventsPage(subjectId, 0, 1),
      ]);
      if (operations.length === 0 && events.length === 0 && !(await store.instances.find(instanceId))) {
        throw new DomainError('NOT_FOUND', `Automation composition instance ${instanceId} not found`);
      }
    });
    return this.subjectLines(subjectId, disclose);
  }

  /** The history of every subject of the runtime, deleted ones included, subject by subject in id order. */
  async *exportAll(disclose: Disclosure = maskSensitive): AsyncIterable<string> {
    let after: string | null = null;
    for (;;) {
      const subjects: string[] = await this.archive.subjectsAfter(after, EXPORT_PAGE);
      for (const subjectId of subjects) {
        yield* this.subjectLines(subjectId, disclose);
      }
      if (subjects.length < EXPORT_PAGE) {
        return;
      }
      after = subjects[subjects.length - 1] ?? null;
    }
  }

  private async *subjectLines(subjectId: string, disclose: Disclosure): AsyncIterable<string> {
    let cursor: OperationCursor | null = null;
    for (;;) {
      const operations: Operation[] = await this.archive.operationsPage(subjectId, cursor, EXPORT_PAGE);
      for (const operation of operations) {
        yield `${JSON.stringify({ record: 'operation', subjectId, ...operationView(operation) })}\n`;
      }
      const last = operations[operations.length - 1];
      if (last === undefined || operations.length < EXPORT_PAGE) {
        break;
      }
      cursor = { startedAt: last.startedAt, operationId: last.operationId };
    }
    let sequence = 0;
    for (;;) {
      const events = await this.archive.eventsPage(subjectId, sequence, EXPORT_PAGE);
      for (const event of events) {
        yield `${JSON.stringify({ record: 'event', ...presentEvent(event, disclose) })}\n`;
      }
      const last = events[events.length - 1];
      if (last === undefined || events.length < EXPORT_PAGE) {
        return;
      }
      sequence = last.sequence;
    }
  }
}

function operationView({ startedAt, deadlineAt, finishedAt, ...rest }: Operation): OperationHistoryView {
  return {
    ...rest,
    startedAt: formatLastMsg(startedAt),
    deadlineAt: formatLastMsg(deadlineAt),
    ...(finishedAt !== null ? { finishedAt: formatLastMsg(finishedAt), durationMs: finishedAt - startedAt } : {}),
  };
}
