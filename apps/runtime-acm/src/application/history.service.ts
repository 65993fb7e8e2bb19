import type { Operation, StoredEvent } from '@acm/domain';
import { DomainError, UnitOfWork } from '@acm/domain';
import { Injectable } from '@nestjs/common';
import type { Disclosure } from '../security/sensitive-values';
import { maskSensitive } from '../security/sensitive-values';
import { formatLastMsg } from './views';

export interface HistoryView {
  operations: Array<
    Omit<Operation, 'startedAt' | 'deadlineAt' | 'finishedAt'> & {
      startedAt: string;
      deadlineAt: string;
      finishedAt?: string;
      durationMs?: number;
    }
  >;
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

/** The append-only history of a definition or instance: its operations and every event, oldest first. */
@Injectable()
export class HistoryService {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  /** Sensitive values an event carries (a participant's message, say) are masked unless `disclose` says otherwise. */
  async of(
    compositionId: string,
    instanceId?: string,
    disclose: Disclosure = maskSensitive,
    limit = 1000,
  ): Promise<HistoryView> {
    return this.unitOfWork.read(async (store) => {
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
        operations: operations.map(({ startedAt, deadlineAt, finishedAt, ...rest }) => ({
          ...rest,
          startedAt: formatLastMsg(startedAt),
          deadlineAt: formatLastMsg(deadlineAt),
          ...(finishedAt !== null ? { finishedAt: formatLastMsg(finishedAt), durationMs: finishedAt - startedAt } : {}),
        })),
        events: events.map((event) => presentEvent(event, disclose)),
      };
    });
  }
}
