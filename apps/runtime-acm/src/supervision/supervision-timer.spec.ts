import type { JsonObject } from '@acm/domain';

import { EngineFixture, STARTED_AT } from '../engine/testing/engine-fixture';
import type { TimerFunctions } from './supervision-timer';
import { DueTimeNudge, SupervisionTimer } from './supervision-timer';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c01';

/** setTimeout by hand: the test moves the fake clock to the armed time and fires. */
class ManualTimers implements TimerFunctions {
  armed: { readonly ms: number } | null = null;
  setTimeout(_callback: () => void, ms: number): unknown {
    this.armed = { ms };
    return this.armed;
  }
  clearTimeout(handle: unknown): void {
    if (this.armed === handle) {
      this.armed = null;
    }
  }
}

/**
 * One element on one participant, deployed at STARTED_AT, supervised only by the timer (no scan runs): each case
 * reads the due time the domain stored, moves the clock there, fires, and reads when the event was recorded.
 */
async function deployed(env: Record<string, string>, metadata: JsonObject = {}) {
  const fixture = new EngineFixture({ MAX_WAIT_MS: '0', MAX_OPERATION_WAIT: '200000', ...env });
  const definition = await fixture.definition('tosca/examples/sim-single-element.yaml', () => P1, metadata);
  const { instanceId } = await fixture.instance(definition);
  const timers = new ManualTimers();
  const timer = new SupervisionTimer(fixture.supervisor, fixture.clock, new DueTimeNudge(), timers);
  await fixture.order(instanceId, 'DEPLOY');
  const [phase] = await fixture.take();
  const stored = async (): Promise<number | null> =>
    (await fixture.unitOfWork.read((store) => store.operations.findRunning(instanceId)))?.control.dueAt ?? null;
  /** Arms as at start or on a scan, moves the clock to the armed time and fires: the due and fired times. */
  const fireNext = async (): Promise<{ due: number; armed: number }> => {
    const due = (await stored())!;
    await timer.refresh();
    const armed = timer.armedAt!;
    expect(timers.armed?.ms).toBe(armed - fixture.clock.now());
    fixture.clock.advance(armed - fixture.clock.now());
    await timer.fire();
    return { due, armed };
  };
  const at = async (name: string): Promise<number[]> =>
    (await fixture.events(instanceId)).filter((event) => event.event === name).map((event) => event.at);
  return { fixture, instanceId, phase: phase!, timer, stored, fireNext, at };
}

describe('the supervision timer fires each kind of due time when it falls due (fake clock)', () => {
  it('a phase deadline: TIMEOUT at the deadline (the first millisecond past it), and nothing due after', async () => {
    const h = await deployed({ MAX_OPERATION_WAIT: '1000' });
    const { due, armed } = await h.fireNext();
    expect(due).toBe(STARTED_AT + 1_001);
    expect(armed).toBe(due);
    expect(await h.at('TIMEOUT')).toEqual([STARTED_AT + 1_001]);
    expect((await h.fixture.current(h.instanceId))?.stateChangeResult).toBe('TIMEOUT');
    expect(await h.stored()).toBeNull();
  });

  it('a resend after MAX_WAIT_MS, then the next one after twice that; two replicas firing together resend once', async () => {
    const h = await deployed({ MAX_WAIT_MS: '1500', MAX_RETRY_COUNT: '3' });
    const other = new SupervisionTimer(h.fixture.supervisor, h.fixture.clock, new DueTimeNudge(), new ManualTimers());
    const first = await h.fireNext();
    await other.fire();
    expect(first).toEqual({ due: STARTED_AT + 1_500, armed: STARTED_AT + 1_500 });
    expect(await h.at('RESENT')).toEqual([STARTED_AT + 1_500]);
    const second = await h.fireNext();
    expect(second.due).toBe(STARTED_AT + 1_500 + 3_000);
    expect(await h.at('RESENT')).toEqual([STARTED_AT + 1_500, STARTED_AT + 4_500]);
  });

  it('a retry after its backoff', async () => {
    const policy = { retryPolicy: { limit: 1, backoff: { durationMs: 1_000, factor: 2, maxDurationMs: 5_000 } } };
    const h = await deployed({}, policy);
    h.fixture.clock.advance(100);
    await h.fixture.engine.applyInstanceAck(
      h.fixture.ackOf(h.phase, P1, { deployState: 'UNDEPLOYED', lockState: 'NONE' }, { failed: true }),
    );
    expect(await h.at('RETRY_SCHEDULED')).toEqual([STARTED_AT + 100]);
    const { due, armed } = await h.fireNext();
    expect(due).toBe(STARTED_AT + 1_100);
    expect(armed).toBe(due);
    expect(await h.at('RETRY_ATTEMPT')).toEqual([STARTED_AT + 1_100]);
  });

  it('a no-progress report once, then the deadline is what stays due', async () => {
    const h = await deployed({ NO_PROGRESS_TIMEOUT: '2000' });
    const { due } = await h.fireNext();
    expect(due).toBe(STARTED_AT + 2_000);
    expect(await h.at('NO_PROGRESS')).toEqual([STARTED_AT + 2_000]);
    // Reported once per silence: the next due time is the deadline, not the same report again.
    expect(await h.stored()).toBe(STARTED_AT + 200_001);
  });

  it('a due time stored too early (progress not written on the operation) fires, acts on nothing, is corrected', async () => {
    const h = await deployed({ MAX_WAIT_MS: '1500', MAX_RETRY_COUNT: '3' });
    await h.fixture.unitOfWork.transaction(async (store) => {
      const running = (await store.operations.findRunning(h.instanceId))!;
      await store.operations.update({ ...running, control: { ...running.control, dueAt: STARTED_AT + 10 } });
    });
    expect((await h.fireNext()).armed).toBe(STARTED_AT + 10);
    expect(await h.at('RESENT')).toEqual([]);
    expect(await h.stored()).toBe(STARTED_AT + 1_500);
  });
});
