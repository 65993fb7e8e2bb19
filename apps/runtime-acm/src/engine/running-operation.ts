import type { InstanceOperation, Operation } from '@acm/domain';

/** The operation if it runs on an instance: the engine's instance steps take no definition operation. */
export function asInstanceOperation(operation: Operation | null): InstanceOperation | null {
  return operation?.targetKind === 'INSTANCE' ? operation : null;
}
