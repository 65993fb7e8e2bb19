/**
 * The resend guard (issue: "a resend must never make a participant act twice"). The runtime may send a
 * phase again, with the same or a new `messageId`, to elements it has heard nothing from; the answer may
 * simply have been lost. The `messageId` memory cannot see a resend under a new id, so each element also
 * remembers the last operation it finished successfully, by fingerprint: operation, phase or stage,
 * instance revision and (for update and migrate) the target it was asked to reach. An order with the
 * same fingerprint for an element still in the recorded state is answered with the recorded result;
 * the handler does not run.
 *
 * Failures are not remembered: the runtime sends a failed element again only to retry it (its retry
 * policy, or a user re-issuing the order), and the wire carries no attempt number to tell that retry
 * from a resend, so a failed element always reaches the handler again.
 */
import type { AutomationCompositionDeployAck, Uuid } from '@acm/contracts';
import type { DeployState, LockState } from '@acm/domain';

import { LruMap } from '../lru';
import type { InstanceElement } from '../types';

export interface FinishedElement {
  fingerprint: string;
  /** The ack sent when the element finished; re-sent with the resend's `messageId` in `responseTo`. */
  ack: AutomationCompositionDeployAck;
  deployState: DeployState;
  lockState: LockState;
}

/** What makes two orders for one element the same step of the same operation. */
export interface StepIdentity {
  operation: string;
  /** Start phase, or stage for staged operations. */
  phase: number;
  /** `revisionIdInstance` of the order, when it carries one (a new operation has a new revision). */
  revision?: Uuid;
  /** What the element is asked to become, for orders whose target is data (update, migrate). */
  target?: unknown;
}

export function fingerprintOf(step: StepIdentity): string {
  return JSON.stringify([step.operation, step.phase, step.revision?.toLowerCase() ?? null, step.target ?? null]);
}

export class FinishedElements {
  private readonly byElement: LruMap<string, FinishedElement>;

  constructor(capacity: number) {
    this.byElement = new LruMap(capacity);
  }

  record(instanceId: Uuid, elementId: Uuid, finished: FinishedElement): void {
    this.byElement.set(keyOf(instanceId, elementId), finished);
  }

  /** Any other operation on the element makes its last recorded result history. */
  forget(instanceId: Uuid, elementId: Uuid): void {
    this.byElement.delete(keyOf(instanceId, elementId));
  }

  /**
   * The recorded result of this step, when the element is still where that result left it (`cached`
   * undefined: the element is no longer cached, which only a finished delete or a migration's removal
   * explains).
   */
  find(
    instanceId: Uuid,
    elementId: Uuid,
    fingerprint: string,
    cached: InstanceElement | undefined,
  ): FinishedElement | undefined {
    const finished = this.byElement.peek(keyOf(instanceId, elementId));
    if (finished === undefined || finished.fingerprint !== fingerprint) {
      return undefined;
    }
    const stillThere =
      cached === undefined
        ? finished.deployState === 'DELETED'
        : cached.deployState === finished.deployState && cached.lockState === finished.lockState;
    return stillThere ? finished : undefined;
  }
}

function keyOf(instanceId: Uuid, elementId: Uuid): string {
  return `${instanceId.toLowerCase()}:${elementId.toLowerCase()}`;
}
