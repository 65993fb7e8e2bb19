import type { ControlSettings, InstanceStep } from './instance-operation';
import { decideInstance, needsSupervision, supervisionDueOf } from './instance-operation';
import {
  P1,
  T0,
  ack,
  contextOf,
  element,
  events,
  instanceOf,
  sends,
  stepOf,
  template,
} from './testing/instance-fixtures';

const settings: ControlSettings = {
  retryPolicy: null,
  resend: { maxWaitMs: 1_000, maxRetryCount: 2 },
  noProgressTimeoutMs: 3_000,
};
const context = { ...contextOf([template('a', 0)]), defaultTimeoutMs: 60_000, control: settings };
const nothingRead = { kind: 'SUPERVISE' as const, messages: [], retrying: [], reported: new Set<string>() };

function deploying(): InstanceStep {
  return decideInstance(
    instanceOf([element('e-1', 'a'), element('e-2', 'a')]),
    null,
    { kind: 'ORDER', order: 'DEPLOY' },
    T0,
    context,
  );
}

describe('TICK', () => {
  it('flags an overdue operation TIMEOUT once; before its deadline it changes nothing', () => {
    const started = deploying();
    expect(
      decideInstance(started.target, started.operation, { kind: 'TICK' }, T0 + 60_000, context).operations,
    ).toEqual([]);
    const timedOut = decideInstance(started.target, started.operation, { kind: 'TICK' }, T0 + 60_001, context);
    expect(events(timedOut)).toEqual(['TIMEOUT']);
    expect(timedOut.target.stateChangeResult).toBe('TIMEOUT');
    expect(
      decideInstance(timedOut.target, timedOut.operation, { kind: 'TICK' }, T0 + 90_000, context).operations,
    ).toEqual([]);
  });
});

describe('SUPERVISE', () => {
  it('resends a silent phase under its original messageId, describing only what has not answered', () => {
    const started = deploying();
    const answered = decideInstance(
      started.target,
      started.operation,
      { kind: 'ACK', ack: ack(P1, ['e-1']), answered: null, dispatched: null },
      T0 + 10,
      context,
    );
    const input = { ...nothingRead, messages: [{ messageId: 'm-1', answeredBy: [], covered: null }] };
    expect(decideInstance(answered.target, answered.operation, input, T0 + 1_009, context).effects).toEqual([]);
    const resent = decideInstance(answered.target, answered.operation, input, T0 + 1_010, context);
    expect(sends(resent).map((send) => [send.resentMessageId, send.event, send.dispatched])).toEqual([
      ['m-1', 'PHASE_RESENT', ['e-2']],
    ]);
    expect(events(resent)).toEqual(['RESENT']);
    // The deadline stays; the next resend counts from this one, with the delay doubled.
    expect(resent.operation).toMatchObject({ deadlineAt: answered.operation?.deadlineAt, control: { resent: 1 } });
    expect(supervisionDueOf(resent.target, resent.operation!, context)?.resendAt).toBe(T0 + 1_010 + 2_000);
  });

  it('reports elements silent past their no-progress timeout once per silence', () => {
    const quiet = { ...settings, resend: { maxWaitMs: 0, maxRetryCount: 0 } };
    const started = stepOf(deploying());
    const stuck = decideInstance(started.target, started.operation, nothingRead, T0 + 3_000, {
      ...context,
      control: quiet,
    });
    expect(stuck.effects).toContainEqual(
      expect.objectContaining({
        kind: 'RECORD_EVENT',
        event: 'NO_PROGRESS',
        detail: expect.objectContaining({ elementIds: ['e-1', 'e-2'] }),
      }),
    );
    const reported = { ...nothingRead, reported: new Set(['e-1', 'e-2']) };
    expect(
      decideInstance(started.target, started.operation, reported, T0 + 4_000, { ...context, control: quiet }).effects,
    ).toEqual([]);
  });

  it('sends a due retry of the failed elements alone, under a new message, restarting the phase’s clock', () => {
    const retrying = {
      ...context,
      control: {
        ...settings,
        retryPolicy: { limit: 1, backoff: { durationMs: 500, factor: 2, maxDurationMs: 5_000 } },
      },
    };
    const started = decideInstance(
      instanceOf([element('e-1', 'a'), element('e-2', 'a')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      retrying,
    );
    const failed = decideInstance(
      started.target,
      started.operation,
      { kind: 'ACK', ack: ack(P1, ['e-1'], 'FAILED'), answered: null, dispatched: null },
      T0 + 10,
      retrying,
    );
    expect(events(failed)).toEqual(['ELEMENT_RESULT', 'RETRY_SCHEDULED']);
    expect(failed.operation?.control.retryAt).toBe(T0 + 510);
    expect(needsSupervision(failed.target, failed.operation, T0 + 509, retrying)).toBe(false);
    const input = { ...nothingRead, retrying: ['e-1'] };
    const retried = decideInstance(failed.target, failed.operation, input, T0 + 510, retrying);
    expect(sends(retried).map((send) => [send.event, send.resentMessageId, send.dispatched])).toEqual([
      ['RETRY_STARTED', null, ['e-1']],
    ]);
    expect(retried.operation).toMatchObject({ deadlineAt: T0 + 510 + 60_000, control: { retryAt: null, resent: 0 } });
  });

  it('leaves a paused operation alone, whatever is due', () => {
    const started = deploying();
    const paused = stepOf(decideInstance(started.target, started.operation, { kind: 'PAUSE' }, T0, context));
    expect(needsSupervision(paused.target, paused.operation, T0 + 50_000, context)).toBe(false);
    expect(supervisionDueOf(paused.target, paused.operation!, context)).toBeNull();
    expect(decideInstance(paused.target, paused.operation, nothingRead, T0 + 50_000, context).effects).toEqual([]);
  });
});
