import { isOrderAllowed } from '../instance/instance-lifecycle';
import type { AutomationComposition, InstanceElement } from '../model';
import type { DeployState, LockState } from '../states';
import { definitionNothingRunsRefusal, nothingRunsRefusal, cancelledInstance, planCancelRollback } from './cancel';

function element(id: string, deployState: DeployState, lockState: LockState): InstanceElement {
  return {
    id,
    definition: { name: `n-${id}`, version: '1.0.0' },
    participantId: 'P',
    deployState,
    lockState,
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

function instance(...elements: InstanceElement[]): AutomationComposition {
  return {
    instanceId: 'I',
    compositionId: 'C',
    compositionTargetId: null,
    name: 'i',
    version: '1.0.0',
    description: null,
    derivedFrom: null,
    metadata: null,
    precheck: null,
    deployState: 'DEPLOYING',
    lockState: 'NONE',
    subState: 'NONE',
    stateChangeResult: 'NO_ERROR',
    phase: 1,
    lastMsg: 0,
    revisionId: 'R',
    elements: Object.fromEntries(elements.map((e) => [e.id, e])),
  };
}

describe(cancelledInstance.name, () => {
  it('leaves a cancelled deploy in a state ONAP accepts both DEPLOY and UNDEPLOY from', () => {
    const cancelled = cancelledInstance(
      instance(element('a', 'DEPLOYED', 'LOCKED'), element('b', 'DEPLOYING', 'NONE')),
      7,
    );
    expect(cancelled).toMatchObject({
      deployState: 'DEPLOYING',
      lockState: 'NONE',
      stateChangeResult: 'FAILED',
      lastMsg: 7,
    });
    expect(isOrderAllowed('DEPLOY', cancelled)).toBe(true);
    expect(isOrderAllowed('UNDEPLOY', cancelled)).toBe(true);
    // Elements are untouched: answers in flight are still recorded on them.
    expect(cancelled.elements['b']?.deployState).toBe('DEPLOYING');
  });
});

describe(planCancelRollback.name, () => {
  it('undeploys what the cancelled deploy completed or had in flight; the rest goes back with no message', () => {
    const plan = planCancelRollback(
      instance(
        element('done', 'DEPLOYED', 'LOCKED'),
        element('flying', 'DEPLOYING', 'NONE'),
        element('later', 'DEPLOYING', 'NONE'),
      ),
      'DEPLOY',
      new Set(['done', 'flying']),
    );
    expect(plan?.order).toBe('UNDEPLOY');
    expect(plan?.reversed).toEqual(['done', 'flying']);
    expect(plan?.elements['done']).toMatchObject({ deployState: 'UNDEPLOYING', lockState: 'LOCKED' });
    expect(plan?.elements['flying']).toMatchObject({ deployState: 'UNDEPLOYING' });
    expect(plan?.elements['later']).toMatchObject({ deployState: 'UNDEPLOYED', lockState: 'NONE' });
  });

  it('reverses an unlock with a lock and has no rollback for a delete', () => {
    const unlock = planCancelRollback(
      { ...instance(element('a', 'DEPLOYED', 'UNLOCKED')), deployState: 'DEPLOYED', lockState: 'UNLOCKING' },
      'UNLOCK',
      new Set(['a']),
    );
    expect(unlock?.order).toBe('LOCK');
    expect(unlock?.elements['a']).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKING' });
    expect(planCancelRollback(instance(element('a', 'DELETING', 'NONE')), 'DELETE', new Set())).toBeNull();
  });
});

describe(nothingRunsRefusal.name, () => {
  it('refuses with NOTHING_RUNNING, the state and what is allowed now', () => {
    const key = {
      deployState: 'DEPLOYED',
      lockState: 'LOCKED',
      subState: 'NONE',
      stateChangeResult: 'NO_ERROR',
    } as const;
    expect(nothingRunsRefusal('cancel', key, false)).toEqual(
      expect.objectContaining({
        code: 'NOTHING_RUNNING',
        message: expect.stringMatching(
          /Cannot cancel the instance: no operation is running; DeployState: DEPLOYED;.*allowed now: UNDEPLOY/,
        ),
      }),
    );
    expect(nothingRunsRefusal('pause', { ...key, deployState: 'DEPLOYING', lockState: 'NONE' }, true)).toBeNull();
    expect(
      nothingRunsRefusal(
        'pause',
        { ...key, deployState: 'DEPLOYING', lockState: 'NONE', stateChangeResult: 'FAILED' },
        false,
      ),
    ).toEqual(expect.objectContaining({ code: 'NOTHING_RUNNING' }));
  });

  it('refuses a composition cancel when no prime runs', () => {
    expect(definitionNothingRunsRefusal('cancel', { state: 'PRIMED', stateChangeResult: 'NO_ERROR' }, false)).toEqual({
      refused: true,
      code: 'NOTHING_RUNNING',
      message:
        'Cannot cancel the composition: no prime or deprime is running; AcTypeState: PRIMED; ' +
        'StateChangeResult: NO_ERROR; allowed now: PRIME, DEPRIME',
      details: { action: 'cancel', state: 'PRIMED', stateChangeResult: 'NO_ERROR', allowedNow: ['PRIME', 'DEPRIME'] },
    });
    expect(definitionNothingRunsRefusal('cancel', { state: 'PRIMING', stateChangeResult: 'FAILED' }, true)).toEqual(
      expect.objectContaining({ code: 'NOTHING_RUNNING' }),
    );
    expect(
      definitionNothingRunsRefusal('cancel', { state: 'PRIMING', stateChangeResult: 'NO_ERROR' }, true),
    ).toBeNull();
  });
});
