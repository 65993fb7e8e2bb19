import type { AutomationComposition, CompositionDefinition, Store, Versioned } from '@acm/domain';
import { DomainError, UnitOfWork } from '@acm/domain';
import { Injectable } from '@nestjs/common';
import { OperationControl } from '../engine/operation-control';
import { definitionNotFound, instanceNotFound } from './not-found';

/** The control state of an instance's running operation, shown beside ONAP's fields in GET (issue 12). */
export interface ControlView {
  readonly operationId: string;
  readonly order: string;
  readonly paused: boolean;
  /** Epoch ms of the pause in progress, null while running. */
  readonly pausedAt: number | null;
  readonly resent: number;
  readonly retried: number;
  readonly retryAt: number | null;
}

/**
 * Control of running work: cancel (with or without rollback), pause and resume an instance's operation,
 * cancel a composition's prime or deprime. Each is one transaction with the target row locked, as an order is.
 */
@Injectable()
export class ControlService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly control: OperationControl,
  ) {}

  async cancelInstance(compositionId: string, instanceId: string, rollback: boolean): Promise<AutomationComposition> {
    return this.unitOfWork.transaction(async (store) => {
      const found = await this.lockInstance(store, compositionId, instanceId);
      return this.control.cancelInstance(store, found, await this.definitionOf(store, found.value), rollback);
    });
  }

  async pauseInstance(compositionId: string, instanceId: string): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      const found = await this.lockInstance(store, compositionId, instanceId);
      await this.control.pauseInstance(store, found, await this.definitionOf(store, found.value));
    });
  }

  async resumeInstance(compositionId: string, instanceId: string): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      const found = await this.lockInstance(store, compositionId, instanceId);
      await this.control.resumeInstance(store, found, await this.definitionOf(store, found.value));
    });
  }

  async cancelDefinition(compositionId: string): Promise<CompositionDefinition> {
    return this.unitOfWork.transaction(async (store) => {
      const found = await store.definitions.findForUpdate(compositionId);
      if (!found) {
        throw definitionNotFound(compositionId);
      }
      return this.control.cancelDefinition(store, found);
    });
  }

  /** The running operation's control state, or null when nothing runs. */
  async controlOf(instanceId: string): Promise<ControlView | null> {
    const operation = await this.unitOfWork.read((store) => store.operations.findRunning(instanceId));
    if (!operation) {
      return null;
    }
    const { control } = operation;
    return {
      operationId: operation.operationId,
      order: operation.order,
      paused: control.pausedAt !== null,
      pausedAt: control.pausedAt,
      resent: control.resent,
      retried: control.retried,
      retryAt: control.retryAt,
    };
  }

  private async lockInstance(
    store: Store,
    compositionId: string,
    instanceId: string,
  ): Promise<Versioned<AutomationComposition>> {
    const found = await store.instances.findForUpdate(instanceId);
    if (!found) {
      throw instanceNotFound(instanceId);
    }
    const { value } = found;
    if (value.compositionId !== compositionId && value.compositionTargetId !== compositionId) {
      throw new DomainError('ID_MISMATCH', `${value.compositionId} do not match with ${compositionId}`, { instanceId });
    }
    return found;
  }

  private async definitionOf(store: Store, instance: AutomationComposition): Promise<CompositionDefinition> {
    const found = await store.definitions.find(instance.compositionId);
    if (!found) {
      throw definitionNotFound(instance.compositionId);
    }
    return found.value;
  }
}
