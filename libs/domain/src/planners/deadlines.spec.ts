import type { InstanceElement } from '../model';
import type { DeployState } from '../states';
import { phaseDeadline, phaseTimeoutMs, timeoutPropertyOf } from './deadlines';

function element(id: string, deployState: DeployState, properties: Record<string, unknown>): InstanceElement {
  return {
    id,
    definition: { name: `n-${id}`, version: '1.0.0' },
    participantId: 'P',
    deployState,
    lockState: 'NONE',
    subState: 'NONE',
    migrationState: 'DEFAULT',
    stage: null,
    operationalState: null,
    useState: null,
    description: null,
    message: null,
    properties,
    outProperties: {},
  };
}

const elements = (...list: InstanceElement[]) => Object.fromEntries(list.map((e) => [e.id, e]));

describe(timeoutPropertyOf.name, () => {
  it.each([
    ['DEPLOYING', 'deployTimeoutMs'],
    ['UNDEPLOYING', 'undeployTimeoutMs'],
    ['UPDATING', 'updateTimeoutMs'],
    ['MIGRATING', 'migrateTimeoutMs'],
    ['DELETING', 'deleteTimeoutMs'],
    ['DEPLOYED', 'maxOperationWaitMs'],
    ['UNDEPLOYED', 'maxOperationWaitMs'],
    ['UPDATE_REVERTING', 'maxOperationWaitMs'],
    ['MIGRATION_REVERTING', 'maxOperationWaitMs'],
  ] as const)('%s is bounded by %s', (state, property) => {
    expect(timeoutPropertyOf(state)).toBe(property);
  });
});

describe(phaseTimeoutMs.name, () => {
  it('reads the property of the first element in the instance’s deploy state', () => {
    const instance = {
      deployState: 'DEPLOYING' as const,
      elements: elements(
        element('done', 'DEPLOYED', { deployTimeoutMs: 1 }),
        element('a', 'DEPLOYING', { deployTimeoutMs: '5000' }),
        element('b', 'DEPLOYING', { deployTimeoutMs: 9000 }),
      ),
    };
    expect(phaseTimeoutMs(instance, 200000)).toBe(5000);
  });

  it('uses maxOperationWaitMs for a lock or unlock (instance DEPLOYED)', () => {
    const instance = {
      deployState: 'DEPLOYED' as const,
      elements: elements(element('a', 'DEPLOYED', { maxOperationWaitMs: 700 })),
    };
    expect(phaseTimeoutMs(instance, 200000)).toBe(700);
  });

  it.each([[undefined], [0], [-5], ['soon'], [1.5], [{}]])('falls back to the default for %p', (value) => {
    const instance = {
      deployState: 'DEPLOYING' as const,
      elements: elements(element('a', 'DEPLOYING', { deployTimeoutMs: value })),
    };
    expect(phaseTimeoutMs(instance, 36000)).toBe(36000);
  });

  it('counts from the moment the phase opens', () => {
    const instance = {
      deployState: 'DELETING' as const,
      elements: elements(element('a', 'DELETING', { deleteTimeoutMs: 100 })),
    };
    expect(phaseDeadline(instance, 1000, 36000)).toBe(1100);
  });
});
