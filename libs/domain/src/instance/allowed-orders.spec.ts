import { DomainError } from '../errors';
import type { AutomationComposition, InstanceElement } from '../model';
import { orderAvailability } from './allowed-orders';
import { INSTANCE_ORDERS } from './instance-lifecycle';
import { checkOrderMayStart } from './order-checks';

function element(id: string, migrationState: InstanceElement['migrationState'] = 'DEFAULT'): InstanceElement {
  return {
    id,
    definition: { name: `e-${id}`, version: '1.0.0' },
    participantId: 'p-1',
    deployState: 'UNDEPLOYED',
    lockState: 'NONE',
    subState: 'NONE',
    migrationState,
    stage: null,
    operationalState: null,
    useState: null,
    description: null,
    message: null,
    properties: {},
    outProperties: {},
  };
}

function instance(state: Partial<AutomationComposition>, elements = [element('e1')]): AutomationComposition {
  return {
    instanceId: 'i-1',
    compositionId: 'c-1',
    compositionTargetId: null,
    name: 'i',
    version: '1.0.0',
    description: null,
    derivedFrom: null,
    metadata: null,
    precheck: null,
    deployState: 'UNDEPLOYED',
    lockState: 'NONE',
    subState: 'NONE',
    stateChangeResult: 'NO_ERROR',
    phase: null,
    lastMsg: 0,
    revisionId: 'r-0',
    elements: Object.fromEntries(elements.map((item) => [item.id, item])),
    ...state,
  };
}

describe('orderAvailability', () => {
  it('offers DEPLOY, DELETE, UPDATE and PREPARE for an undeployed instance and refuses LOCK with the runtime text', () => {
    const view = orderAvailability(instance({}));
    expect(view.allowedOrders).toEqual(['DEPLOY', 'DELETE', 'UPDATE', 'PREPARE']);
    const lock = view.refusedOrders.find((refused) => refused.order === 'LOCK');
    expect(lock?.reason).toMatch(/^Not valid order .*lockOrder=LOCK.*DeployState: UNDEPLOYED/);
  });

  it('offers UNDEPLOY, UNLOCK, UPDATE, MIGRATE, MIGRATE_PRECHECK and REVIEW for a deployed, locked instance', () => {
    const view = orderAvailability(instance({ deployState: 'DEPLOYED', lockState: 'LOCKED' }));
    expect(view.allowedOrders).toEqual(['UNDEPLOY', 'UPDATE', 'MIGRATE', 'UNLOCK', 'MIGRATE_PRECHECK', 'REVIEW']);
  });

  it('offers nothing while an order runs without a failure', () => {
    expect(orderAvailability(instance({ deployState: 'DEPLOYING' })).allowedOrders).toEqual([]);
  });

  it('refuses DEPLOY with the migration rule when an element is NEW from a migration', () => {
    const view = orderAvailability(instance({}, [element('e1'), element('e2', 'NEW')]));
    expect(view.allowedOrders).not.toContain('DEPLOY');
    expect(view.refusedOrders.find((refused) => refused.order === 'DEPLOY')?.reason).toMatch(/NEW or REMOVED/);
  });

  it('agrees with the check each order request runs, for every order in every deploy and lock state', () => {
    const deployStates = ['UNDEPLOYED', 'DEPLOYING', 'DEPLOYED', 'UNDEPLOYING', 'UPDATING', 'MIGRATING'] as const;
    const lockStates = ['NONE', 'LOCKED', 'UNLOCKED', 'LOCKING'] as const;
    const results = ['NO_ERROR', 'FAILED'] as const;
    for (const deployState of deployStates) {
      for (const lockState of lockStates) {
        for (const stateChangeResult of results) {
          const subject = instance({ deployState, lockState, stateChangeResult });
          const view = orderAvailability(subject);
          for (const order of INSTANCE_ORDERS) {
            let accepted = true;
            try {
              checkOrderMayStart(order, subject);
            } catch (error) {
              expect(error).toBeInstanceOf(DomainError);
              accepted = false;
            }
            expect(view.allowedOrders.includes(order)).toBe(accepted);
            expect(view.refusedOrders.some((refused) => refused.order === order)).toBe(!accepted);
          }
        }
      }
    }
  });
});
