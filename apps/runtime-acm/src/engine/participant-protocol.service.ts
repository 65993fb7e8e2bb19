import type {
  ParticipantDeregister,
  ParticipantRegister,
  ParticipantReqSync,
  ParticipantStatus,
  ParticipantTopics,
} from '@acm/contracts';
import type { OutboxRecord, Participant, Store } from '@acm/domain';
import { Clock, IdGenerator, UnitOfWork } from '@acm/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { participantNotFound } from '../application/participants.service';
import { TemplateReader } from '../application/template-reader';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { EngineMetrics } from './engine-metrics';
import { participantDefinitions, restartAc, toOutbox } from './participant-messages';

/**
 * The participant side of the protocol that is not an order: registration, heartbeats, deregistration,
 * status requests and cache synchronisation (reference §3.5).
 */
@Injectable()
export class ParticipantProtocolService {
  private readonly logger = new Logger('Participants');
  private readonly topics: ParticipantTopics;

  constructor(
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
    private readonly unitOfWork: UnitOfWork,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly metrics: EngineMetrics,
  ) {
    this.topics = { operation: config.operationTopic, sync: config.syncTopic };
  }

  /**
   * REGISTER: records the replica (ON_LINE), answers REGISTER_ACK on the sync topic and, when the replica
   * is new or its types changed, re-sends it everything it serves (ONAP's restart SYNC).
   */
  async register(message: ParticipantRegister): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      const changed = await this.recordReplica(store, message.participantId, message.replicaId, message);
      if (changed === null) {
        return;
      }
      const now = new Date(this.clock.now()).toISOString();
      const records: OutboxRecord[] = [];
      if (changed) {
        records.push(...(await this.restartSync(store, message.participantId, message.replicaId)));
        records.push(...(await this.probeOtherReplicas(store, message.participantId, message.replicaId)));
      }
      records.push(
        toOutbox(
          {
            messageType: 'PARTICIPANT_REGISTER_ACK',
            responseTo: message.messageId,
            timestamp: now,
            participantId: message.participantId,
            replicaId: message.replicaId,
            message: 'Participant Register Ack',
            stateChangeResult: 'NO_ERROR',
          },
          this.topics,
        ),
      );
      await store.outbox.add(records);
    });
  }

  /** STATUS: a heartbeat (and for an unknown replica, a registration) plus any outProperties it carries. */
  async status(message: ParticipantStatus): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      // A heartbeat of a known replica is one UPDATE; its supported types change only through REGISTER.
      const known = await store.participants.touchReplica(message.participantId, message.replicaId, this.clock.now());
      const changed = known
        ? false
        : await this.recordReplica(store, message.participantId, message.replicaId, message);
      if (changed) {
        await store.outbox.add(await this.restartSync(store, message.participantId, message.replicaId));
      }
      // Element information is the participant's own data: one guarded row update each, no instance lock
      // and no version bump, so it never makes a user's order fail with 409.
      for (const info of message.automationCompositionInfoList ?? []) {
        for (const element of info.elements ?? []) {
          await store.instances.updateElementInfo(
            info.automationCompositionId,
            element.automationCompositionElementId,
            message.participantId,
            {
              outProperties: element.outProperties ?? null,
              operationalState: element.operationalState ?? null,
              useState: element.useState ?? null,
            },
          );
        }
      }
      if (message.compositionId && message.participantDefinitionUpdates) {
        const found = await store.definitions.findForUpdate(message.compositionId);
        if (found) {
          const outByName = new Map(
            message.participantDefinitionUpdates
              .filter((update) => update.participantId === message.participantId)
              .flatMap((update) => update.automationCompositionElementDefinitionList)
              .map((entry) => [entry.acElementDefinitionId.name, entry.outProperties ?? {}]),
          );
          const elementStateMap = Object.fromEntries(
            Object.entries(found.value.elementStateMap).map(([name, state]) => [
              name,
              outByName.has(name) && state.participantId === message.participantId
                ? { ...state, outProperties: outByName.get(name) ?? {} }
                : state,
            ]),
          );
          await store.definitions.update({ ...found.value, elementStateMap }, found.version);
        }
      }
    });
  }

  /** DEREGISTER: forgets the replica and answers with a broadcast DEREGISTER_ACK. */
  async deregister(message: ParticipantDeregister): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      await store.participants.deleteReplica(message.participantId, message.replicaId);
      await store.outbox.add([
        toOutbox(
          {
            messageType: 'PARTICIPANT_DEREGISTER_ACK',
            responseTo: message.messageId,
            timestamp: new Date(this.clock.now()).toISOString(),
            message: 'Participant Deregister Ack',
          },
          this.topics,
        ),
      ]);
    });
  }

  /** REQ_SYNC: a replica found its cache stale; send it the definition and instance it names. */
  async requestedSync(message: ParticipantReqSync): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      const records = await this.restartSync(store, message.participantId, message.replicaId, {
        compositionIds: [message.compositionId, message.compositionTargetId].filter((id): id is string => !!id),
        instanceId: message.automationCompositionId,
      });
      await store.outbox.add(records);
    });
  }

  /** PUT /participants[/{id}]: STATUS_REQ on the sync topic. */
  async requestStatus(participantId?: string): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      if (participantId !== undefined) {
        await this.assertKnown(store, participantId);
      }
      await store.outbox.add([
        toOutbox(
          {
            messageType: 'PARTICIPANT_STATUS_REQ',
            messageId: this.ids.uuid(),
            timestamp: new Date(this.clock.now()).toISOString(),
            ...(participantId ? { participantId, participantIdList: [participantId] } : { participantIdList: [] }),
          },
          this.topics,
        ),
      ]);
    });
  }

  /** PUT /participants/sync[/{id}]: re-send every (or one) participant what it serves. */
  async sync(participantId?: string): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      const participants = participantId
        ? [await this.assertKnown(store, participantId)]
        : await store.participants.list();
      for (const participant of participants) {
        await store.outbox.add(await this.restartSync(store, participant.participantId));
      }
    });
  }

  /** Marks replicas silent for longer than `maxStatusWaitMs` OFF_LINE. */
  async markSilentReplicas(maxStatusWaitMs: number): Promise<string[]> {
    const changed = await this.unitOfWork.transaction((store) =>
      store.participants.markSilentReplicasOffline(this.clock.now() - maxStatusWaitMs),
    );
    for (const participantId of changed) {
      this.logger.warn(`Participant ${participantId}: a replica went silent and is now OFF_LINE`);
    }
    return changed;
  }

  private async assertKnown(store: Store, participantId: string): Promise<Participant> {
    const participant = await store.participants.find(participantId);
    if (!participant) {
      throw participantNotFound(participantId);
    }
    return participant;
  }

  /**
   * Returns null when the registration is refused (a type already owned by another participant),
   * true when the replica is new or its types changed, false for a plain heartbeat.
   */
  private async recordReplica(
    store: Store,
    participantId: string,
    replicaId: string,
    message: ParticipantRegister | ParticipantStatus,
  ): Promise<boolean | null> {
    const now = this.clock.now();
    const existing = await store.participants.find(participantId);
    const types =
      message.participantSupportedElementType ?? Object.values(existing?.participantSupportedElementTypes ?? {});
    const supported = types.map((type) => ({
      id: type.id ?? this.ids.uuid(),
      typeName: type.typeName,
      typeVersion: type.typeVersion,
    }));
    const owners = await store.participants.list();
    const taken = owners
      .filter((other) => other.participantId !== participantId)
      .flatMap((other) => Object.values(other.participantSupportedElementTypes).map((type) => ({ other, type })))
      .filter(({ type }) =>
        supported.some((mine) => mine.typeName === type.typeName && mine.typeVersion === type.typeVersion),
      );
    if (taken.length > 0) {
      this.metrics.messagesIgnored.inc({ reason: 'TYPE_OWNED_ELSEWHERE' });
      this.logger.warn(
        `Participant ${participantId} refused: ${taken.map(({ type, other }) => `${type.typeName} ${type.typeVersion} belongs to ${other.participantId}`).join(', ')}`,
      );
      return null;
    }
    const key = (list: Array<{ typeName: string; typeVersion: string }>): string =>
      list
        .map((type) => `${type.typeName} ${type.typeVersion}`)
        .sort()
        .join(',');
    const changed =
      existing === undefined ||
      existing === null ||
      existing.replicas[replicaId] === undefined ||
      key(Object.values(existing.participantSupportedElementTypes)) !== key(supported);
    await store.participants.save({
      participantId,
      participantSupportedElementTypes: Object.fromEntries(supported.map((type) => [type.id, type])),
      replicas: {
        ...(existing?.replicas ?? {}),
        [replicaId]: { replicaId, participantState: 'ON_LINE', lastMsg: now },
      },
    });
    return changed;
  }

  /**
   * A new replica may be a restarted process whose predecessor died with work in hand, while the dead
   * one still looks ON_LINE until MAX_STATUS_WAIT. Every replica of the participant is asked for a
   * STATUS now; at the next supervision pass, those that did not answer are silent and their work goes
   * to the live ones (`OperationEngine.handOverAfterProbes`). A later registration moves a pending probe
   * on, so the replicas must answer after the newest one.
   */
  private async probeOtherReplicas(store: Store, participantId: string, replicaId: string): Promise<OutboxRecord[]> {
    const participant = await store.participants.find(participantId);
    const others = Object.keys(participant?.replicas ?? {}).filter((other) => other !== replicaId);
    if (others.length === 0) {
      return [];
    }
    await store.operations.recordProbe(participantId, this.clock.now());
    return [
      toOutbox(
        {
          messageType: 'PARTICIPANT_STATUS_REQ',
          messageId: this.ids.uuid(),
          timestamp: new Date(this.clock.now()).toISOString(),
          participantId,
          participantIdList: [participantId],
        },
        this.topics,
      ),
    ];
  }

  /** ONAP's restart SYNC: for every non-COMMISSIONED definition the participant serves, its elements and instances. */
  private async restartSync(
    store: Store,
    participantId: string,
    replicaId?: string,
    only?: { compositionIds: string[]; instanceId?: string },
  ): Promise<OutboxRecord[]> {
    const definitions = (await store.definitions.list({ participantId })).filter(
      (definition) =>
        definition.state !== 'COMMISSIONED' &&
        (only === undefined ||
          only.compositionIds.length === 0 ||
          only.compositionIds.includes(definition.compositionId)),
    );
    const records: OutboxRecord[] = [];
    for (const definition of definitions) {
      const info = this.templates.readDefinition(definition);
      const instances = (await store.instances.list({ compositionId: definition.compositionId, participantId })).filter(
        (instance) => only?.instanceId === undefined || instance.instanceId === only.instanceId,
      );
      records.push(
        toOutbox(
          {
            messageType: 'PARTICIPANT_SYNC_MSG',
            messageId: this.ids.uuid(),
            timestamp: new Date(this.clock.now()).toISOString(),
            participantId,
            ...(replicaId ? { replicaId } : {}),
            participantIdList: [participantId],
            compositionId: definition.compositionId,
            revisionIdComposition: definition.revisionId,
            state: definition.state,
            stateChangeResult: definition.stateChangeResult,
            restarting: true,
            delete: false,
            excludeReplicas: [],
            participantDefinitionUpdates: participantDefinitions(definition, info, participantId),
            automationcompositionList: instances.map((instance) => restartAc(instance, participantId)),
          },
          this.topics,
        ),
      );
    }
    return records;
  }
}
