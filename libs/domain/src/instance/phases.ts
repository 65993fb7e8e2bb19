import type { InstanceOrder } from './instance-lifecycle';

/**
 * Orders that walk the start phases upwards (deploy and unlock); the others walk them downwards,
 * so what started last stops first.
 */
export function isForwardOrder(order: InstanceOrder): boolean {
  return order === 'DEPLOY' || order === 'UNLOCK';
}

/** The phase an order starts in: the lowest start phase going forwards, the highest going backwards. */
export function firstPhase(order: InstanceOrder, startPhases: readonly number[]): number {
  if (startPhases.length === 0) {
    return 0;
  }
  return isForwardOrder(order) ? Math.min(...startPhases) : Math.max(...startPhases);
}
