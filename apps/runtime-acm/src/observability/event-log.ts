import type { HistoryEventKind } from '@acm/domain';
import type { Logger } from 'pino';
import type { CommitObserver, CommittedEvent, ReplicaChange } from './observed-unit-of-work';

/** Detail fields copied to a log line: identifiers, states and results, never properties or their problems. */
const DETAIL_FIELDS = [
  'order',
  'phase',
  'messageId',
  'elementId',
  'participantId',
  'deployState',
  'lockState',
  'state',
  'result',
  'message',
] as const;

const WARNINGS: ReadonlySet<HistoryEventKind> = new Set(['FAILED', 'TIMEOUT', 'PROPERTY_PROBLEMS']);

/** The events that end (or flag) an operation: their lines say which order it was and how long it took. */
const OUTCOMES: ReadonlySet<HistoryEventKind> = new Set(['COMPLETED', 'FAILED', 'TIMEOUT', 'CANCELLED', 'SUPERSEDED']);

/**
 * One log line per history event as it commits (order, phase start and end, element result, resend, timeout,
 * completion, failure) and per participant replica state change, each with the composition, instance and operation.
 */
export class EventLog implements CommitObserver {
  private readonly log: Logger;

  constructor(logger: Logger) {
    this.log = logger.child({ context: 'Engine' });
  }

  committed(events: readonly CommittedEvent[], replicas: readonly ReplicaChange[]): void {
    for (const event of events) {
      const detail: Readonly<Record<string, unknown>> = event.detail;
      const fields: Record<string, unknown> = {
        event: event.event,
        compositionId: event.compositionId,
        instanceId: event.instanceId,
        operationId: event.operationId,
      };
      for (const key of DETAIL_FIELDS) {
        if (detail[key] !== undefined) {
          fields[key] = detail[key];
        }
      }
      const nameOf = (id: string): string | undefined => event.elementNames?.get(id);
      if (typeof detail['elementId'] === 'string' && nameOf(detail['elementId']) !== undefined) {
        fields['elementName'] = nameOf(detail['elementId']);
      }
      if (Array.isArray(detail['elementIds'])) {
        fields['elementIds'] = detail['elementIds'];
        if (event.elementNames !== undefined) {
          fields['elementNames'] = (detail['elementIds'] as string[]).map((id) => nameOf(id) ?? id);
        }
      }
      if (OUTCOMES.has(event.event) && event.operation !== undefined) {
        fields['order'] = event.operation.order;
        fields['durationMs'] = event.at - event.operation.startedAt;
      }
      if (event.event === 'PROPERTY_PROBLEMS') {
        fields['problems'] = event.detail.problems.length;
      }
      const line = describe(event);
      if (WARNINGS.has(event.event)) {
        this.log.warn(fields, line);
      } else {
        this.log.info(fields, line);
      }
    }
    for (const change of replicas) {
      this.log.info(
        { event: 'PARTICIPANT_STATE', ...change },
        `participant ${change.participantId} replica ${change.replicaId ?? '(silent ones)'}: ${change.from ?? 'NEW'} -> ${change.to}`,
      );
    }
  }
}

function describe(event: CommittedEvent): string {
  const subject = event.instanceId !== null ? `instance ${event.instanceId}` : `composition ${event.subjectId}`;
  switch (event.event) {
    case 'ORDERED':
      return `${event.detail.order} ordered on ${subject}`;
    case 'PHASE_STARTED':
    case 'PHASE_RESENT':
    case 'PHASE_COMPLETED':
      return `${event.event} phase ${String(event.detail.phase)} of ${subject}`;
    case 'ELEMENT_RESULT': {
      const { elementId, deployState, lockState, result } = event.detail;
      const name = event.elementNames?.get(elementId);
      return `element ${name === undefined ? elementId : `${name} (${elementId})`} of ${subject}: ${deployState}/${lockState}${result ? '' : ' FAILED'}`;
    }
    default:
      return OUTCOMES.has(event.event) && event.operation !== undefined
        ? `${event.event} ${event.operation.order} of ${subject} after ${seconds(event.at - event.operation.startedAt)}`
        : `${event.event} ${subject}`;
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(3)} s`;
