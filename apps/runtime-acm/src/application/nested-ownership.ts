import { AsyncLocalStorage } from 'node:async_hooks';
import type { AutomationComposition, OperationSession } from '@acm/domain';
import { DomainError, runtimeActor } from '@acm/domain';

/** Where a child instance records the parent that owns it: a key of its `metadata`. */
export const NESTED_IN_METADATA = 'nestedIn';

export interface NestedOwner {
  readonly instanceId: string;
  readonly elementId: string;
}

/** The parent ordering one of its children now: the ownership check lets that order through. */
const orderingParent = new AsyncLocalStorage<NestedOwner>();

/** The parent that owns an instance, or null for an instance nobody nests. */
export function ownerOf(instance: Pick<AutomationComposition, 'metadata'>): NestedOwner | null {
  const raw = instance.metadata?.[NESTED_IN_METADATA];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return null;
  }
  const { instanceId, elementId } = raw as Record<string, unknown>;
  return typeof instanceId === 'string' && typeof elementId === 'string' ? { instanceId, elementId } : null;
}

/**
 * Refuses an order on a child instance its parent owns (409 naming the parent instance and element), unless the
 * parent itself orders it.
 */
export function assertNotOwned(instance: AutomationComposition, action: string): void {
  const owner = ownerOf(instance);
  if (owner === null || orderingParent.getStore()?.instanceId === owner.instanceId) {
    return;
  }
  throw new DomainError(
    'OWNED_BY_PARENT',
    `Instance ${instance.instanceId} cannot be ${action}: it is the nested composition of element ` +
      `${owner.elementId} of instance ${owner.instanceId}; order the parent instance`,
    { instanceId: instance.instanceId, parentInstanceId: owner.instanceId, parentElementId: owner.elementId },
  );
}

/** Runs `work` as the parent ordering its own child: the ownership check lets its orders through. */
export function asParentOf<T>(owner: NestedOwner, work: () => Promise<T>): Promise<T> {
  return orderingParent.run(owner, work);
}

/**
 * In the child's order transaction, when its parent gives the order: PARENT_ORDERED in the child's history, naming
 * the parent instance and element (the parent's history names the child in CHILD_ORDERED and CHILD_ENDED).
 */
export function recordParentOrder(
  session: OperationSession,
  instance: AutomationComposition,
  order: string,
  now: number,
): void {
  const owner = ownerOf(instance);
  const parent = orderingParent.getStore();
  if (owner === null || parent?.instanceId !== owner.instanceId) {
    return;
  }
  session.record({
    events: [
      {
        event: 'PARENT_ORDERED',
        detail: { parentInstanceId: owner.instanceId, parentElementId: owner.elementId, order },
        subjectId: instance.instanceId,
        operationId: null,
        actor: runtimeActor('nested-composition'),
        at: now,
      },
    ],
  });
}
