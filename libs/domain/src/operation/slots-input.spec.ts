import { decideInstance, runtimeSlotsFor } from './instance-operation';
import { T0, contextOf, element, instanceOf, sends, template } from './testing/instance-fixtures';

describe(runtimeSlotsFor.name, () => {
  it('counts a step against the runtime-wide limit only when there is one and its order counts', () => {
    expect(runtimeSlotsFor(null, 'DEPLOY', 3)).toBeNull();
    expect(runtimeSlotsFor(10, 'DEPLOY', 3)).toBe(3);
    expect(runtimeSlotsFor(10, 'MIGRATE_PRECHECK', 3)).toBeNull();
    // A step that concerns no operation (a control request with nothing running) is counted.
    expect(runtimeSlotsFor(10, null, 0)).toBe(0);
  });
});

describe('SLOTS', () => {
  const context = { ...contextOf([template('a', 0)]), runtimeSlots: 0 };
  const waiting = decideInstance(
    instanceOf([element('e-1', 'a'), element('e-2', 'a')]),
    null,
    { kind: 'ORDER', order: 'DEPLOY' },
    T0,
    context,
  );

  it('opens a waiting first phase with as many elements as the free slots allow, starting its deadline', () => {
    expect(waiting.operation?.control.slotWait).toBe('FIRST_PHASE');
    const filled = decideInstance(
      waiting.target,
      waiting.operation,
      { kind: 'SLOTS', dispatched: new Set() },
      T0 + 500,
      { ...context, runtimeSlots: 1 },
    );
    expect(sends(filled).map((send) => [send.event, send.firstPhase, send.dispatched])).toEqual([
      ['PHASE_STARTED', true, ['e-1']],
    ]);
    expect(filled.operation).toMatchObject({
      deadlineAt: T0 + 500 + 10_000,
      control: { inFlight: 1, slotWait: 'ELEMENTS' },
    });
  });

  it('changes nothing for a paused operation or with no slot free', () => {
    const none = decideInstance(
      waiting.target,
      waiting.operation,
      { kind: 'SLOTS', dispatched: new Set() },
      T0 + 1,
      context,
    );
    expect(none.operations).toEqual([]);
    expect(none.effects).toEqual([]);
    const paused = { ...waiting.operation!, control: { ...waiting.operation!.control, pausedAt: T0 } };
    const held = decideInstance(waiting.target, paused, { kind: 'SLOTS', dispatched: new Set() }, T0 + 1, {
      ...context,
      runtimeSlots: 5,
    });
    expect(held.effects).toEqual([]);
  });
});
