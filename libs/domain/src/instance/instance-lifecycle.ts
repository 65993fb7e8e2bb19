import { DomainError } from '../errors';
import type { DeployOrder, DeployState, LockOrder, LockState, StateChangeResult, SubOrder, SubState } from '../states';

/** The four fields of an instance that decide which order may start. */
export interface InstanceStateKey {
  readonly deployState: DeployState;
  readonly lockState: LockState;
  readonly subState: SubState;
  readonly stateChangeResult: StateChangeResult;
}

/** Every order an instance accepts, however it arrives (PUT state change, POST update/migrate, DELETE, rollback). */
export const INSTANCE_ORDERS = [
  'DEPLOY',
  'UNDEPLOY',
  'DELETE',
  'UPDATE',
  'MIGRATE',
  'UNLOCK',
  'LOCK',
  'MIGRATE_PRECHECK',
  'PREPARE',
  'REVIEW',
  'MIGRATION_REVERT',
  'UPDATE_REVERT',
] as const;
export type InstanceOrder = (typeof INSTANCE_ORDERS)[number];

type Rows = readonly InstanceStateKey[];

function rows(
  deployStates: readonly DeployState[],
  lockStates: readonly LockState[],
  subStates: readonly SubState[],
  results: readonly StateChangeResult[],
): Rows {
  return deployStates.flatMap((deployState) =>
    lockStates.flatMap((lockState) =>
      subStates.flatMap((subState) =>
        results.map((stateChangeResult) => ({ deployState, lockState, subState, stateChangeResult })),
      ),
    ),
  );
}

const OK = ['NO_ERROR'] as const;
const NOT_OK = ['FAILED', 'TIMEOUT'] as const;
const NO_SUB = ['NONE'] as const;

/**
 * ONAP's AcInstanceStateResolver as data. A key that is not listed is refused.
 * One deliberate difference: UNDEPLOY after a failed or timed-out REVIEW or MIGRATION_PRECHECK is
 * allowed, as ONAP documents it; ONAP's resolver registers those rows with the sub-state in the
 * deploy-state slot, so they can never match there (see docs/compatibility.md).
 */
export const INSTANCE_ORDER_TABLE: Readonly<Record<InstanceOrder, Rows>> = {
  DEPLOY: [
    ...rows(['UNDEPLOYED'], ['NONE'], NO_SUB, OK),
    ...rows(['DEPLOYING', 'UNDEPLOYING'], ['NONE', 'LOCKED'], NO_SUB, NOT_OK),
  ],
  UNDEPLOY: [
    ...rows(['DEPLOYED'], ['LOCKED'], NO_SUB, OK),
    ...rows(['DEPLOYING', 'UNDEPLOYING'], ['NONE', 'LOCKED'], NO_SUB, NOT_OK),
    ...rows(['UPDATING', 'MIGRATING', 'MIGRATION_REVERTING', 'UPDATE_REVERTING'], ['LOCKED'], NO_SUB, NOT_OK),
    ...rows(['DEPLOYED'], ['LOCKED'], ['REVIEWING', 'MIGRATION_PRECHECKING'], NOT_OK),
  ],
  DELETE: [
    ...rows(['UNDEPLOYED'], ['NONE'], NO_SUB, OK),
    ...rows(['DELETING'], ['NONE'], NO_SUB, NOT_OK),
    ...rows(['UNDEPLOYED'], ['NONE'], ['PREPARING'], NOT_OK),
  ],
  UPDATE: [...rows(['DEPLOYED'], ['LOCKED'], NO_SUB, OK), ...rows(['UPDATING'], ['LOCKED'], NO_SUB, NOT_OK)],
  MIGRATE: rows(['DEPLOYED'], ['LOCKED'], NO_SUB, OK),
  UNLOCK: [
    ...rows(['DEPLOYED'], ['LOCKED'], NO_SUB, OK),
    ...rows(['DEPLOYED'], ['LOCKING', 'UNLOCKING'], NO_SUB, NOT_OK),
  ],
  LOCK: [
    ...rows(['DEPLOYED'], ['UNLOCKED'], NO_SUB, OK),
    ...rows(['DEPLOYED'], ['LOCKING', 'UNLOCKING'], NO_SUB, NOT_OK),
  ],
  MIGRATE_PRECHECK: [
    ...rows(['DEPLOYED'], ['LOCKED'], NO_SUB, OK),
    ...rows(['DEPLOYED'], ['LOCKED'], ['MIGRATION_PRECHECKING'], NOT_OK),
  ],
  PREPARE: [...rows(['UNDEPLOYED'], ['NONE'], NO_SUB, OK), ...rows(['UNDEPLOYED'], ['NONE'], ['PREPARING'], NOT_OK)],
  REVIEW: [...rows(['DEPLOYED'], ['LOCKED'], NO_SUB, OK), ...rows(['DEPLOYED'], ['LOCKED'], ['REVIEWING'], NOT_OK)],
  MIGRATION_REVERT: rows(['MIGRATING'], ['LOCKED'], NO_SUB, NOT_OK),
  UPDATE_REVERT: rows(['UPDATING'], ['LOCKED'], NO_SUB, NOT_OK),
};

