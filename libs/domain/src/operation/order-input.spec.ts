import { decideInstance } from './instance-operation';
import { P1, T0, ack, contextOf, element, events, instanceOf, sends, template } from './testing/instance-fixtures';

describe('ORDER', () => {
  const context = contextOf([template('a', 0), template('b', 1)]);

  it('opens an operation on its first phase, with the phase’s deadline and the first-phase flag', () => {
    const step = decideInstance(
      instanceOf([element('e-a', 'a'), element('e-b', 'b')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      context,
    );
    expect(step.operations).toEqual([{ operation: step.operation, isNew: true }]);
    expect(step.operation).toMatchObject({ order: 'DEPLOY', state: 'RUNNING', phase: 0, deadlineAt: T0 + 10_000 });
    expect(step.target).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'NO_ERROR', phase: 0 });
    expect(events(step)).toEqual(['ORDERED']);
    expect(sends(step).map((send) => [send.phase, send.firstPhase, send.dispatched])).toEqual([[0, true, ['e-a']]]);
  });

  it('completes at once when no element has anything to do', () => {
    const step = decideInstance(instanceOf([]), null, { kind: 'ORDER', order: 'DEPLOY' }, T0, context);
    expect(step.operation).toMatchObject({ state: 'COMPLETED' });
    expect(step.operations.map((write) => write.isNew)).toEqual([true]);
    expect(step.target).toMatchObject({ deployState: 'DEPLOYED', phase: null });
    expect(events(step)).toEqual(['ORDERED', 'COMPLETED']);
    expect(sends(step)).toEqual([]);
  });
});

describe('ORDER with heal', () => {
  const deployed = (id: string, name: string) => ({
    ...element(id, name),
    deployState: 'DEPLOYED' as const,
    lockState: 'LOCKED' as const,
  });
  const running = {
    ...instanceOf([deployed('e-a', 'a'), deployed('e-b', 'b'), deployed('e-c', 'c')]),
    deployState: 'DEPLOYED' as const,
    lockState: 'LOCKED' as const,
  };

  it('deploys only the healed elements again; the others keep their state', () => {
    const context = contextOf([template('a', 0), template('b', 0), template('c', 1)]);
    const step = decideInstance(running, null, { kind: 'ORDER', order: 'DEPLOY', heal: ['e-c'] }, T0, context);
    expect(step.operation).toMatchObject({ order: 'DEPLOY', state: 'RUNNING', phase: 1 });
    expect(step.target.deployState).toBe('DEPLOYING');
    expect(step.target.elements['e-a']).toBe(running.elements['e-a']);
    expect(step.target.elements['e-c']).toMatchObject({ deployState: 'DEPLOYING', lockState: 'NONE' });
    expect(events(step)).toEqual(['ORDERED', 'HEAL']);
    expect(step.effects).toContainEqual(expect.objectContaining({ event: 'HEAL', detail: { elementIds: ['e-c'] } }));
    expect(sends(step).map((send) => [send.phase, send.dispatched])).toEqual([[1, ['e-c']]]);
  });

  it('orders the healed elements as a deploy does: a dependent waits for what it depends on', () => {
    const context = contextOf([template('a', 0), template('b', 0, ['a']), template('c', 0)]);
    const step = decideInstance(running, null, { kind: 'ORDER', order: 'DEPLOY', heal: ['e-b', 'e-a'] }, T0, context);
    expect(events(step)).toEqual(['ORDERED', 'HEAL']);
    expect(sends(step).map((send) => send.dispatched)).toEqual([['e-a']]);
  });

  describe('its end', () => {
    const context = contextOf([template('a', 0), template('b', 0, ['a']), template('c', 0)]);
    const healing = decideInstance(
      running,
      null,
      { kind: 'ORDER', order: 'DEPLOY', heal: ['e-a', 'e-b'] },
      T0,
      context,
    );
    const answer = (step: typeof healing, elementIds: string[], result: 'NO_ERROR' | 'FAILED', at: number) =>
      decideInstance(
        step.target,
        step.operation,
        { kind: 'ACK', ack: ack(P1, elementIds, result), answered: null, dispatched: null },
        at,
        context,
      );

    it('keeps the healed elements on its operation; an ordinary deploy has none', () => {
      expect(healing.operation?.heal).toEqual(['e-a', 'e-b']);
      const ordinary = decideInstance(
        instanceOf([element('e-a', 'a')]),
        null,
        { kind: 'ORDER', order: 'DEPLOY' },
        T0,
        context,
      );
      expect(ordinary.operation).not.toHaveProperty('heal');
    });

    it('records HEALED with the healed elements after COMPLETED, in the heal operation', () => {
      const first = answer(healing, ['e-a'], 'NO_ERROR', T0 + 1);
      expect(events(first)).toEqual(['ELEMENT_RESULT']);
      const last = answer(first, ['e-b'], 'NO_ERROR', T0 + 2);
      expect(events(last)).toEqual(['ELEMENT_RESULT', 'PHASE_COMPLETED', 'COMPLETED', 'HEALED']);
      expect(last.effects).toContainEqual(
        expect.objectContaining({ event: 'HEALED', detail: { elementIds: ['e-a', 'e-b'] } }),
      );
      expect(last.operation).toMatchObject({ state: 'COMPLETED', operationId: healing.operation?.operationId });
    });

    it('records no HEALED for a heal that fails', () => {
      const failed = answer(healing, ['e-a'], 'FAILED', T0 + 1);
      expect(events(failed)).toContain('FAILED');
      expect(events(failed)).not.toContain('HEALED');
    });

    it('records no HEALED when a heal times out; a late success that completes it is HEALED', () => {
      const timedOut = decideInstance(healing.target, healing.operation, { kind: 'TICK' }, T0 + 3_600_000, context);
      expect(events(timedOut)).toEqual(['TIMEOUT']);
      const late = answer(answer(timedOut, ['e-a'], 'NO_ERROR', T0 + 3_600_001), ['e-b'], 'NO_ERROR', T0 + 3_600_002);
      expect(events(late)).toEqual(['ELEMENT_RESULT', 'PHASE_COMPLETED', 'COMPLETED', 'HEALED']);
    });

    it('records no HEALED when an ordinary deploy completes', () => {
      const deploy = decideInstance(
        instanceOf([element('e-c', 'c')]),
        null,
        { kind: 'ORDER', order: 'DEPLOY' },
        T0,
        context,
      );
      const done = answer(deploy, ['e-c'], 'NO_ERROR', T0 + 1);
      expect(events(done)).toEqual(['ELEMENT_RESULT', 'PHASE_COMPLETED', 'COMPLETED']);
    });
  });
});
