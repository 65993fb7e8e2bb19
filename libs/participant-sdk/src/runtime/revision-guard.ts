/**
 * ONAP's revision guard (participant MsgExecutor): an order whose revision ids differ from the ones this
 * replica cached is parked, and the replica asks for a SYNC (PARTICIPANT_REQ_SYNC_MSG). Rule chosen here:
 * only a *different* cached revision parks; a replica with no cache entry at all proceeds, because every
 * order carries full DTOs (element and node-template properties) to act on.
 */
import { randomUUID } from 'node:crypto';

import type {
  AutomationCompositionDeploy,
  AutomationCompositionMigration,
  AutomationCompositionPrepare,
  AutomationCompositionStateChange,
  ParticipantMessage,
  ParticipantReqSync,
  PropertiesUpdate,
  Uuid,
} from '@acm/contracts';

import { dtoElementId } from '../cache';
import type { ParticipantCore } from './core';

/** Orders that carry revision ids and pass the revision guard. */
export type GuardedMessage =
  | AutomationCompositionDeploy
  | AutomationCompositionStateChange
  | PropertiesUpdate
  | AutomationCompositionMigration
  | AutomationCompositionPrepare;

export function isGuarded(message: ParticipantMessage): message is GuardedMessage {
  return (
    message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY' ||
    message.messageType === 'AUTOMATION_COMPOSITION_STATE_CHANGE' ||
    message.messageType === 'PROPERTIES_UPDATE' ||
    message.messageType === 'AUTOMATION_COMPOSITION_MIGRATION' ||
    message.messageType === 'AUTOMATION_COMPOSITION_PREPARE'
  );
}

type StaleParts = Partial<
  Pick<ParticipantReqSync, 'compositionId' | 'compositionTargetId' | 'automationCompositionId'>
>;

export class RevisionGuard {
  /** Orders parked until a SYNC brings the cache up to date (or two heartbeats pass). */
  private readonly parked: Array<{ message: GuardedMessage; heartbeats: number }> = [];

  constructor(
    private readonly core: ParticipantCore,
    private readonly run: (message: GuardedMessage) => Promise<void>,
  ) {}

  get parkedCount(): number {
    return this.parked.length;
  }

  /** Parks the order and asks for a SYNC when a cached revision differs; true when parked. */
  async parkIfStale(message: GuardedMessage): Promise<boolean> {
    const stale = this.staleParts(message);
    if (stale === undefined) {
      return false;
    }
    this.parked.push({ message, heartbeats: 0 });
    this.core.logger('info', 'Order parked: cached revision differs; requesting a sync', {
      messageType: message.messageType,
      messageId: message.messageId,
      ...stale,
    });
    const request: ParticipantReqSync = {
      messageType: 'PARTICIPANT_REQ_SYNC_MSG',
      messageId: randomUUID(),
      timestamp: this.core.now(),
      participantId: this.core.participantId,
      replicaId: this.core.replicaId,
      participantIdList: [],
      ...stale,
    };
    await this.core.publish(request);
    return true;
  }

  /**
   * Runs parked orders whose revisions now match (after a SYNC), in arrival order. `heartbeat` counts a
   * heartbeat and runs the ones parked for two heartbeats anyway, so a lost SYNC cannot stall an order for ever.
   */
  async releaseParked(heartbeat: boolean): Promise<void> {
    const waiting = this.parked.splice(0, this.parked.length);
    for (const entry of waiting) {
      if (heartbeat) {
        entry.heartbeats += 1;
      }
      const overdue = entry.heartbeats >= 2;
      if (this.staleParts(entry.message) === undefined || overdue) {
        if (overdue) {
          this.core.logger('warn', 'Parked order runs without a matching sync', { messageId: entry.message.messageId });
        }
        await this.run(entry.message);
      } else {
        this.parked.push(entry);
      }
    }
  }

  private staleParts(message: GuardedMessage): StaleParts | undefined {
    const cache = this.core.cache;
    const differs = (cached: Uuid | undefined, sent: Uuid | undefined): boolean =>
      cached !== undefined && sent !== undefined && cached.toLowerCase() !== sent.toLowerCase();
    const parts: StaleParts = {};
    const migration = message.messageType === 'AUTOMATION_COMPOSITION_MIGRATION' ? message : undefined;
    // ONAP's intermediary: a participant whose elements in a migration are all NEW has nothing of the source
    // composition or of the instance to be stale about; only the target composition matters to it.
    const onlyTarget = migration !== undefined && this.ownsOnlyNewElements(migration);
    const compositionId = message.compositionId;
    if (
      !onlyTarget &&
      compositionId !== undefined &&
      differs(cache.compositions.get(compositionId)?.revisionId, message.revisionIdComposition)
    ) {
      parts.compositionId = compositionId;
    }
    if (migration?.compositionTargetId !== undefined) {
      const target = cache.compositions.get(migration.compositionTargetId);
      if (differs(target?.revisionId, migration.revisionIdCompositionTarget)) {
        parts.compositionTargetId = migration.compositionTargetId;
      }
    }
    const instanceId = message.automationCompositionId;
    if (!onlyTarget && differs(cache.instances.get(instanceId)?.revisionId, message.revisionIdInstance)) {
      parts.automationCompositionId = instanceId;
    }
    return Object.keys(parts).length > 0 ? parts : undefined;
  }

  /** True when the migration names elements of this participant and every one of them is NEW. */
  private ownsOnlyNewElements(message: AutomationCompositionMigration): boolean {
    const states = new Map<Uuid, string | undefined>();
    for (const dto of this.core.myDtos(message.participantDtoList)) {
      const id = dtoElementId(dto);
      if (id !== undefined) {
        states.set(id, dto.instanceElementTarget?.state);
      }
    }
    for (const deploy of this.core.myDeploys(message.participantUpdatesList)) {
      states.set(deploy.id, deploy.migrationState ?? states.get(deploy.id));
    }
    return states.size > 0 && [...states.values()].every((state) => state === 'NEW');
  }
}
