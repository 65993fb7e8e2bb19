import { traceHeaders } from '@acm/messaging';
import type { HistoryEventKind, OutboxRecord } from '@acm/domain';
import { dispatchOf } from '@acm/domain';
import { ROOT_CONTEXT, SpanStatusCode, context, createTraceState, trace } from '@opentelemetry/api';
import type { Context, Span, SpanContext } from '@opentelemetry/api';
import type { CommittedEvent, TracedTransaction, TransactionTracer } from './observed-unit-of-work';

/** The tracestate key that carries the operation span's id to the participant and back in its ACK. */
export const OPERATION_STATE_KEY = 'acm';

/** Operation spans a replica keeps open at most; past it the oldest is ended (outcome unknown). */
const DEFAULT_CAPACITY = 10_000;

const END_EVENTS: ReadonlySet<HistoryEventKind> = new Set([
  'COMPLETED',
  'FAILED',
  'TIMEOUT',
  'CANCELLED',
  'SUPERSEDED',
]);

/** The message an event records as sent (a phase message, or a definition's resent PRIME), with its phase. */
function sentMessageOf(event: CommittedEvent): { messageId: string; phase: number } | null {
  if (event.event === 'RESENT') {
    return 'messageId' in event.detail ? { messageId: event.detail.messageId, phase: 0 } : null;
  }
  return dispatchOf(event);
}

interface OpenOperation {
  readonly span: Span;
  readonly subjectId: string;
}

function tracer() {
  return trace.getTracer('acm-runtime');
}

/** `of`'s context with the operation span's id in its tracestate, so a participant's ACK carries it back. */
function withOperation(of: SpanContext, operationSpanId: string): Context {
  const state = (of.traceState ?? createTraceState()).set(OPERATION_STATE_KEY, operationSpanId);
  return trace.setSpanContext(ROOT_CONTEXT, { ...of, traceState: state });
}

