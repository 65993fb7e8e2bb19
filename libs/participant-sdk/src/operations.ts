/**
 * What each element operation reports: the element states on success and on failure (ONAP's
 * AcElementListenerV4 fallbacks), the default success message, and the transitional state the cache
 * shows while the handler runs. One table, so the dispatch code has no per-operation branches.
 */
import type { DeployState, LockState } from '@acm/domain';

import type { CompositionOperation, ElementOperation } from './types';

/** An element's (deployState, lockState) pair; `undefined` = keep the cached value. */
export interface ElementStates {
  deployState?: DeployState;
  lockState?: LockState;
}

export interface ElementOperationSpec {
  success: ElementStates;
  failure: ElementStates;
  /** Shown in the cache while the handler runs. */
  running: ElementStates;
  doneMessage: string;
}

/**
 * Reporting a deployState sets lockState LOCKED when DEPLOYED and NONE otherwise (ONAP's intermediary);
 * reporting a lockState keeps the deployState. Update / migrate / precheck / review / rollback end DEPLOYED
 * whether they worked or not; prepare ends UNDEPLOYED.
 */
export const ELEMENT_OPERATIONS: Readonly<Record<ElementOperation, ElementOperationSpec>> = {
  deploy: {
    success: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    failure: { deployState: 'UNDEPLOYED', lockState: 'NONE' },
    running: { deployState: 'DEPLOYING' },
    doneMessage: 'Deployed',
  },
  undeploy: {
    success: { deployState: 'UNDEPLOYED', lockState: 'NONE' },
    failure: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    running: { deployState: 'UNDEPLOYING' },
    doneMessage: 'Undeployed',
  },
  lock: {
    success: { lockState: 'LOCKED' },
    failure: { lockState: 'UNLOCKED' },
    running: { lockState: 'LOCKING' },
    doneMessage: 'Locked',
  },
  unlock: {
    success: { lockState: 'UNLOCKED' },
    failure: { lockState: 'LOCKED' },
    running: { lockState: 'UNLOCKING' },
    doneMessage: 'Unlocked',
  },
  delete: {
    success: { deployState: 'DELETED', lockState: 'NONE' },
    failure: { deployState: 'UNDEPLOYED', lockState: 'NONE' },
    running: { deployState: 'DELETING' },
    doneMessage: 'Deleted',
  },
  update: {
    success: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    failure: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    running: { deployState: 'UPDATING' },
    doneMessage: 'Updated',
  },
  migrate: {
    success: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    failure: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    running: { deployState: 'MIGRATING' },
    doneMessage: 'Migrated',
  },
  migratePrecheck: {
    success: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    failure: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    running: {},
    doneMessage: 'Migration precheck completed',
  },
  rollbackMigration: {
    success: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    failure: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    running: { deployState: 'MIGRATION_REVERTING' },
    doneMessage: 'Migration rollback done',
  },
  prepare: {
    success: { deployState: 'UNDEPLOYED', lockState: 'NONE' },
    failure: { deployState: 'UNDEPLOYED', lockState: 'NONE' },
    running: {},
    doneMessage: 'Prepare completed',
  },
  review: {
    success: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    failure: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
    running: {},
    doneMessage: 'Review completed',
  },
};

/** Default success messages of prime and deprime. */
export const COMPOSITION_DONE_MESSAGES: Readonly<Record<CompositionOperation, string>> = {
  prime: 'Primed',
  deprime: 'Deprimed',
};

/** ONAP's V4 default for an operation the listener does not implement. */
export const NOT_IMPLEMENTED_MESSAGE = 'Not implemented';
export const NOT_SUPPORTED_MESSAGE = 'Not supported';
