/**
 * The state vocabularies of ONAP ACM, value for value. They are the wire values too,
 * so the REST API, the participant protocol and the database all speak them unchanged.
 */
function values<const T extends readonly string[]>(...items: T): T {
  return items;
}

export const DEPLOY_STATES = values(
  'DEPLOYED',
  'DEPLOYING',
  'UNDEPLOYED',
  'UNDEPLOYING',
  'DELETING',
  'DELETED',
  'UPDATING',
  'MIGRATING',
  'MIGRATION_REVERTING',
  'UPDATE_REVERTING',
);
export type DeployState = (typeof DEPLOY_STATES)[number];

export const LOCK_STATES = values('LOCKED', 'LOCKING', 'UNLOCKED', 'UNLOCKING', 'NONE');
export type LockState = (typeof LOCK_STATES)[number];

export const SUB_STATES = values('NONE', 'MIGRATION_PRECHECKING', 'PREPARING', 'REVIEWING');
export type SubState = (typeof SUB_STATES)[number];

export const STATE_CHANGE_RESULTS = values('NO_ERROR', 'FAILED', 'TIMEOUT');
export type StateChangeResult = (typeof STATE_CHANGE_RESULTS)[number];

export const AC_TYPE_STATES = values('COMMISSIONED', 'PRIMING', 'PRIMED', 'DEPRIMING');
export type AcTypeState = (typeof AC_TYPE_STATES)[number];

export const PARTICIPANT_STATES = values('ON_LINE', 'OFF_LINE');
export type ParticipantState = (typeof PARTICIPANT_STATES)[number];

export const MIGRATION_STATES = values('DEFAULT', 'REMOVED', 'NEW');
export type MigrationState = (typeof MIGRATION_STATES)[number];

export const ELEMENT_STATES = values('PRESENT', 'NOT_PRESENT', 'REMOVED', 'NEW');
export type ElementState = (typeof ELEMENT_STATES)[number];

export const PRIME_ORDERS = values('NONE', 'PRIME', 'DEPRIME');
export type PrimeOrder = (typeof PRIME_ORDERS)[number];

export const DEPLOY_ORDERS = values(
  'NONE',
  'UNDEPLOY',
  'DEPLOY',
  'DELETE',
  'UPDATE',
  'RESTARTING',
  'MIGRATE',
  'MIGRATION_REVERT',
  'UPDATE_REVERT',
);
export type DeployOrder = (typeof DEPLOY_ORDERS)[number];

export const LOCK_ORDERS = values('NONE', 'UNLOCK', 'LOCK');
export type LockOrder = (typeof LOCK_ORDERS)[number];

export const SUB_ORDERS = values('NONE', 'MIGRATE_PRECHECK', 'PREPARE', 'REVIEW');
export type SubOrder = (typeof SUB_ORDERS)[number];

/** Narrows an unknown value to one of a vocabulary's members. */
export function isOneOf<const T extends readonly string[]>(vocabulary: T, value: unknown): value is T[number] {
  return typeof value === 'string' && (vocabulary as readonly string[]).includes(value);
}
