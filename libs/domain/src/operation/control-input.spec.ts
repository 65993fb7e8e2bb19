import { decideInstance } from './instance-operation';
import {
  P1,
  T0,
  ack,
  contextOf,
  element,
  events,
  instanceOf,
  refusalOf,
  runningAfter,
  sends,
  stepOf,
  template,
} from './testing/instance-fixtures';

const context = contextOf([template('a', 0), template('b', 1)]);

/** A DEPLOY of two phases running, its first phase out. */
function deploying() {
  return decideInstance(
    instanceOf([element('e-a', 'a'), element('e-b', 'b')]),
    null,
    { kind: 'ORDER', order: 'DEPLOY' },
    T0,
    context,
  );
}

describe('CANCEL', () => {
  it('ends the operation CANCELLED and leaves the instance FAILED in the order’s transitional state', () => {
    const started = deploying();
    const cancelled = stepOf(
      decideInstance(
        started.target,
        started.operation,
        { kind: 'CANCEL', rollback: false, dispatched: new Set() },
        T0 + 5,
        context,
      ),
    );
    expect(cancelled.operation).toMatchObject({ state: 'CANCELLED', finishedAt: T0 + 5 });
    expect(cancelled.target).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'FAILED' });
    expect(cancelled.target.revisionId).not.toBe(started.target.revisionId);
    expect(events(cancelled)).toEqual(['CANCELLED']);
    expect(sends(cancelled)).toEqual([]);
    // ONAP's table for DEPLOYING + FAILED: both DEPLOY again and UNDEPLOY are allowed next.
    expect(
      stepOf(decideInstance(cancelled.target, null, { kind: 'ORDER', order: 'UNDEPLOY' }, T0 + 6, context)).operation,
    ).toMatchObject({ order: 'UNDEPLOY', state: 'RUNNING' });
  });

  it('with rollback starts the reverse order for what the cancelled operation set going', () => {
    const started = deploying();
    const afterA = decideInstance(
      started.target,
      runningAfter(started),
      { kind: 'ACK', ack: ack(P1, ['e-a']), answered: null, dispatched: null },
      T0 + 1,
      context,
    );
    const rolledBack = stepOf(
      decideInstance(
        afterA.target,
        afterA.operation,
        { kind: 'CANCEL', rollback: true, dispatched: new Set(['e-a', 'e-b']) },
        T0 + 2,
        context,
      ),
    );
    expect(rolledBack.operations.map((write) => [write.operation.order, write.operation.state, write.isNew])).toEqual([
      ['DEPLOY', 'CANCELLED', false],
      ['UNDEPLOY', 'RUNNING', true],
    ]);
    expect(events(rolledBack)).toEqual(['CANCELLED', 'ORDERED']);
    // Both were set going; the undeploy walks the phases backwards, so the later phase's element goes first.
    expect(sends(rolledBack).map((send) => [send.event, send.phase, send.dispatched])).toEqual([
      ['PHASE_STARTED', 1, ['e-b']],
    ]);
    expect(rolledBack.target.elements['e-a']).toMatchObject({ deployState: 'UNDEPLOYING' });
  });

  it('is refused with NOTHING_RUNNING when nothing runs, and for an order with no reverse when rollback is asked', () => {
    const idle = instanceOf([element('e-a', 'a')]);
    expect(
      refusalOf(decideInstance(idle, null, { kind: 'CANCEL', rollback: false, dispatched: new Set() }, T0, context)),
    ).toMatchObject({ code: 'NOTHING_RUNNING', message: expect.stringContaining('Cannot cancel the instance') });
    const deleting = decideInstance(
      { ...idle, deployState: 'UNDEPLOYED' },
      null,
      { kind: 'ORDER', order: 'DELETE' },
      T0,
      context,
    );
    expect(
      refusalOf(
        decideInstance(
          deleting.target,
          deleting.operation,
          { kind: 'CANCEL', rollback: true, dispatched: new Set() },
          T0,
          context,
        ),
      ),
    ).toMatchObject({ code: 'ORDER_NOT_ALLOWED', message: expect.stringContaining('DELETE has no reverse order') });
  });
});

describe('PAUSE', () => {
  it('stops the operation’s clock once; a second pause changes nothing', () => {
    const started = deploying();
    const paused = stepOf(decideInstance(started.target, started.operation, { kind: 'PAUSE' }, T0 + 3, context));
    expect(paused.operation?.control.pausedAt).toBe(T0 + 3);
    expect(events(paused)).toEqual(['PAUSED']);
    const again = stepOf(decideInstance(paused.target, paused.operation, { kind: 'PAUSE' }, T0 + 4, context));
    expect(again.operations).toEqual([]);
    expect(again.effects).toEqual([]);
  });

  it('is refused with NOTHING_RUNNING when nothing runs', () => {
    expect(
      refusalOf(decideInstance(instanceOf([element('e-a', 'a')]), null, { kind: 'PAUSE' }, T0, context)).code,
    ).toBe('NOTHING_RUNNING');
  });
});

describe('RESUME', () => {
  it('moves the deadline by the time paused and sends what answers recorded meanwhile made due', () => {
    const started = deploying();
    const paused = stepOf(decideInstance(started.target, started.operation, { kind: 'PAUSE' }, T0 + 1_000, context));
    // The phase's last answer arrives while paused: recorded, nothing sent.
    const answered = decideInstance(
      paused.target,
      paused.operation,
      { kind: 'ACK', ack: ack(P1, ['e-a']), answered: null, dispatched: null },
      T0 + 2_000,
      context,
    );
    expect(sends(answered)).toEqual([]);
    const resumed = stepOf(
      decideInstance(
        answered.target,
        paused.operation,
        { kind: 'RESUME', dispatched: new Set(['e-a']) },
        T0 + 4_000,
        context,
      ),
    );
    expect(events(resumed)).toEqual(['RESUMED', 'PHASE_COMPLETED']);
    expect(sends(resumed).map((send) => [send.phase, send.dispatched])).toEqual([[1, ['e-b']]]);
    expect(resumed.operation?.control).toMatchObject({ pausedAt: null, pausedMs: 3_000 });
  });

  it('keeps the deadline of a phase still open moved by the pause, and is refused when not paused', () => {
    const started = deploying();
    const deadlineAt = started.operation!.deadlineAt;
    const paused = stepOf(decideInstance(started.target, started.operation, { kind: 'PAUSE' }, T0 + 1_000, context));
    const resumed = stepOf(
      decideInstance(
        paused.target,
        paused.operation,
        { kind: 'RESUME', dispatched: new Set(['e-a']) },
        T0 + 6_000,
        context,
      ),
    );
    expect(resumed.operation?.deadlineAt).toBe(deadlineAt + 5_000);
    expect(sends(resumed)).toEqual([]);
    expect(
      refusalOf(
        decideInstance(resumed.target, resumed.operation, { kind: 'RESUME', dispatched: new Set() }, T0, context),
      ),
    ).toMatchObject({
      code: 'NOTHING_RUNNING',
      message: 'Cannot resume the instance: its DEPLOY is running, not paused; allowed now: pause, cancel',
    });
  });
});
