import type { Operation } from '../ports/engine.port';
import { ackForAnotherTarget, decideInstance } from './instance-operation';
import { P1, P2, T0, ack, contextOf, element, events, instanceOf, sends, template } from './testing/instance-fixtures';

describe('ACK', () => {
  const context = contextOf([template('a', 0), template('b', 0)]);
  const started = decideInstance(
    instanceOf([element('e-a', 'a'), element('e-b', 'b', P2)]),
    null,
    { kind: 'ORDER', order: 'DEPLOY' },
    T0,
    context,
  );

  it('records each element’s result and completes the phase on its last answer', () => {
    const first = decideInstance(
      started.target,
      started.operation,
      { kind: 'ACK', ack: ack(P1, ['e-a']), answered: null, dispatched: null },
      T0 + 1,
      context,
    );
    expect(events(first)).toEqual(['ELEMENT_RESULT']);
    expect(first.operations).toEqual([]);
    const last = decideInstance(
      first.target,
      first.operation,
      { kind: 'ACK', ack: ack(P2, ['e-b']), answered: null, dispatched: null },
      T0 + 2,
      context,
    );
    expect(events(last)).toEqual(['ELEMENT_RESULT', 'PHASE_COMPLETED', 'COMPLETED']);
    expect(sends(last)).toEqual([]);
  });

  it('ignores a report for an element of another participant (NOT_OWNER) and one already applied', () => {
    const foreign = decideInstance(
      started.target,
      started.operation,
      { kind: 'ACK', ack: ack(P1, ['e-b']), answered: null, dispatched: null },
      T0 + 1,
      context,
    );
    expect(foreign.target.elements['e-b']).toEqual(started.target.elements['e-b']);
    expect(foreign.effects).toEqual([expect.objectContaining({ kind: 'IGNORE', reason: 'NOT_OWNER' })]);
    const once = decideInstance(
      started.target,
      started.operation,
      { kind: 'ACK', ack: ack(P1, ['e-a']), answered: null, dispatched: null },
      T0 + 1,
      context,
    );
    const twice = decideInstance(
      once.target,
      once.operation,
      { kind: 'ACK', ack: ack(P1, ['e-a']), answered: null, dispatched: null },
      T0 + 2,
      context,
    );
    expect(twice.target.elements).toEqual(once.target.elements);
    expect(twice.effects).toEqual([expect.objectContaining({ kind: 'IGNORE', reason: 'ALREADY_APPLIED' })]);
  });

  it('ignores an answer to a message sent for another target before anything is locked for it', () => {
    const operation = started.operation as Operation;
    expect(ackForAnotherTarget(null, null, 'i-1')).toBeNull();
    expect(ackForAnotherTarget('m-1', { operation, phase: 0 }, 'i-1')).toBeNull();
    expect(ackForAnotherTarget('m-1', { operation, phase: 0 }, 'i-2')).toEqual({
      kind: 'IGNORE',
      reason: 'UNKNOWN_MESSAGE',
      message: 'ACK answers unknown message m-1',
    });
    expect(ackForAnotherTarget('m-9', null, 'i-1')?.reason).toBe('UNKNOWN_MESSAGE');
  });
});
