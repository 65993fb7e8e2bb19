import type { InstanceElement } from '../model';
import type { AckInput } from './phase-planner';
import { applyAck, decideNextPhase } from './phase-planner';

function element(id: string, participantId: string, deployState: InstanceElement['deployState']): InstanceElement {
  return {
    id,
    definition: { name: `n-${id}`, version: '1.0.0' },
    participantId,
    deployState,
    lockState: 'NONE',
    subState: 'NONE',
    migrationState: 'DEFAULT',
    stage: null,
    operationalState: null,
    useState: null,
    description: null,
    message: null,
    properties: {},
    outProperties: {},
  };
}

/** Elements a0,a1 (phase 0, participant A), b1 (phase 1, B), a2 (phase 2, A), all DEPLOYING. */
const PHASES: Record<string, number> = { a0: 0, a1: 0, b1: 1, a2: 2 };
const startPhaseOf = (e: InstanceElement): number => PHASES[e.id] ?? 0;
const deploying = Object.fromEntries(
  [
    element('a0', 'A', 'DEPLOYING'),
    element('a1', 'A', 'DEPLOYING'),
    element('b1', 'B', 'DEPLOYING'),
    element('a2', 'A', 'DEPLOYING'),
  ].map((e) => [e.id, e]),
);

function ack(
  participantId: string,
  phase: number,
  reports: AckInput['reports'],
  result: AckInput['stateChangeResult'] = 'NO_ERROR',
): AckInput {
  return { participantId, phase, stateChangeResult: result, message: 'm', reports };
}

const deployed = (elementId: string) => ({
  elementId,
  deployState: 'DEPLOYED' as const,
  lockState: 'LOCKED' as const,
  result: true,
});

describe(applyAck.name, () => {
  it('ignores a redelivered ACK of an element already in the reported state', () => {
    const first = applyAck(deploying, ack('A', 0, [deployed('a0')]), startPhaseOf);
    const again = applyAck(first.elements, ack('A', 0, [deployed('a0')]), startPhaseOf);
    expect(again.applied).toEqual([]);
    expect(again.ignored).toEqual([{ elementId: 'a0', reason: 'ALREADY_APPLIED' }]);
    expect(again.elements).toEqual(first.elements);
  });

  it('applies the sender’s own elements of the answered phase', () => {
    const result = applyAck(deploying, ack('A', 0, [deployed('a0')]), startPhaseOf);
    expect(result.applied).toEqual(['a0']);
    expect(result.elements['a0']).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED', message: 'm' });
    expect(result.elements['a1']?.deployState).toBe('DEPLOYING');
    expect(result.failed).toBe(false);
  });

  it.each([
    ['an element of another participant', ack('A', 1, [deployed('b1')]), 'NOT_OWNER'],
    ['an element of another phase', ack('A', 0, [deployed('a2')]), 'OTHER_PHASE'],
    ['an unknown element', ack('A', 0, [deployed('zz')]), 'UNKNOWN_ELEMENT'],
  ])('ignores %s', (_case, input, reason) => {
    const result = applyAck(deploying, input, startPhaseOf);
    expect(result.applied).toEqual([]);
    expect(result.ignored.map((entry) => entry.reason)).toEqual([reason]);
    expect(result.elements).toEqual(deploying);
  });

  it('reads an empty result map as "all my elements of this phase are deleted"', () => {
    const result = applyAck(deploying, ack('A', 0, []), startPhaseOf);
    expect(result.applied).toEqual(['a0', 'a1']);
    expect(result.elements['a0']?.deployState).toBe('DELETED');
    expect(result.elements['a2']?.deployState).toBe('DEPLOYING');
  });

  it('fails on a FAILED result or a false element result, but not when nothing applied', () => {
    expect(applyAck(deploying, ack('A', 0, [deployed('a0')], 'FAILED'), startPhaseOf).failed).toBe(true);
    expect(applyAck(deploying, ack('A', 0, [{ ...deployed('a0'), result: false }]), startPhaseOf).failed).toBe(true);
    expect(applyAck(deploying, ack('A', 0, [deployed('b1')], 'FAILED'), startPhaseOf).failed).toBe(false);
  });

  it('keeps a multi-line diagnostic whole, and at most 4,096 characters of a message', () => {
    const diagnostic = `Deploy refused:\n${'  resource_name: db\n'.repeat(30)}Ways out:\n  - change the name`;
    const kept = applyAck(deploying, ack('A', 0, [{ ...deployed('a0'), message: diagnostic }]), startPhaseOf);
    expect(kept.elements['a0']?.message).toBe(diagnostic);
    const long = applyAck(deploying, ack('A', 0, [{ ...deployed('a0'), message: 'x'.repeat(5000) }]), startPhaseOf);
    expect(long.elements['a0']?.message).toHaveLength(4096);
  });
});

describe(decideNextPhase.name, () => {
  const withStates = (states: Record<string, InstanceElement['deployState']>): Record<string, InstanceElement> =>
    Object.fromEntries(
      Object.entries(deploying).map(([id, e]) => [id, { ...e, deployState: states[id] ?? e.deployState }]),
    );

  it('waits while an element of the open phase is transitional', () => {
    expect(decideNextPhase('DEPLOY', 0, withStates({ a0: 'DEPLOYED' }), startPhaseOf)).toEqual({ kind: 'WAIT' });
  });

  it('opens the lowest pending phase going forwards', () => {
    expect(decideNextPhase('DEPLOY', 0, withStates({ a0: 'DEPLOYED', a1: 'DEPLOYED' }), startPhaseOf)).toEqual({
      kind: 'ADVANCE',
      phase: 1,
    });
  });

  it('opens the highest pending phase going backwards', () => {
    const undeploying = Object.fromEntries(
      Object.entries(deploying).map(([id, e]) => [id, { ...e, deployState: 'UNDEPLOYING' as const }]),
    );
    const afterPhase2 = { ...undeploying, a2: { ...undeploying['a2']!, deployState: 'UNDEPLOYED' as const } };
    expect(decideNextPhase('UNDEPLOY', 2, afterPhase2, startPhaseOf)).toEqual({ kind: 'ADVANCE', phase: 1 });
  });

  it('completes when nothing is transitional', () => {
    const done = withStates({ a0: 'DEPLOYED', a1: 'DEPLOYED', b1: 'DEPLOYED', a2: 'DEPLOYED' });
    expect(decideNextPhase('DEPLOY', 2, done, startPhaseOf)).toEqual({ kind: 'COMPLETE' });
  });
});
