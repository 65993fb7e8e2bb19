import type { AutomationComposition, InstanceElement } from '../model';
import type { DeployState, LockState, StateChangeResult } from '../states';
import { cascadeOrder, isRetryOfSameOrder } from './order-cascade';

function element(id: string, deployState: DeployState, lockState: LockState = 'NONE'): InstanceElement {
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
    message: 'old',
    properties: {},
    outProperties: {},
  };
}

function instance(
  deployState: DeployState,
  lockState: LockState,
  stateChangeResult: StateChangeResult,
  elements: InstanceElement[],
): AutomationComposition {
  return {
    instanceId: 'i',
    compositionId: 'c',
    compositionTargetId: null,
    name: 'n',
    version: '1.0.0',
    description: null,
    derivedFrom: null,
    metadata: null,
    precheck: null,
    deployState,
    lockState,
    subState: 'NONE',
    stateChangeResult,
    phase: 1,
    lastMsg: 0,
    revisionId: 'r',
    elements: Object.fromEntries(elements.map((e) => [e.id, e])),
  };
}

/** A deploy that failed midway: one element DEPLOYED, the failed one reported back UNDEPLOYED. */
const failedDeploy = instance('DEPLOYING', 'NONE', 'FAILED', [
  element('done', 'DEPLOYED', 'LOCKED'),
  element('failed', 'UNDEPLOYED'),
]);

const statesOf = (elements: Record<string, InstanceElement>) =>
  Object.fromEntries(Object.entries(elements).map(([id, e]) => [id, `${e.deployState}/${e.lockState}`]));

describe(cascadeOrder.name, () => {
  it('narrows a re-issued DEPLOY after a failed DEPLOY to the elements not yet deployed', () => {
    expect(statesOf(cascadeOrder(failedDeploy, 'DEPLOY'))).toEqual({
      done: 'DEPLOYED/LOCKED',
      failed: 'DEPLOYING/NONE',
    });
  });

  it('cascades UNDEPLOY after a failed DEPLOY onto every element, the never-deployed one included', () => {
    const elements = cascadeOrder(failedDeploy, 'UNDEPLOY');
    expect(statesOf(elements)).toEqual({ done: 'UNDEPLOYING/LOCKED', failed: 'UNDEPLOYING/LOCKED' });
    expect(Object.values(elements).map((e) => e.message)).toEqual([null, null]);
  });

  it('narrows a retry after TIMEOUT of the same order too', () => {
    const timedOut = { ...failedDeploy, stateChangeResult: 'TIMEOUT' as const };
    expect(statesOf(cascadeOrder(timedOut, 'DEPLOY'))['done']).toBe('DEPLOYED/LOCKED');
  });

  it('cascades every element of a single-element instance, as ONAP does', () => {
    const single = instance('DEPLOYING', 'NONE', 'FAILED', [element('only', 'DEPLOYED', 'LOCKED')]);
    expect(statesOf(cascadeOrder(single, 'DEPLOY'))).toEqual({ only: 'DEPLOYING/NONE' });
  });

  it('narrows LOCK only when the instance is LOCKING, not after a failed UNLOCK', () => {
    const locking = instance('DEPLOYED', 'LOCKING', 'FAILED', [
      element('a', 'DEPLOYED', 'LOCKED'),
      element('b', 'DEPLOYED', 'UNLOCKED'),
    ]);
    const unlocking = { ...locking, lockState: 'UNLOCKING' as const };
    expect(isRetryOfSameOrder(locking, 'LOCK')).toBe(true);
    expect(isRetryOfSameOrder(unlocking, 'LOCK')).toBe(false);
    expect(statesOf(cascadeOrder(unlocking, 'LOCK'))).toEqual({ a: 'DEPLOYED/LOCKING', b: 'DEPLOYED/LOCKING' });
  });

  it('never narrows a first order', () => {
    const idle = instance('UNDEPLOYED', 'NONE', 'NO_ERROR', [element('a', 'UNDEPLOYED'), element('b', 'UNDEPLOYED')]);
    expect(isRetryOfSameOrder(idle, 'DEPLOY')).toBe(false);
  });
});
