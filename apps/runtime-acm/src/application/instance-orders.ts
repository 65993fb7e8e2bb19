import type { InstanceStateUpdate } from '@acm/domain';
import { Injectable } from '@nestjs/common';
import { InstantiationService } from './instantiation.service';
import type { InstanceRequest, InstantiationResponse } from './instantiation.service';
import { WindowsService } from './windows.service';

/**
 * An order to one existing instance, as REST gave it: a state change (PUT), a delete, or an update or migration (POST
 * with instanceId). Plain data, so that an order waiting for approvals can be stored and submitted later as given.
 */
export type InstanceOrder =
  | {
      readonly kind: 'STATE';
      readonly compositionId: string;
      readonly instanceId: string;
      readonly update: InstanceStateUpdate;
      readonly supersede: boolean;
      readonly planId?: string;
      readonly override: string | null;
    }
  | {
      readonly kind: 'DELETE';
      readonly compositionId: string;
      readonly instanceId: string;
      readonly planId?: string;
      readonly override: string | null;
    }
  | {
      readonly kind: 'UPDATE';
      readonly compositionId: string;
      readonly instanceId: string;
      readonly request: InstanceRequest & { readonly instanceId: string };
      readonly planId?: string;
      readonly override: string | null;
    };

/**
 * The order as windows and approval rules name it (DEPLOY, UNDEPLOY, LOCK, UNLOCK, DELETE, UPDATE, MIGRATE); null for
 * what changes no element (prepare, review, a migration's precheck).
 */
export function orderNameOf(order: InstanceOrder): string | null {
  switch (order.kind) {
    case 'STATE':
      if (order.update.deployOrder !== 'NONE') {
        return order.update.deployOrder;
      }
      return order.update.lockOrder !== 'NONE' ? order.update.lockOrder : null;
    case 'DELETE':
      return 'DELETE';
    case 'UPDATE':
      if (order.request.precheck === true) {
        return null;
      }
      return order.request.compositionTargetId === undefined ? 'UPDATE' : 'MIGRATE';
  }
}

/**
 * Submits orders to instances: through the maintenance windows, then to the instantiation service. The controllers
 * submit what no approval holds here, and an approved order is submitted here too, so it runs exactly as it would
 * have when it was given.
 */
@Injectable()
export class InstanceOrders {
  constructor(
    private readonly instantiation: InstantiationService,
    private readonly windows: WindowsService,
  ) {}

  async submit(order: InstanceOrder): Promise<InstantiationResponse | undefined> {
    // The windows judge a precheck as the update or migration it checks; a prepare or review they do not judge.
    const windowed =
      order.kind === 'UPDATE'
        ? order.request.compositionTargetId === undefined
          ? 'UPDATE'
          : 'MIGRATE'
        : orderNameOf(order);
    if (windowed !== null) {
      await this.windows.admit(async () => {
        const instance = await this.instantiation.get(order.compositionId, order.instanceId);
        return {
          compositionId: instance.compositionId,
          instanceId: order.instanceId,
          metadata: instance.metadata,
          order: windowed,
        };
      }, order.override);
    }
    switch (order.kind) {
      case 'STATE':
        await this.instantiation.changeState(
          order.compositionId,
          order.instanceId,
          order.update,
          order.supersede,
          order.planId,
        );
        return undefined;
      case 'DELETE':
        return this.instantiation.delete(order.compositionId, order.instanceId, order.planId);
      case 'UPDATE':
        return this.instantiation.update(order.compositionId, order.request, order.planId);
    }
  }
}
