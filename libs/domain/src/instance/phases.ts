import type { InstanceOrder } from './instance-lifecycle';

/** Orders that walk phases or stages downwards, so what started last stops first (ONAP's PhaseScanner and StageScanner). */
const BACKWARD_ORDERS: ReadonlySet<InstanceOrder> = new Set(['UNDEPLOY', 'DELETE', 'LOCK', 'MIGRATION_REVERT']);

/**
 * Orders that walk the start phases (or stages) upwards: deploy, unlock, migrate, prepare; the single-phase
 * orders count as forward too. Undeploy, delete, lock and the migration rollback walk downwards.
 */
export function isForwardOrder(order: InstanceOrder): boolean {
  return !BACKWARD_ORDERS.has(order);
}

/** The phase an order starts in: the lowest start phase going forwards, the highest going backwards. */
export function firstPhase(order: InstanceOrder, startPhases: readonly number[]): number {
  if (startPhases.length === 0) {
    return 0;
  }
  return isForwardOrder(order) ? Math.min(...startPhases) : Math.max(...startPhases);
}
