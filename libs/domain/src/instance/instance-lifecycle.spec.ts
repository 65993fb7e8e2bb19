import { DomainError } from '../errors';
import {
  DEPLOY_ORDERS,
  DEPLOY_STATES,
  LOCK_ORDERS,
  LOCK_STATES,
  STATE_CHANGE_RESULTS,
  SUB_ORDERS,
  SUB_STATES,
} from '../states';
import type { InstanceOrder, InstanceStateKey } from './instance-lifecycle';
import {
  INSTANCE_ORDERS,
  assertOrderAllowed,
  completedStateOf,
  isInstanceTransitional,
  resolveStateChange,
  transitionalStateFor,
} from './instance-lifecycle';

/**
 * ONAP's resolver rows written out by hand as "ORDER deploy/lock/sub/result", so the
 * table in the code is checked against an independent transcription, not against itself.
 */
const ONAP_ROWS = `
DEPLOY UNDEPLOYED/NONE/NONE/NO_ERROR
DEPLOY DEPLOYING/NONE/NONE/FAILED
DEPLOY DEPLOYING/NONE/NONE/TIMEOUT
DEPLOY DEPLOYING/LOCKED/NONE/FAILED
DEPLOY DEPLOYING/LOCKED/NONE/TIMEOUT
DEPLOY UNDEPLOYING/NONE/NONE/FAILED
DEPLOY UNDEPLOYING/NONE/NONE/TIMEOUT
DEPLOY UNDEPLOYING/LOCKED/NONE/FAILED
DEPLOY UNDEPLOYING/LOCKED/NONE/TIMEOUT
UNDEPLOY DEPLOYED/LOCKED/NONE/NO_ERROR
UNDEPLOY DEPLOYING/NONE/NONE/FAILED
UNDEPLOY DEPLOYING/NONE/NONE/TIMEOUT
UNDEPLOY DEPLOYING/LOCKED/NONE/FAILED
UNDEPLOY DEPLOYING/LOCKED/NONE/TIMEOUT
UNDEPLOY UNDEPLOYING/NONE/NONE/FAILED
UNDEPLOY UNDEPLOYING/NONE/NONE/TIMEOUT
UNDEPLOY UNDEPLOYING/LOCKED/NONE/FAILED
UNDEPLOY UNDEPLOYING/LOCKED/NONE/TIMEOUT
UNDEPLOY UPDATING/LOCKED/NONE/FAILED
UNDEPLOY UPDATING/LOCKED/NONE/TIMEOUT
UNDEPLOY MIGRATING/LOCKED/NONE/FAILED
UNDEPLOY MIGRATING/LOCKED/NONE/TIMEOUT
UNDEPLOY MIGRATION_REVERTING/LOCKED/NONE/FAILED
UNDEPLOY MIGRATION_REVERTING/LOCKED/NONE/TIMEOUT
UNDEPLOY UPDATE_REVERTING/LOCKED/NONE/FAILED
UNDEPLOY UPDATE_REVERTING/LOCKED/NONE/TIMEOUT
UNDEPLOY DEPLOYED/LOCKED/REVIEWING/FAILED
UNDEPLOY DEPLOYED/LOCKED/REVIEWING/TIMEOUT
UNDEPLOY DEPLOYED/LOCKED/MIGRATION_PRECHECKING/FAILED
UNDEPLOY DEPLOYED/LOCKED/MIGRATION_PRECHECKING/TIMEOUT
DELETE UNDEPLOYED/NONE/NONE/NO_ERROR
DELETE DELETING/NONE/NONE/FAILED
DELETE DELETING/NONE/NONE/TIMEOUT
DELETE UNDEPLOYED/NONE/PREPARING/FAILED
DELETE UNDEPLOYED/NONE/PREPARING/TIMEOUT
UPDATE DEPLOYED/LOCKED/NONE/NO_ERROR
UPDATE UPDATING/LOCKED/NONE/FAILED
UPDATE UPDATING/LOCKED/NONE/TIMEOUT
MIGRATE DEPLOYED/LOCKED/NONE/NO_ERROR
UNLOCK DEPLOYED/LOCKED/NONE/NO_ERROR
UNLOCK DEPLOYED/LOCKING/NONE/FAILED
UNLOCK DEPLOYED/LOCKING/NONE/TIMEOUT
UNLOCK DEPLOYED/UNLOCKING/NONE/FAILED
UNLOCK DEPLOYED/UNLOCKING/NONE/TIMEOUT
LOCK DEPLOYED/UNLOCKED/NONE/NO_ERROR
LOCK DEPLOYED/LOCKING/NONE/FAILED
LOCK DEPLOYED/LOCKING/NONE/TIMEOUT
LOCK DEPLOYED/UNLOCKING/NONE/FAILED
LOCK DEPLOYED/UNLOCKING/NONE/TIMEOUT
MIGRATE_PRECHECK DEPLOYED/LOCKED/NONE/NO_ERROR
MIGRATE_PRECHECK DEPLOYED/LOCKED/MIGRATION_PRECHECKING/FAILED
MIGRATE_PRECHECK DEPLOYED/LOCKED/MIGRATION_PRECHECKING/TIMEOUT
PREPARE UNDEPLOYED/NONE/NONE/NO_ERROR
PREPARE UNDEPLOYED/NONE/PREPARING/FAILED
PREPARE UNDEPLOYED/NONE/PREPARING/TIMEOUT
REVIEW DEPLOYED/LOCKED/NONE/NO_ERROR
REVIEW DEPLOYED/LOCKED/REVIEWING/FAILED
REVIEW DEPLOYED/LOCKED/REVIEWING/TIMEOUT
MIGRATION_REVERT MIGRATING/LOCKED/NONE/FAILED
MIGRATION_REVERT MIGRATING/LOCKED/NONE/TIMEOUT
UPDATE_REVERT UPDATING/LOCKED/NONE/FAILED
UPDATE_REVERT UPDATING/LOCKED/NONE/TIMEOUT
`
  .trim()
  .split('\n');

