import { DomainError } from '../errors';
import type { AutomationComposition } from '../model';
import type { InstanceOrder, InstanceStateUpdate } from './instance-lifecycle';
import { assertOrderAllowed, resolveStateChange } from './instance-lifecycle';

/** An element still NEW or REMOVED from a migration blocks updates and another migration until it is finished. */
export function assertNoMigrationPending(instance: AutomationComposition): void {
  const notDefault = Object.values(instance.elements).filter((element) => element.migrationState !== 'DEFAULT');
  if (notDefault.length > 0) {
    throw new DomainError(
      'ORDER_NOT_ALLOWED',
      `Element ${notDefault.map((element) => element.id).join(', ')} is in migrationState ` +
        `${notDefault[0]?.migrationState}: finish or roll back the migration first`,
    );
  }
}

/** Marks a failed replacing UPDATE left: elements REMOVED (no NEW one) on an instance still UPDATING. */
function isReplaceLeftover(instance: AutomationComposition): boolean {
  return (
    instance.deployState === 'UPDATING' &&
    Object.values(instance.elements).every((element) => element.migrationState !== 'NEW')
  );
}

/** A deploy needs every element at its definition: none NEW or REMOVED from a migration. */
export function assertDeployable(instance: AutomationComposition): void {
  if (Object.values(instance.elements).some((element) => element.migrationState !== 'DEFAULT')) {
    throw new DomainError('ORDER_NOT_ALLOWED', 'Deploy not allowed: an element is NEW or REMOVED from a migration');
  }
}

/** The orders a PUT state change carries, as the body that carries each. */
const STATE_CHANGE_BODIES: Readonly<Partial<Record<InstanceOrder, InstanceStateUpdate>>> = {
  DEPLOY: { deployOrder: 'DEPLOY', lockOrder: 'NONE', subOrder: 'NONE' },
  UNDEPLOY: { deployOrder: 'UNDEPLOY', lockOrder: 'NONE', subOrder: 'NONE' },
  LOCK: { deployOrder: 'NONE', lockOrder: 'LOCK', subOrder: 'NONE' },
  UNLOCK: { deployOrder: 'NONE', lockOrder: 'UNLOCK', subOrder: 'NONE' },
  PREPARE: { deployOrder: 'NONE', lockOrder: 'NONE', subOrder: 'PREPARE' },
  REVIEW: { deployOrder: 'NONE', lockOrder: 'NONE', subOrder: 'REVIEW' },
};

/**
 * The state checks an order's own request runs before it starts, in the same sequence and with the same messages:
 * a PUT state change, a DELETE, an update (a POST of the instance) or a migration (a POST with compositionTargetId).
 * Returns false for an update of an UNDEPLOYED instance, which replaces its elements without any operation.
 */
export function checkOrderMayStart(order: InstanceOrder, instance: AutomationComposition): boolean {
  const body = STATE_CHANGE_BODIES[order];
  if (body !== undefined) {
    resolveStateChange(body, instance);
    if (order === 'DEPLOY') {
      assertDeployable(instance);
    }
    return true;
  }
  switch (order) {
    case 'UPDATE':
      // A replacing UPDATE that failed leaves its orphans REMOVED (an UPDATING instance has no migration marks
      // otherwise, with ONAP's files never): the UPDATE sent again finishes them.
      if (!isReplaceLeftover(instance)) {
        assertNoMigrationPending(instance);
      }
      if (instance.deployState === 'UNDEPLOYED' && instance.subState === 'NONE') {
        return false;
      }
      assertOrderAllowed('UPDATE', instance);
      return true;
    case 'MIGRATE':
    case 'MIGRATE_PRECHECK':
      assertOrderAllowed(order, instance);
      assertNoMigrationPending(instance);
      return true;
    default:
      assertOrderAllowed(order, instance);
      return true;
  }
}