function messageIdOf(value: string): string | undefined {
  try {
    const parsed = JSON.parse(value) as { messageId?: unknown };
    return typeof parsed.messageId === 'string' ? parsed.messageId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Spans of operations and phases, started from what a transaction writes to the history and ended from what a later
 * one commits (docs/architecture.md, "Tracing"). The engine knows nothing of them: `ObservedUnitOfWork` hands each
 * traced transaction's history events and outbox rows here before it commits, and the rows leave with the trace
 * context of the span they belong to (a phase message: its phase span).
 *
 * An operation span starts with the order's transaction (under the request's span) and ends when this replica commits
 * the operation's end (COMPLETED, FAILED, TIMEOUT, CANCELLED, or a newer order of the same subject). A phase span
 * starts with the transaction that opens the phase and ends with the one that commits PHASE_COMPLETED (or the
 * operation's end). The operation span's id travels in `tracestate` (`acm=<span id>`), so a replica that did not
 * take the order still opens its phases under the operation span; only the replica that took the order can end the
 * operation span.
 */
export class OperationTraces implements TransactionTracer {
  private readonly operations = new Map<string, OpenOperation>();
  private readonly phases = new Map<string, Span>();

  constructor(private readonly capacity: number = DEFAULT_CAPACITY) {}

  /** Starts the spans a transaction opens and stamps its outbox rows; `settle` once it committed or rolled back. */
  begin(): TracedTransaction {
    return new OperationTransaction(this);
  }

  /** @internal */
  operation(operationId: string): OpenOperation | undefined {
    return this.operations.get(operationId);
  }

  /** @internal */
  phase(operationId: string, phase: number): Span | undefined {
    return this.phases.get(`${operationId}:${phase}`);
  }

  /** @internal Registers what a committed transaction started, then ends what it finished. */
  commit(
    operations: ReadonlyMap<string, OpenOperation>,
    phases: ReadonlyMap<string, Span>,
    events: readonly CommittedEvent[],
  ): void {
    for (const [operationId, open] of operations) {
      for (const [otherId, other] of this.operations) {
        if (other.subjectId === open.subjectId) {
          this.endOperation(otherId, 'SUPERSEDED');
        }
      }
      this.operations.set(operationId, open);
      if (this.operations.size > this.capacity) {
        const oldest = this.operations.keys().next().value as string;
        this.endOperation(oldest, 'UNKNOWN');
      }
    }
    for (const [key, span] of phases) {
      this.phases.get(key)?.end();
      this.phases.set(key, span);
    }
    for (const event of events) {
      if (event.operationId === null) {
        continue;
      }
      if (event.event === 'PHASE_COMPLETED' && event.detail.phase !== null) {
        const key = `${event.operationId}:${event.detail.phase}`;
        this.phases.get(key)?.end();
        this.phases.delete(key);
      } else if (END_EVENTS.has(event.event)) {
        this.endOperation(event.operationId, event.event);
      }
    }
  }

  private endOperation(operationId: string, outcome: string): void {
    for (const [key, span] of this.phases) {
      if (key.startsWith(`${operationId}:`)) {
        span.end();
        this.phases.delete(key);
      }
    }
    const open = this.operations.get(operationId);
    if (open === undefined) {
      return;
    }
    open.span.setAttribute('acm.outcome', outcome);
    if (outcome === 'FAILED' || outcome === 'TIMEOUT') {
      open.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    }
    open.span.end();
    this.operations.delete(operationId);
  }
}

/** What one transaction started, until it commits (spans kept) or rolls back (spans ended as rolled back). */
class OperationTransaction implements TracedTransaction {
  private readonly operations = new Map<string, OpenOperation>();
  private readonly phases = new Map<string, Span>();
  private events: readonly CommittedEvent[] = [];

  constructor(private readonly traces: OperationTraces) {}

  /** Called inside the transaction once its work is done: starts its spans, returns its rows with their headers. */
  stamp(events: readonly CommittedEvent[], records: readonly OutboxRecord[]): OutboxRecord[] {
    this.events = events;
    const active = context.active();
    const activeContext = trace.getSpanContext(active);
    const remoteOperation = activeContext?.traceState?.get(OPERATION_STATE_KEY);
    for (const event of events) {
      if (event.event === 'ORDERED' && event.operationId !== null) {
        const span = tracer().startSpan(
          `operation ${event.detail.order}`,
          {
            attributes: {
              'acm.order': event.detail.order,
              'acm.operation_id': event.operationId,
              ...(event.compositionId === null ? {} : { 'acm.composition_id': event.compositionId }),
              ...(event.instanceId === null ? {} : { 'acm.instance_id': event.instanceId }),
            },
          },
          active,
        );
        this.operations.set(event.operationId, { span, subjectId: event.subjectId });
      }
    }
    const operationSpanId = (operationId: string): string | undefined =>
      (this.operations.get(operationId) ?? this.traces.operation(operationId))?.span.spanContext().spanId ??
      remoteOperation;
    const operationContext = (operationId: string): Context => {
      const local = this.operations.get(operationId) ?? this.traces.operation(operationId);
      if (local !== undefined) {
        return trace.setSpan(ROOT_CONTEXT, local.span);
      }
      if (activeContext !== undefined && remoteOperation !== undefined) {
        return trace.setSpanContext(ROOT_CONTEXT, { ...activeContext, spanId: remoteOperation, isRemote: true });
      }
      return active;
    };
    const byMessage = new Map<string, Context>();
    for (const event of events) {
      const sent = sentMessageOf(event);
      if (event.operationId === null || sent === null) {
        continue;
      }
      const { messageId, phase } = sent;
      const key = `${event.operationId}:${phase}`;
      let span =
        this.phases.get(key) ??
        (event.event === 'PHASE_STARTED' ? undefined : this.traces.phase(event.operationId, phase));
      if (span === undefined && event.event === 'PHASE_STARTED') {
        span = tracer().startSpan(
          `phase ${phase}`,
          {
            attributes: {
              'acm.operation_id': event.operationId,
              'acm.phase': phase,
              'acm.message_id': messageId,
              ...(event.instanceId === null ? {} : { 'acm.instance_id': event.instanceId }),
            },
          },
          operationContext(event.operationId),
        );
        this.phases.set(key, span);
      }
      const of = span === undefined ? trace.getSpanContext(operationContext(event.operationId)) : span.spanContext();
      const operation = operationSpanId(event.operationId);
      if (of !== undefined) {
        byMessage.set(
          messageId,
          operation === undefined ? trace.setSpanContext(ROOT_CONTEXT, of) : withOperation(of, operation),
        );
      }
    }
    const [only] = this.operations.values();
    const fallback =
      this.operations.size === 1 && only !== undefined
        ? withOperation(only.span.spanContext(), only.span.spanContext().spanId)
        : active;
    return records.map((record) => {
      const messageId = messageIdOf(record.value);
      const headers = traceHeaders((messageId === undefined ? undefined : byMessage.get(messageId)) ?? fallback);
      return Object.keys(headers).length === 0 ? record : { ...record, headers };
    });
  }

  /** After the transaction: its spans live on when it committed; they end, marked rolled back, when it did not. */
  settle(committed: boolean): void {
    if (committed) {
      this.traces.commit(this.operations, this.phases, this.events);
      return;
    }
    for (const span of [...this.phases.values(), ...[...this.operations.values()].map((open) => open.span)]) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'rolled back' });
      span.end();
    }
  }
}
