import { DomainError } from '../errors';
import type { AutomationComposition } from '../model';
import type { InstanceOrder } from './instance-lifecycle';
import { INSTANCE_ORDERS } from './instance-lifecycle';
import { checkOrderMayStart } from './order-checks';

/** An order the instance would refuse now, with the runtime's own refusal text. */
export interface RefusedOrder {
  readonly order: InstanceOrder;
  readonly reason: string;
}

/** Which orders the instance accepts in its current state, and why each of the others is refused. */
export interface OrderAvailability {
  readonly allowedOrders: InstanceOrder[];
  readonly refusedOrders: RefusedOrder[];
}

/**
 * Every order run through the same checks its own request runs ({@link checkOrderMayStart}), so a client that
 * offers only the allowed orders offers exactly what the runtime would accept, and shows the refusal it would get.
 */
export function orderAvailability(instance: AutomationComposition): OrderAvailability {
  const allowedOrders: InstanceOrder[] = [];
  const refusedOrders: RefusedOrder[] = [];
  for (const order of INSTANCE_ORDERS) {
    try {
      checkOrderMayStart(order, instance);
      allowedOrders.push(order);
    } catch (error) {
      if (!(error instanceof DomainError)) {
        throw error;
      }
      refusedOrders.push({ order, reason: error.message });
    }
  }
  return { allowedOrders, refusedOrders };
}
