import type { HistoryEventDetails, HistoryEventKind, OperationEvent, OutboxRecord, Store } from '@acm/domain';
import { UnitOfWork } from '@acm/domain';
import { recordSpans } from '@acm/messaging/testing';
import { ROOT_CONTEXT, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import { ObservedUnitOfWork } from './observed-unit-of-work';
import { OperationTraces } from './operation-traces';

const spans = recordSpans();

/** A store with the history and the outbox only, whose transactions keep what they wrote unless the work throws. */
class FakeUnitOfWork extends UnitOfWork {
  readonly outbox: OutboxRecord[] = [];
  /** The next commit fails (a serialization failure at COMMIT) after the work is done. */
  failCommit = false;
  override async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    const queued: OutboxRecord[] = [];
    const store = {
      definitions: {},
      participants: {},
      operations: {},
      instances: {
        findForUpdate: (id: string) =>
          Promise.resolve({ value: { instanceId: id, compositionId: 'c-1', elements: {} }, version: 1 }),
      },
      events: { append: () => Promise.resolve() },
      outbox: {
        add: (records: readonly OutboxRecord[]) => {
          queued.push(...records);
          return Promise.resolve();
        },
      },
    } as unknown as Store;
    const result = await work(store);
    if (this.failCommit) {
      this.failCommit = false;
      throw new Error('could not serialize access');
    }
    this.outbox.push(...queued);
    return result;
  }
  override read<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.transaction(work);
  }
  override ping(): Promise<void> {
    return Promise.resolve();
  }
}

const event = <K extends HistoryEventKind>(name: K, detail: HistoryEventDetails[K]): OperationEvent =>
  ({
    subjectId: 'i-1',
    operationId: 'o-1',
    event: name,
    detail,
    actor: { kind: 'request', user: 'runtimeUser', requestId: 'r-1' },
    at: 1,
  }) as OperationEvent;

const phaseMessage = (messageId: string): OutboxRecord => ({
  topic: 'policy-acruntime-participant',
  key: 'c-1',
  value: JSON.stringify({ messageType: 'AUTOMATION_COMPOSITION_DEPLOY', messageId }),
});

function setUp() {
  const inner = new FakeUnitOfWork();
  const unitOfWork = new ObservedUnitOfWork(inner, [], new OperationTraces());
  const write = (within: Context, events: OperationEvent[], records: OutboxRecord[] = [], fail = false) =>
    context.with(within, () =>
      unitOfWork.transaction(async (store) => {
        await store.instances.findForUpdate('i-1');
        if (records.length > 0) {
          await store.outbox.add(records);
        }
        await store.events.append(events);
        if (fail) {
          throw new Error('conflict');
        }
      }),
    );
  return { inner, write };
}

