import type { AutomationComposition } from '../model';
import type { DeployState } from '../states';

/** ONAP's element property for every operation without one of its own (lock, unlock, prepare, review, precheck, reverts). */
export const DEFAULT_TIMEOUT_PROPERTY = 'maxOperationWaitMs';

/** ONAP AcmTimeoutUtils: the element property that bounds each transitional deploy state. */
const TIMEOUT_PROPERTY_OF_STATE: Partial<Record<DeployState, string>> = {
  DEPLOYING: 'deployTimeoutMs',
  UNDEPLOYING: 'undeployTimeoutMs',
  UPDATING: 'updateTimeoutMs',
  MIGRATING: 'migrateTimeoutMs',
  DELETING: 'deleteTimeoutMs',
};

export function timeoutPropertyOf(deployState: DeployState): string {
  return TIMEOUT_PROPERTY_OF_STATE[deployState] ?? DEFAULT_TIMEOUT_PROPERTY;
}

/**
 * How long the open phase (or stage) of an instance may take, as ONAP's scanner measures it: the timeout
 * property of the instance's deploy state, read from the first element in that same deploy state, else
 * `defaultMs` (MAX_OPERATION_WAIT). A value that is not a positive integer is ignored.
 */
export function phaseTimeoutMs(
  instance: Pick<AutomationComposition, 'deployState' | 'elements'>,
  defaultMs: number,
): number {
  const property = timeoutPropertyOf(instance.deployState);
  const element = Object.values(instance.elements).find((candidate) => candidate.deployState === instance.deployState);
  const raw = element?.properties[property];
  const value = typeof raw === 'number' || typeof raw === 'string' ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(value) && value > 0 ? value : defaultMs;
}

/**
 * The deadline of a phase that opens at `openedAt`. ONAP restarts the clock at every phase and stage
 * (the instance's `lastMsg`), so an operation of many phases may take longer than one timeout in total.
 */
export function phaseDeadline(
  instance: Pick<AutomationComposition, 'deployState' | 'elements'>,
  openedAt: number,
  defaultMs: number,
): number {
  return openedAt + phaseTimeoutMs(instance, defaultMs);
}