const allowedRows = new Set(ONAP_ROWS);

function rowText(order: InstanceOrder, key: InstanceStateKey): string {
  return `${order} ${key.deployState}/${key.lockState}/${key.subState}/${key.stateChangeResult}`;
}

const everyState: InstanceStateKey[] = DEPLOY_STATES.flatMap((deployState) =>
  LOCK_STATES.flatMap((lockState) =>
    SUB_STATES.flatMap((subState) =>
      STATE_CHANGE_RESULTS.map((stateChangeResult) => ({ deployState, lockState, subState, stateChangeResult })),
    ),
  ),
);

describe('instance order table', () => {
  it('covers the whole state space (10 × 5 × 4 × 3 states × 12 orders)', () => {
    expect(everyState).toHaveLength(600);
    expect(INSTANCE_ORDERS).toHaveLength(12);
  });

  const cases = INSTANCE_ORDERS.flatMap((order) => everyState.map((key) => ({ order, key })));
  const allowedCases = cases.filter(({ order, key }) => allowedRows.has(rowText(order, key)));
  const refusedCases = cases.filter(({ order, key }) => !allowedRows.has(rowText(order, key)));

  it('has exactly the hand-written rows allowed', () => {
    expect(allowedCases.map(({ order, key }) => rowText(order, key)).sort()).toEqual([...allowedRows].sort());
  });

  it.each(allowedCases.map(({ order, key }) => [rowText(order, key), order, key] as const))(
    'allows %s',
    (_text, order, key) => {
      expect(() => assertOrderAllowed(order, key)).not.toThrow();
    },
  );

  it(`refuses all ${7200 - ONAP_ROWS.length} other combinations, naming the order and the state`, () => {
    expect(refusedCases).toHaveLength(7200 - ONAP_ROWS.length);
    for (const { order, key } of refusedCases) {
      let caught: unknown;
      try {
        assertOrderAllowed(order, key);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(DomainError);
      const error = caught as DomainError;
      expect(error.code).toBe('ORDER_NOT_ALLOWED');
      expect(error.message).toContain(`Not valid order ${order}`);
      expect(error.message).toContain(`DeployState: ${key.deployState}`);
      expect(error.message).toContain(`LockState: ${key.lockState}`);
      expect(error.message).toContain(`SubState: ${key.subState}`);
      expect(error.message).toContain(`StateChangeResult: ${key.stateChangeResult}`);
    }
  });
});

describe(resolveStateChange.name, () => {
  const deployed: InstanceStateKey = {
    deployState: 'DEPLOYED',
    lockState: 'LOCKED',
    subState: 'NONE',
    stateChangeResult: 'NO_ERROR',
  };

  it('maps each single order field to its order', () => {
    expect(resolveStateChange({ deployOrder: 'UNDEPLOY', lockOrder: 'NONE', subOrder: 'NONE' }, deployed)).toBe(
      'UNDEPLOY',
    );
    expect(resolveStateChange({ deployOrder: 'NONE', lockOrder: 'UNLOCK', subOrder: 'NONE' }, deployed)).toBe('UNLOCK');
    expect(resolveStateChange({ deployOrder: 'NONE', lockOrder: 'NONE', subOrder: 'REVIEW' }, deployed)).toBe('REVIEW');
  });

  it('refuses an empty order with ONAP wording', () => {
    expect(() => resolveStateChange({ deployOrder: 'NONE', lockOrder: 'NONE', subOrder: 'NONE' }, deployed)).toThrow(
      /Not valid order AcInstanceStateUpdate\(deployOrder=NONE, lockOrder=NONE, subOrder=NONE\); DeployState: DEPLOYED/,
    );
  });

  it('refuses combined orders, naming both', () => {
    expect(() =>
      resolveStateChange({ deployOrder: 'UNDEPLOY', lockOrder: 'UNLOCK', subOrder: 'NONE' }, deployed),
    ).toThrow(/got UNDEPLOY and UNLOCK/);
  });

  it.each(DEPLOY_ORDERS.filter((order) => !['NONE', 'DEPLOY', 'UNDEPLOY'].includes(order)))(
    'refuses deployOrder %s, which has its own request',
    (deployOrder) => {
      expect(() => resolveStateChange({ deployOrder, lockOrder: 'NONE', subOrder: 'NONE' }, deployed)).toThrow(
        /is not a state-change order/,
      );
    },
  );

  it.each(SUB_ORDERS.filter((order) => order === 'MIGRATE_PRECHECK'))('refuses subOrder %s in a PUT', (subOrder) => {
    expect(() => resolveStateChange({ deployOrder: 'NONE', lockOrder: 'NONE', subOrder }, deployed)).toThrow(
      /is not a state-change order/,
    );
  });

  it('says which orders the state would accept', () => {
    expect(() => resolveStateChange({ deployOrder: 'DEPLOY', lockOrder: 'NONE', subOrder: 'NONE' }, deployed)).toThrow(
      /allowed now: UNDEPLOY, UPDATE, MIGRATE, UNLOCK, MIGRATE_PRECHECK, REVIEW/,
    );
  });

  it('knows every lock order', () => {
    expect(LOCK_ORDERS).toEqual(['NONE', 'UNLOCK', 'LOCK']);
  });
});

describe('completion mapping', () => {
  const cases: Array<[InstanceOrder, string]> = [
    ['DEPLOY', 'DEPLOYED/LOCKED/NONE'],
    ['UNDEPLOY', 'UNDEPLOYED/NONE/NONE'],
    ['DELETE', 'DELETED/NONE/NONE'],
    ['UPDATE', 'DEPLOYED/LOCKED/NONE'],
    ['UPDATE_REVERT', 'DEPLOYED/LOCKED/NONE'],
    ['MIGRATE', 'DEPLOYED/LOCKED/NONE'],
    ['MIGRATION_REVERT', 'DEPLOYED/LOCKED/NONE'],
    ['LOCK', 'DEPLOYED/LOCKED/NONE'],
    ['UNLOCK', 'DEPLOYED/UNLOCKED/NONE'],
    ['PREPARE', 'UNDEPLOYED/NONE/NONE'],
    ['REVIEW', 'DEPLOYED/LOCKED/NONE'],
    ['MIGRATE_PRECHECK', 'DEPLOYED/LOCKED/NONE'],
  ];

  it.each(cases)('%s completes as %s', (order, expected) => {
    const during = transitionalStateFor(order);
    expect(isInstanceTransitional(during)).toBe(true);
    const done = completedStateOf(during);
    expect(done && `${done.deployState}/${done.lockState}/${done.subState}`).toBe(expected);
    expect(done && isInstanceTransitional(done)).toBe(false);
  });

  it.each([
    ['DEPLOYED', 'LOCKED'],
    ['DEPLOYED', 'UNLOCKED'],
    ['UNDEPLOYED', 'NONE'],
    ['DELETED', 'NONE'],
  ] as const)('%s/%s at rest completes nothing', (deployState, lockState) => {
    expect(completedStateOf({ deployState, lockState, subState: 'NONE' })).toBeNull();
  });
});
