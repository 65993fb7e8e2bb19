import type { InstanceStep } from './instance-operation';
import { decideInstance, needsSupervision } from './instance-operation';
import {
  P1,
  P2,
  T0,
  ack,
  contextOf,
  element,
  events,
  instanceOf,
  runningAfter,
  sends,
  template,
} from './testing/instance-fixtures';

describe('decideInstance', () => {
  const threePhases = [template('a', 0), template('b', 1), template('c', 2)];
  const threeElements = [element('e-a', 'a'), element('e-b', 'b'), element('e-c', 'c')];

  it('deploys three phases, each opened by the ACK that closes the one before, then completes', () => {
    const context = contextOf(threePhases);
    let step = decideInstance(instanceOf(threeElements), null, { kind: 'ORDER', order: 'DEPLOY' }, T0, context);
    expect(step.operations.map((write) => write.isNew)).toEqual([true]);
    expect(sends(step).map((send) => [send.phase, send.firstPhase, send.dispatched])).toEqual([[0, true, ['e-a']]]);
    expect(step.target.deployState).toBe('DEPLOYING');
    for (const [id, next] of [
      ['e-a', 1],
      ['e-b', 2],
    ] as const) {
      step = decideInstance(
        step.target,
        runningAfter(step),
        { kind: 'ACK', ack: ack(P1, [id]), answered: null, dispatched: null },
        T0 + 1_000,
        context,
      );
      expect(events(step)).toEqual(['ELEMENT_RESULT', 'PHASE_COMPLETED']);
      expect(sends(step).map((send) => send.event)).toEqual(['PHASE_STARTED']);
      expect(sends(step).map((send) => send.phase)).toEqual([next]);
      // ONAP restarts the operation's clock at every phase.
      expect(step.operation?.deadlineAt).toBe(T0 + 1_000 + 10_000);
    }
    step = decideInstance(
      step.target,
      runningAfter(step),
      { kind: 'ACK', ack: ack(P1, ['e-c']), answered: null, dispatched: null },
      T0 + 3_000,
      context,
    );
    expect(events(step)).toEqual(['ELEMENT_RESULT', 'PHASE_COMPLETED', 'COMPLETED']);
    expect(step.target).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED', phase: null });
    expect(step.operation).toMatchObject({ state: 'COMPLETED', finishedAt: T0 + 3_000 });
    expect(step.effects).toContainEqual({ kind: 'COUNT_FINISHED', order: 'DEPLOY', result: 'COMPLETED', seconds: 3 });
    expect(step.effects.some((effect) => effect.kind === 'SYNC_INSTANCE')).toBe(true);
  });

  it('fails the operation on a failed element, sends no further phase, and a retry redoes only that element', () => {
    const context = contextOf(threePhases);
    const started = decideInstance(instanceOf(threeElements), null, { kind: 'ORDER', order: 'DEPLOY' }, T0, context);
    const afterA = decideInstance(
      started.target,
      runningAfter(started),
      { kind: 'ACK', ack: ack(P1, ['e-a']), answered: null, dispatched: null },
      T0 + 1,
      context,
    );
    const failed = decideInstance(
      afterA.target,
      runningAfter(afterA),
      { kind: 'ACK', ack: ack(P1, ['e-b'], 'FAILED'), answered: null, dispatched: null },
      T0 + 2,
      context,
    );
    expect(failed.target.stateChangeResult).toBe('FAILED');
    expect(failed.operation?.state).toBe('FAILED');
    expect(sends(failed)).toEqual([]);
    expect(events(failed)).toEqual(['ELEMENT_RESULT', 'FAILED']);
    expect(failed.effects).toContainEqual({ kind: 'COUNT_FINISHED', order: 'DEPLOY', result: 'FAILED', seconds: null });

    const retry = decideInstance(failed.target, null, { kind: 'ORDER', order: 'DEPLOY' }, T0 + 3, context);
    // e-a reached DEPLOYED and keeps it; the retry opens phase 1 for e-b (and still describes e-c of phase 2).
    expect(retry.target.elements['e-a']?.deployState).toBe('DEPLOYED');
    expect(sends(retry).map((send) => [send.phase, send.dispatched, [...(send.describe ?? [])]])).toEqual([
      [1, ['e-b'], ['e-b', 'e-c']],
    ]);
  });

  it('ignores a late ACK of the failed operation once a retry runs, and records it while none does', () => {
    const context = contextOf([template('a', 0), template('b', 0)]);
    const two = [element('e-a', 'a'), element('e-b', 'b')];
    const started = decideInstance(instanceOf(two), null, { kind: 'ORDER', order: 'DEPLOY' }, T0, context);
    const first = started.operation!;
    const failed = decideInstance(
      started.target,
      first,
      { kind: 'ACK', ack: ack(P1, ['e-a'], 'FAILED'), answered: { operation: first, phase: 0 }, dispatched: null },
      T0 + 1,
      context,
    );
    const failedOperation = failed.operation!;
    const late = { ...ack(P1, ['e-b']), responseTo: 'm-1' };
    // No newer order: the failed operation still records its other elements' results, without advancing.
    const recorded = decideInstance(
      failed.target,
      null,
      { kind: 'ACK', ack: late, answered: { operation: failedOperation, phase: 0 }, dispatched: null },
      T0 + 2,
      context,
    );
    expect(recorded.target.elements['e-b']?.deployState).toBe('DEPLOYED');
    expect(recorded.operations).toEqual([]);
    expect(sends(recorded)).toEqual([]);

    const retry = decideInstance(failed.target, null, { kind: 'ORDER', order: 'DEPLOY' }, T0 + 3, context);
    const stale = decideInstance(
      retry.target,
      retry.operation,
      { kind: 'ACK', ack: late, answered: { operation: failedOperation, phase: 0 }, dispatched: null },
      T0 + 4,
      context,
    );
    expect(stale.target).toBe(retry.target);
    expect(stale.effects).toEqual([
      { kind: 'IGNORE', reason: 'STALE', message: expect.stringContaining('a newer order replaced') },
    ]);
  });

  it('flags a timeout once and lets a late success complete the operation', () => {
    const context = contextOf([template('a', 0)]);
    const started = decideInstance(
      instanceOf([element('e-a', 'a')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      context,
    );
    const early = decideInstance(started.target, started.operation, { kind: 'TICK' }, T0 + 10_000, context);
    expect(early.effects).toEqual([]);
    const timedOut = decideInstance(started.target, started.operation, { kind: 'TICK' }, T0 + 10_001, context);
    expect(timedOut.target.stateChangeResult).toBe('TIMEOUT');
    expect(timedOut.operation).toMatchObject({ state: 'RUNNING', timedOut: true });
    expect(events(timedOut)).toEqual(['TIMEOUT']);
    const again = decideInstance(timedOut.target, timedOut.operation, { kind: 'TICK' }, T0 + 20_000, context);
    expect(again.operations).toEqual([]);
    const late = decideInstance(
      timedOut.target,
      timedOut.operation,
      { kind: 'ACK', ack: ack(P1, ['e-a']), answered: null, dispatched: null },
      T0 + 30_000,
      context,
    );
    expect(late.target).toMatchObject({ deployState: 'DEPLOYED', stateChangeResult: 'NO_ERROR' });
    expect(late.operation?.state).toBe('COMPLETED');
  });

  it('records SUPERSEDED for the running operation a newer order replaces, under that operation', () => {
    const context = contextOf([template('a', 0)]);
    const started = decideInstance(
      instanceOf([element('e-a', 'a')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      context,
    );
    const replaced = started.operation!;
    const undeploy = decideInstance(
      { ...started.target, deployState: 'DEPLOYED', stateChangeResult: 'FAILED' },
      replaced,
      { kind: 'ORDER', order: 'UNDEPLOY' },
      T0 + 1_000,
      context,
    );
    expect(undeploy.operations[0]?.operation).toMatchObject({ operationId: replaced.operationId, state: 'SUPERSEDED' });
    expect(undeploy.effects.filter((effect) => effect.kind === 'RECORD_EVENT').slice(0, 2)).toEqual([
      {
        kind: 'RECORD_EVENT',
        event: 'SUPERSEDED',
        detail: { operationId: replaced.operationId, order: 'DEPLOY', by: 'UNDEPLOY' },
        operationId: replaced.operationId,
      },
      { kind: 'RECORD_EVENT', event: 'ORDERED', detail: { order: 'UNDEPLOY' } },
    ]);
  });

  it('hands a lost replica’s share over under the original messageId, only its participant’s elements', () => {
    const context = contextOf([template('a', 0), template('b', 0)]);
    const mixed = [element('e-a', 'a', P1), element('e-b', 'b', P2)];
    const started = decideInstance(instanceOf(mixed), null, { kind: 'ORDER', order: 'DEPLOY' }, T0, context);
    const lost = (answeredBy: string[]): InstanceStep =>
      decideInstance(
        started.target,
        started.operation,
        {
          kind: 'REPLICA_LOST',
          participantId: P1,
          lost: { kind: 'SILENT', silent: new Set(['r-dead']), workers: new Set(['r-dead']) },
          messages: [{ messageId: 'm-1', answeredBy, covered: new Set(['e-a', 'e-b']) }],
        },
        T0 + 5_000,
        context,
      );
    const handed = lost(['r-dead']);
    expect(
      sends(handed).map((send) => [send.resentMessageId, send.event, Object.keys(send.instance.elements)]),
    ).toEqual([['m-1', 'PHASE_RESENT', ['e-a']]]);
    expect(handed.operation?.deadlineAt).toBe(T0 + 5_000 + 10_000);
    // A live replica answered it: it holds the work, nothing is resent.
    expect(sends(lost(['r-alive']))).toEqual([]);
  });

  it('dispatches at most maxParallelElements at once, in id order, the next one as each finishes', () => {
    const context = contextOf([template('a', 0)], 2);
    const four = ['e-4', 'e-2', 'e-3', 'e-1'].map((id) => element(id, 'a'));
    const started = decideInstance(instanceOf(four), null, { kind: 'ORDER', order: 'DEPLOY' }, T0, context);
    expect(sends(started).map((send) => send.dispatched.slice().sort())).toEqual([['e-1', 'e-2']]);
    const afterOne = decideInstance(
      started.target,
      started.operation,
      { kind: 'ACK', ack: ack(P1, ['e-2']), answered: null, dispatched: new Set(['e-1', 'e-2']) },
      T0 + 1,
      context,
    );
    expect(sends(afterOne).map((send) => [send.event, send.dispatched])).toEqual([['ELEMENTS_DISPATCHED', ['e-3']]]);
    const afterTwo = decideInstance(
      afterOne.target,
      afterOne.operation,
      { kind: 'ACK', ack: ack(P1, ['e-1']), answered: null, dispatched: new Set(['e-1', 'e-2', 'e-3']) },
      T0 + 2,
      context,
    );
    expect(sends(afterTwo).map((send) => send.dispatched)).toEqual([['e-4']]);
  });

  it('under a runtime-wide limit sends only what free slots allow, and keeps the slots the operation holds', () => {
    // No slot for the order itself: its first phase waits, flagged as the first (participants start the order on it).
    const waiting = { ...contextOf([template('a', 0), template('b', 1)], null), runtimeSlots: 0 };
    const three = [element('e-1', 'a'), element('e-2', 'a'), element('e-3', 'b')];
    const started = decideInstance(instanceOf(three), null, { kind: 'ORDER', order: 'DEPLOY' }, T0, waiting);
    expect(sends(started)).toEqual([]);
    expect(started.operation?.control).toMatchObject({ inFlight: 0, slotWait: 'FIRST_PHASE' });
    // One slot free: the phase opens with the first element in id order, the other still waits.
    const oneSlot = { ...waiting, runtimeSlots: 1 };
    const opened = decideInstance(
      started.target,
      started.operation,
      { kind: 'SLOTS', dispatched: new Set() },
      T0 + 1,
      oneSlot,
    );
    expect(sends(opened).map((send) => [send.event, send.firstPhase, send.dispatched])).toEqual([
      ['PHASE_STARTED', true, ['e-1']],
    ]);
    expect(opened.operation?.control).toMatchObject({ inFlight: 1, slotWait: 'ELEMENTS' });
    // Its ACK frees the slot but sends nothing (slots go through SLOTS, oldest operation first).
    const answered = decideInstance(
      opened.target,
      opened.operation,
      { kind: 'ACK', ack: ack(P1, ['e-1']), answered: null, dispatched: new Set(['e-1']) },
      T0 + 2,
      waiting,
    );
    expect(sends(answered)).toEqual([]);
    expect(answered.operations.map((write) => write.operation.control)).toMatchObject([
      { inFlight: 0, slotWait: 'ELEMENTS' },
    ]);
    const more = decideInstance(
      answered.target,
      answered.operation,
      { kind: 'SLOTS', dispatched: new Set(['e-1']) },
      T0 + 3,
      { ...waiting, runtimeSlots: 5 },
    );
    expect(sends(more).map((send) => [send.event, send.dispatched])).toEqual([['ELEMENTS_DISPATCHED', ['e-2']]]);
    expect(more.operation?.control).toMatchObject({ inFlight: 1, slotWait: null });
    // The phase done, the next one waits for a slot as a later phase (not the first).
    const advanced = decideInstance(
      more.target,
      more.operation,
      { kind: 'ACK', ack: ack(P1, ['e-2']), answered: null, dispatched: new Set(['e-1', 'e-2']) },
      T0 + 4,
      waiting,
    );
    expect(sends(advanced)).toEqual([]);
    expect(advanced.operation).toMatchObject({ phase: 1, control: { inFlight: 0, slotWait: 'PHASE' } });
    const next = decideInstance(
      advanced.target,
      advanced.operation,
      { kind: 'SLOTS', dispatched: new Set() },
      T0 + 5,
      oneSlot,
    );
    expect(sends(next).map((send) => [send.event, send.firstPhase, send.phase, send.dispatched])).toEqual([
      ['PHASE_STARTED', false, 1, ['e-3']],
    ]);
    // A SLOTS pass for an operation that waits for nothing changes nothing.
    const idle = decideInstance(
      next.target,
      next.operation,
      { kind: 'SLOTS', dispatched: new Set(['e-3']) },
      T0,
      oneSlot,
    );
    expect(idle.operations).toEqual([]);
    expect(sends(idle)).toEqual([]);
  });

  it('supervision leaves alone a phase whose opening waits for a runtime-wide slot: nothing of it is out', () => {
    const context = { ...contextOf([template('a', 0)]), runtimeSlots: 0 };
    const started = decideInstance(
      instanceOf([element('e-1', 'a')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      context,
    );
    const settings = { retryPolicy: null, resend: { maxWaitMs: 1_000, maxRetryCount: 3 }, noProgressTimeoutMs: 1_000 };
    expect(needsSupervision(started.target, started.operation, T0 + 60_000, { ...context, control: settings })).toBe(
      false,
    );
    const sent = decideInstance(started.target, started.operation, { kind: 'SLOTS', dispatched: new Set() }, T0, {
      ...context,
      runtimeSlots: 1,
    });
    expect(needsSupervision(sent.target, sent.operation, T0 + 60_000, { ...context, control: settings })).toBe(true);
  });

  it('without a runtime-wide limit keeps no slot count (ONAP: nothing more is written)', () => {
    const context = contextOf([template('a', 0)]);
    const started = decideInstance(
      instanceOf([element('e-1', 'a'), element('e-2', 'a')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      context,
    );
    const answered = decideInstance(
      started.target,
      started.operation,
      { kind: 'ACK', ack: ack(P1, ['e-1']), answered: null, dispatched: null },
      T0 + 1,
      context,
    );
    expect(started.operation?.control).toMatchObject({ inFlight: 0, slotWait: null });
    expect(answered.operations).toEqual([]);
  });

  it('without dependencies or a limit describes every element in transition in the phase message, as ONAP', () => {
    const context = contextOf([template('a', 0), template('b', 1)]);
    const started = decideInstance(
      instanceOf([element('e-a', 'a'), element('e-b', 'b')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      context,
    );
    expect(sends(started).map((send) => [...(send.describe ?? [])])).toEqual([['e-a', 'e-b']]);
  });
});
