import type { Signal } from '../control/wait-condition';
import type { InstanceStep } from './instance-operation';
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
  sends,
  stepOf,
  template,
  waitTemplate,
} from './testing/instance-fixtures';

const context = contextOf([waitTemplate('w', 0, { count: 2, timeout: 5 }), template('b', 1)]);

function signal(id: string, status: Signal['status'] = 'SUCCESS'): Signal {
  return { id, status, reason: null };
}

function deploying(): InstanceStep {
  return decideInstance(
    instanceOf([element('e-w', 'w', null), element('e-b', 'b')]),
    null,
    { kind: 'ORDER', order: 'DEPLOY' },
    T0,
    context,
  );
}

function signalled(step: InstanceStep, id: string, status: Signal['status'] = 'SUCCESS', now = T0 + 1) {
  return decideInstance(
    step.target,
    step.operation,
    { kind: 'SIGNAL', elementId: 'e-w', signal: signal(id, status) },
    now,
    context,
  );
}

describe('SIGNAL', () => {
  it('a deploy starts the wait, whose own timeout pulls the operation’s deadline in', () => {
    const started = deploying();
    expect(events(started)).toEqual(['ORDERED', 'WAIT_STARTED']);
    expect(started.operation?.deadlineAt).toBe(T0 + 5_000);
  });

  it('counts SUCCESS signals; the count-th completes the element and opens the next phase', () => {
    const counted = stepOf(signalled(deploying(), 's-1'));
    expect(counted.effects).toContainEqual({
      kind: 'COUNT_SIGNAL',
      elementId: 'e-w',
      status: 'SUCCESS',
      effect: 'COUNTED',
    });
    expect(counted.target.elements['e-w']?.deployState).toBe('DEPLOYING');
    const completed = stepOf(signalled(counted, 's-2', 'SUCCESS', T0 + 2));
    expect(events(completed)).toEqual(['SIGNAL_RECEIVED', 'WAIT_COMPLETED', 'ELEMENT_RESULT', 'PHASE_COMPLETED']);
    expect(completed.target.elements['e-w']?.deployState).toBe('DEPLOYED');
    expect(sends(completed).map((send) => [send.phase, send.dispatched])).toEqual([[1, ['e-b']]]);
  });

  it('a signal id already counted changes nothing (DUPLICATE)', () => {
    const counted = stepOf(signalled(deploying(), 's-1'));
    const again = stepOf(signalled(counted, 's-1'));
    expect(again.target).toBe(counted.target);
    expect(again.operations).toEqual([]);
    expect(again.effects).toEqual([{ kind: 'COUNT_SIGNAL', elementId: 'e-w', status: 'SUCCESS', effect: 'DUPLICATE' }]);
  });

  it('a FAILURE signal fails the element and, with no retry policy, the operation', () => {
    const failed = stepOf(signalled(deploying(), 's-1', 'FAILURE'));
    expect(events(failed)).toEqual(['SIGNAL_RECEIVED', 'WAIT_FAILED', 'ELEMENT_RESULT', 'FAILED']);
    expect(failed.operation?.state).toBe('FAILED');
  });

  it('is refused for an unknown element, an element run by a participant, and a wait that does not run', () => {
    const started = deploying();
    expect(
      refusalOf(
        decideInstance(
          started.target,
          started.operation,
          { kind: 'SIGNAL', elementId: 'nope', signal: signal('s') },
          T0,
          context,
        ),
      ),
    ).toMatchObject({ code: 'NOT_FOUND', message: 'Element nope not found in instance i-1' });
    expect(
      refusalOf(
        decideInstance(
          started.target,
          started.operation,
          { kind: 'SIGNAL', elementId: 'e-b', signal: signal('s') },
          T0,
          context,
        ),
      ),
    ).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('must name a wait-condition element'),
    });
    const idle = instanceOf([element('e-w', 'w', null)]);
    expect(
      refusalOf(decideInstance(idle, null, { kind: 'SIGNAL', elementId: 'e-w', signal: signal('s') }, T0, context)),
    ).toMatchObject({
      code: 'NOTHING_RUNNING',
      message: expect.stringContaining('Cannot signal element e-w: no wait is running (wait never started'),
    });
  });

  it('a timed-out operation times its waits out: a signal then is refused', () => {
    const started = deploying();
    const timedOut = stepOf(decideInstance(started.target, started.operation, { kind: 'TICK' }, T0 + 5_001, context));
    expect(events(timedOut)).toEqual(['TIMEOUT', 'WAIT_TIMED_OUT']);
    expect(refusalOf(signalled(timedOut, 's-1')).message).toContain('wait TIMED_OUT');
  });

  it('an order other than DEPLOY completes a wait condition at once, through the ACK rules', () => {
    const deployed = instanceOf([
      { ...element('e-w', 'w', null), deployState: 'DEPLOYED' },
      { ...element('e-b', 'b'), deployState: 'DEPLOYED' },
    ]);
    const undeploy = stepOf(
      decideInstance({ ...deployed, deployState: 'DEPLOYED' }, null, { kind: 'ORDER', order: 'UNDEPLOY' }, T0, context),
    );
    // Phase 1 (e-b) goes first; e-w waits for phase 0.
    expect(undeploy.target.elements['e-w']?.deployState).toBe('UNDEPLOYING');
    expect(sends(undeploy).map((send) => [send.phase, send.dispatched])).toEqual([[1, ['e-b']]]);
    const undeployedB = {
      ...ack(P1, ['e-b']),
      reports: [{ elementId: 'e-b', deployState: 'UNDEPLOYED' as const, lockState: 'NONE' as const, result: true }],
    };
    const done = stepOf(
      decideInstance(
        undeploy.target,
        undeploy.operation,
        { kind: 'ACK', ack: undeployedB, answered: null, dispatched: null },
        T0 + 1,
        context,
      ),
    );
    // Phase 0 opens with only the wait condition: the runtime answers for it at once, and the operation completes.
    expect(done.target.elements['e-w']?.deployState).toBe('UNDEPLOYED');
    expect(done.operation?.state).toBe('COMPLETED');
    expect(sends(done).map((send) => [send.phase, send.publish])).toEqual([[0, false]]);
  });
});
