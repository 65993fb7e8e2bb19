import { decideDeploy, decideUndeploy, keyPropertyDifferences } from './decision';
import type { DeployDecision, DeployInput } from './decision';
import type { ObservedResource, ResourceState } from './resource-client';

const OBSERVED: Omit<ObservedResource, 'state'> = {
  instanceUid: 'uid-42',
  statusRaw: 'RAW',
  operationPending: 'scale',
  operationInProgress: 'backup',
  keyProperties: { region: 'eu', size: 'small' },
};

function input(
  state: ResourceState,
  adopt: boolean,
  keyProperties: Record<string, unknown> = { region: 'eu', size: 'small' },
): DeployInput {
  return {
    resourceName: 'db-1',
    elementId: 'e-1',
    observed: { state, ...OBSERVED },
    adoptExistingOnCreate: adopt,
    keyProperties,
  };
}

const SAME = { region: 'eu', size: 'small' };
const OTHER = { region: 'eu', size: 'large' };

describe(decideDeploy.name, () => {
  it.each<[ResourceState, boolean, Record<string, unknown>, DeployDecision['action'], string | null]>([
    ['missing', false, SAME, 'create', null],
    ['missing', true, SAME, 'create', null],
    ['deleted', false, SAME, 'create', null],
    ['deleted', true, OTHER, 'create', null],
    ['suspended', true, SAME, 'resume-and-adopt', null],
    ['suspended', false, SAME, 'refuse', 'suspended-adoption-not-allowed'],
    ['suspended', true, OTHER, 'refuse', 'suspended-key-properties-differ'],
    ['running', true, SAME, 'adopt', null],
    ['running', true, OTHER, 'adopt', null],
    ['running', false, SAME, 'refuse', 'running-adoption-not-allowed'],
    ['creating', true, SAME, 'refuse', 'resource-busy'],
    ['pending', false, SAME, 'refuse', 'resource-busy'],
    ['failed', true, SAME, 'refuse', 'resource-failed'],
  ])('%s with adoptExistingOnCreate %p and key properties %j: %s %s', (state, adopt, keys, action, refusal) => {
    const decision = decideDeploy(input(state, adopt, keys));
    expect(decision.action).toBe(action);
    expect(decision.action === 'refuse' ? decision.refusal : null).toBe(refusal);
  });

  it.each<[ResourceState, boolean]>([
    ['running', false],
    ['suspended', false],
  ])('offers both ways out of a name conflict with a %s resource', (state, adopt) => {
    const decision = decideDeploy(input(state, adopt));
    if (decision.action !== 'refuse') {
      throw new Error(`expected a refusal, got ${decision.action}`);
    }
    expect(decision.diagnostic).toBe(
      [
        `Deploy of element e-1 refused: a ${state} resource named db-1 already exists and adoptExistingOnCreate is false`,
        `  decision: refuse (${state}-adoption-not-allowed)`,
        '  adoptExistingOnCreate: false',
        '  resource_name: db-1',
        '  instance_uid: uid-42',
        `  status: ${state}`,
        '  status_raw: RAW',
        '  operation_pending: scale',
        '  operation_in_progress: backup',
        'Ways out:',
        '  - change the element property resourceName to a name that is not in use, and deploy again',
        '  - or set adoptExistingOnCreate: true on the element to take the existing resource over, and deploy again',
      ].join('\n'),
    );
  });

  it('names the key properties that differ when a suspended resource is not the element', () => {
    const decision = decideDeploy(input('suspended', true, OTHER));
    expect(decision.action === 'refuse' ? decision.diagnostic.split('\n') : []).toEqual(
      expect.arrayContaining([
        '  decision: refuse (suspended-key-properties-differ)',
        '  adoptExistingOnCreate: true',
        '  key properties that differ:',
        '    size: existing "small", wanted "large"',
        '  - or give the element the key properties of the existing resource, and deploy again',
      ]),
    );
  });

  it.each<[ResourceState, string]>([
    ['creating', 'wait until the service finishes the operation in progress, and deploy again'],
    ['pending', 'wait until the service finishes the operation in progress, and deploy again'],
    ['failed', 'repair or delete the resource at the service, and deploy again'],
  ])('tells what to do about a %s resource, with its ids and states', (state, way) => {
    const decision = decideDeploy(input(state, true));
    const lines = decision.action === 'refuse' ? decision.diagnostic.split('\n') : [];
    expect(lines).toEqual(
      expect.arrayContaining([`  status: ${state}`, '  instance_uid: uid-42', '  operation_in_progress: backup']),
    );
    expect(lines).toContain(`  - ${way}`);
  });

  it('prints none for ids and states the service did not give', () => {
    const decision = decideDeploy({ ...input('running', false), observed: { state: 'running' } });
    expect(decision.action === 'refuse' ? decision.diagnostic : '').toContain(
      [
        '  instance_uid: none',
        '  status: running',
        '  status_raw: none',
        '  operation_pending: none',
        '  operation_in_progress: none',
      ].join('\n'),
    );
  });
});

describe(decideUndeploy.name, () => {
  it.each<[boolean, string]>([
    [true, 'suspend'],
    [false, 'forget'],
  ])('with suspendOnDestroy %p: %s', (suspendOnDestroy, action) => {
    expect(decideUndeploy(suspendOnDestroy).action).toBe(action);
  });
});

describe(keyPropertyDifferences.name, () => {
  it('compares values deeply and treats an absent value as null', () => {
    expect(keyPropertyDifferences({ tags: { a: 1 }, zone: null }, { tags: { a: 1 } })).toEqual([]);
    expect(keyPropertyDifferences({ tags: { a: 1 }, zone: 'b' }, { tags: { a: 2 } })).toEqual([
      'tags: existing {"a":2}, wanted {"a":1}',
      'zone: existing none, wanted "b"',
    ]);
  });
});