/** What the instance and its elements look like while an order runs (ONAP's cascaded state). */
export interface TransitionalState {
  readonly deployState: DeployState;
  readonly lockState: LockState;
  readonly subState: SubState;
}

/**
 * The state an accepted order cascades onto the instance and its elements. During DEPLOYING the lock
 * state is NONE, as in ONAP (its model default is LOCKED, its creation cascades NONE); it becomes LOCKED on completion.
 */
export function transitionalStateFor(order: InstanceOrder): TransitionalState {
  switch (order) {
    case 'DEPLOY':
      return { deployState: 'DEPLOYING', lockState: 'NONE', subState: 'NONE' };
    case 'UNDEPLOY':
      return { deployState: 'UNDEPLOYING', lockState: 'LOCKED', subState: 'NONE' };
    case 'DELETE':
      return { deployState: 'DELETING', lockState: 'NONE', subState: 'NONE' };
    case 'UPDATE':
      return { deployState: 'UPDATING', lockState: 'LOCKED', subState: 'NONE' };
    case 'MIGRATE':
      return { deployState: 'MIGRATING', lockState: 'LOCKED', subState: 'NONE' };
    case 'UNLOCK':
      return { deployState: 'DEPLOYED', lockState: 'UNLOCKING', subState: 'NONE' };
    case 'LOCK':
      return { deployState: 'DEPLOYED', lockState: 'LOCKING', subState: 'NONE' };
    case 'MIGRATE_PRECHECK':
      return { deployState: 'DEPLOYED', lockState: 'LOCKED', subState: 'MIGRATION_PRECHECKING' };
    case 'PREPARE':
      return { deployState: 'UNDEPLOYED', lockState: 'NONE', subState: 'PREPARING' };
    case 'REVIEW':
      return { deployState: 'DEPLOYED', lockState: 'LOCKED', subState: 'REVIEWING' };
    case 'MIGRATION_REVERT':
      return { deployState: 'MIGRATION_REVERTING', lockState: 'LOCKED', subState: 'NONE' };
    case 'UPDATE_REVERT':
      return { deployState: 'UPDATE_REVERTING', lockState: 'LOCKED', subState: 'NONE' };
  }
}

/**
 * The state ONAP sets once every element has left its transitional state.
 * Returns null for a state that is not transitional: nothing completes.
 */
export function completedStateOf(current: TransitionalState): TransitionalState | null {
  if (current.subState !== 'NONE') {
    return { deployState: current.deployState, lockState: current.lockState, subState: 'NONE' };
  }
  switch (current.deployState) {
    case 'DEPLOYING':
      return { deployState: 'DEPLOYED', lockState: 'LOCKED', subState: 'NONE' };
    case 'UNDEPLOYING':
      return { deployState: 'UNDEPLOYED', lockState: 'NONE', subState: 'NONE' };
    case 'DELETING':
      return { deployState: 'DELETED', lockState: 'NONE', subState: 'NONE' };
    case 'UPDATING':
    case 'UPDATE_REVERTING':
    case 'MIGRATING':
    case 'MIGRATION_REVERTING':
      return { deployState: 'DEPLOYED', lockState: current.lockState, subState: 'NONE' };
    case 'DEPLOYED':
    case 'UNDEPLOYED':
    case 'DELETED':
      break;
  }
  switch (current.lockState) {
    case 'LOCKING':
      return { deployState: current.deployState, lockState: 'LOCKED', subState: 'NONE' };
    case 'UNLOCKING':
      return { deployState: current.deployState, lockState: 'UNLOCKED', subState: 'NONE' };
    case 'LOCKED':
    case 'UNLOCKED':
    case 'NONE':
      return null;
  }
}

/** ONAP's notion of "in transition" (AcmStateUtils): the instance has an operation running or stuck. */
export function isInstanceTransitional(state: TransitionalState): boolean {
  return completedStateOf(state) !== null;
}