describe(OperationTraces.name, () => {
  beforeEach(() => spans.reset());

  it('opens the operation under the request and the phase under the operation; the phase message carries the phase', async () => {
    const { inner, write } = setUp();
    const request = trace.getTracer('spec').startSpan('PUT');
    await write(
      trace.setSpan(ROOT_CONTEXT, request),
      [event('ORDERED', { order: 'DEPLOY' }), event('PHASE_STARTED', { phase: 0, messageId: 'm-0', elementIds: [] })],
      [phaseMessage('m-0'), { topic: 'acm-ppnt-sync', key: null, value: '{"messageType":"PARTICIPANT_SYNC_MSG"}' }],
    );
    request.end();
    expect(spans.spans().map((span) => span.name)).toEqual(['PUT']);

    const ack = trace.getTracer('spec').startSpan('apply');
    await write(trace.setSpan(ROOT_CONTEXT, ack), [
      event('PHASE_COMPLETED', { phase: 0 }),
      event('COMPLETED', { deployState: 'DEPLOYED', lockState: 'LOCKED' }),
    ]);
    ack.end();

    const operation = spans.one('operation DEPLOY');
    const phase = spans.one('phase 0');
    expect(operation.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(operation.attributes).toMatchObject({
      'acm.order': 'DEPLOY',
      'acm.operation_id': 'o-1',
      'acm.composition_id': 'c-1',
      'acm.instance_id': 'i-1',
      'acm.outcome': 'COMPLETED',
    });
    expect(phase.parentSpanContext?.spanId).toBe(operation.spanContext().spanId);
    const [deploy, sync] = inner.outbox;
    expect(deploy?.headers).toEqual({
      traceparent: `00-${phase.spanContext().traceId}-${phase.spanContext().spanId}-01`,
      tracestate: `acm=${operation.spanContext().spanId}`,
    });
    // A message of no phase leaves with the operation the transaction opened.
    expect(sync?.headers?.['traceparent']).toContain(operation.spanContext().spanId);
  });

  it("opens a later phase under the operation named by the ACK's tracestate (another replica took the order)", async () => {
    const { inner, write } = setUp();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
      isRemote: true,
      traceState: undefined,
    });
    const fromAck = contextWithState(remote, 'acm=1111111111111111');
    await write(
      fromAck,
      [event('PHASE_STARTED', { phase: 1, messageId: 'm-1', elementIds: [] })],
      [phaseMessage('m-1')],
    );
    await write(ROOT_CONTEXT, [event('PHASE_COMPLETED', { phase: 1 })]);

    const phase = spans.one('phase 1');
    expect(phase.spanContext().traceId).toBe(traceId);
    expect(phase.parentSpanContext?.spanId).toBe('1111111111111111');
    expect(inner.outbox[0]?.headers?.['tracestate']).toBe('acm=1111111111111111');
  });

  it('starts nothing for work that throws, and ends what a transaction that failed to commit opened', async () => {
    const { inner, write } = setUp();
    const opened = [
      event('ORDERED', { order: 'DEPLOY' }),
      event('PHASE_STARTED', { phase: 0, messageId: 'm', elementIds: [] }),
    ];
    await expect(write(ROOT_CONTEXT, opened, [phaseMessage('m')], true)).rejects.toThrow('conflict');
    expect(spans.spans()).toEqual([]);

    inner.failCommit = true;
    await expect(write(ROOT_CONTEXT, opened, [phaseMessage('m')])).rejects.toThrow('could not serialize');
    expect(inner.outbox).toEqual([]);
    expect(spans.spans().map((span) => [span.name, span.status])).toEqual([
      ['phase 0', { code: SpanStatusCode.ERROR, message: 'rolled back' }],
      ['operation DEPLOY', { code: SpanStatusCode.ERROR, message: 'rolled back' }],
    ]);
  });

  it('marks a failed operation as an error, and ends an operation a newer order replaced', async () => {
    const { write } = setUp();
    await write(ROOT_CONTEXT, [event('ORDERED', { order: 'DEPLOY' })]);
    await write(ROOT_CONTEXT, [{ ...event('ORDERED', { order: 'UNDEPLOY' }), operationId: 'o-2' }]);
    expect(spans.one('operation DEPLOY').attributes['acm.outcome']).toBe('SUPERSEDED');
    await write(ROOT_CONTEXT, [{ ...event('FAILED', { message: null }), operationId: 'o-2' }]);
    const failed = spans.one('operation UNDEPLOY');
    expect(failed.attributes['acm.outcome']).toBe('FAILED');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('writes rows without headers outside any span', async () => {
    const { inner, write } = setUp();
    await write(ROOT_CONTEXT, [], [phaseMessage('m')]);
    expect(inner.outbox).toEqual([phaseMessage('m')]);
  });
});

function contextWithState(of: Context, state: string): Context {
  const span = trace.getSpanContext(of)!;
  return trace.setSpanContext(ROOT_CONTEXT, {
    ...span,
    traceState: {
      get: (key: string) => (key === 'acm' ? state.split('=')[1] : undefined),
      set() {
        return this;
      },
      unset() {
        return this;
      },
      serialize: () => state,
    },
  });
}