function sameKey(a: InstanceStateKey, b: InstanceStateKey): boolean {
  return (
    a.deployState === b.deployState &&
    a.lockState === b.lockState &&
    a.subState === b.subState &&
    a.stateChangeResult === b.stateChangeResult
  );
}

function describeState(key: InstanceStateKey): string {
  return `DeployState: ${key.deployState}; LockState: ${key.lockState}; SubState: ${key.subState}; StateChangeResult: ${key.stateChangeResult}`;
}

function describeRow(key: InstanceStateKey): string {
  return `${key.deployState}/${key.lockState}/${key.subState}/${key.stateChangeResult}`;
}

/** Orders that the current state would accept: the "what next" part of a refusal. */
export function ordersAllowedIn(current: InstanceStateKey): InstanceOrder[] {
  return INSTANCE_ORDERS.filter((order) => INSTANCE_ORDER_TABLE[order].some((row) => sameKey(row, current)));
}

export function isOrderAllowed(order: InstanceOrder, current: InstanceStateKey): boolean {
  return INSTANCE_ORDER_TABLE[order].some((row) => sameKey(row, current));
}

/**
 * Checks an order against the table. The refusal keeps ONAP's "Not valid order" wording (scripts
 * match on it) and adds which orders the current state would accept.
 */
export function assertOrderAllowed(order: InstanceOrder, current: InstanceStateKey, requestText?: string): void {
  if (isOrderAllowed(order, current)) {
    return;
  }
  const next = ordersAllowedIn(current);
  const from = INSTANCE_ORDER_TABLE[order].map(describeRow).join(', ');
  throw new DomainError(
    'ORDER_NOT_ALLOWED',
    `Not valid order ${requestText ?? order}; ${describeState(current)}. ` +
      `${order} is allowed from ${from || 'no state'}; ` +
      `allowed now: ${next.length > 0 ? next.join(', ') : 'none'}`,
    { order, ...current, allowedNow: next },
  );
}

/** The body of PUT .../instances/{id}: ONAP's AcInstanceStateUpdate. */
export interface InstanceStateUpdate {
  readonly deployOrder: DeployOrder;
  readonly lockOrder: LockOrder;
  readonly subOrder: SubOrder;
}

/** The orders a PUT state change may carry; the others arrive through their own endpoints. */
const STATE_CHANGE_ORDERS: Readonly<Partial<Record<DeployOrder | LockOrder | SubOrder, InstanceOrder>>> = {
  DEPLOY: 'DEPLOY',
  UNDEPLOY: 'UNDEPLOY',
  LOCK: 'LOCK',
  UNLOCK: 'UNLOCK',
  PREPARE: 'PREPARE',
  REVIEW: 'REVIEW',
};

function describeUpdate(update: InstanceStateUpdate): string {
  return `AcInstanceStateUpdate(deployOrder=${update.deployOrder}, lockOrder=${update.lockOrder}, subOrder=${update.subOrder})`;
}

/**
 * Turns a PUT body into the one order it carries, then checks it against the table. Exactly one of the
 * three fields may be other than NONE; ONAP never lists combined orders.
 */
export function resolveStateChange(update: InstanceStateUpdate, current: InstanceStateKey): InstanceOrder {
  const given = [update.deployOrder, update.lockOrder, update.subOrder].filter((value) => value !== 'NONE');
  const text = describeUpdate(update);
  if (given.length !== 1) {
    throw new DomainError(
      'ORDER_NOT_ALLOWED',
      `Not valid order ${text}; ${describeState(current)}. ` +
        (given.length === 0
          ? 'Exactly one of deployOrder, lockOrder, subOrder must be given; none was'
          : `Exactly one of deployOrder, lockOrder, subOrder must be given; got ${given.join(' and ')}`),
      { ...current, given },
    );
  }
  const requested = given[0] as DeployOrder | LockOrder | SubOrder;
  const order = STATE_CHANGE_ORDERS[requested];
  if (order === undefined) {
    throw new DomainError(
      'ORDER_NOT_ALLOWED',
      `Not valid order ${text}; ${describeState(current)}. ${requested} is not a state-change order: ` +
        'use DEPLOY, UNDEPLOY, LOCK, UNLOCK, PREPARE or REVIEW here; delete, update, migrate and rollback have their own requests',
      { ...current, requested },
    );
  }
  assertOrderAllowed(order, current, text);
  return order;
}
