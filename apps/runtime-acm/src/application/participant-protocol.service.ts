import type {
  ParticipantDeregister,
  ParticipantRegister,
  ParticipantReqSync,
  ParticipantStatus,
  ParticipantTopics,
} from '@acm/contracts';
import type {
  CompositionDefinition,
  OutboxRecord,
  Participant,
  RegistrationLimits,
  RegistrationWindow,
  Store,
} from '@acm/domain';
import { Clock, DomainError, IdGenerator, NO_REGISTRATION_WINDOW, UnitOfWork, decideRegistration } from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { participantNotFound } from '../engine/participant-errors';
import { TemplateReader } from '../engine/template-reader';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { EngineMetrics } from '../engine/engine-metrics';
import { ObservationService } from './observation.service';
import { participantDefinitions, requestedInstanceSync, restartAc, toOutbox } from '../engine/participant-messages';

/** True when a STATUS carries more than a heartbeat. */
export function carriesReport(message: ParticipantStatus): boolean {
  return (
    (message.automationCompositionInfoList ?? []).some((info) => (info.elements ?? []).length > 0) ||
    (!!message.compositionId && !!message.participantDefinitionUpdates)
  );
}

/**
 * The participant side of the protocol that is not an order: registration, heartbeats, deregistration,
 * status requests and cache synchronisation.
 */
@Injectable()
export class ParticipantProtocolService {
  private readonly logger = new Logger('Participants');
  private readonly topics: ParticipantTopics;
  private readonly registrationLimits: RegistrationLimits;
  /** This runtime replica's rate window; each replica limits what it handles. */
  private registrationWindow: RegistrationWindow = NO_REGISTRATION_WINDOW;

  constructor(
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
    private readonly unitOfWork: UnitOfWork,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly metrics: EngineMetrics,
    private readonly observations: ObservationService,
  ) {
    this.topics = { operation: config.operationTopic, sync: config.syncTopic };
    this.registrationLimits = {
      maxParticipants: config.maxParticipants,
      maxReplicasPerParticipant: config.maxParticipantReplicas,
      registrationsPerWindow: config.registrationRateLimit,
      windowMs: config.registrationRateWindowMs,
    };
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

  /**
   * STATUS: a heartbeat (and for an unknown replica, a registration) plus any element or definition information it
   * carries. A plain heartbeat of a known replica is one statement and no transaction of its own.
   */
  async status(message: ParticipantStatus): Promise<void> {
    await this.heartbeats([message]);
    if (carriesReport(message)) {
      await this.unitOfWork.transaction((store) => this.reportIn(store, message));
      await this.recordObservations([message]);
    }
  }

  /**
   * The observations (health, drift) the committed reports carry, after their commit: they are written apart from the
   * instance rows, on a connection of their own, so never inside the reports' transaction.
   */
  recordObservations(reports: readonly ParticipantStatus[]): Promise<void> {
    return this.observations.record(reports);
  }

  /**
   * The heartbeat part of STATUS reports (a batch's, as they arrived): one autocommitted `UPDATE` per replica
   * however many reports it sent, outside any batch transaction so concurrent batches never queue on a replica
   * row; an unknown replica is registered in a transaction of its own.
   */
  async heartbeats(messages: readonly ParticipantStatus[]): Promise<void> {
    const latest = new Map(messages.map((message) => [`${message.participantId}/${message.replicaId}`, message]));
    for (const message of latest.values()) {
      const known = await this.unitOfWork.read((store) =>
        store.participants.touchReplica(message.participantId, message.replicaId, this.clock.now()),
      );
      if (!known) {
        await this.unitOfWork.transaction(async (store) => {
          if (await this.recordReplica(store, message.participantId, message.replicaId, message)) {
            await store.outbox.add(await this.restartSync(store, message.participantId, message.replicaId));
          }
        });
      }
    }
  }

  /** The element and definition information of a STATUS, inside the caller's transaction (heartbeat apart). */
  async reportIn(store: Store, message: ParticipantStatus): Promise<void> {
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
  }

  /** DEREGISTER: forgets the replica and answers with a broadcast DEREGISTER_ACK. */
  async deregister(message: ParticipantDeregister): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      // Read first, so the replica's last state is known to what watches the transaction (ON_LINE -> DEREGISTERED).
      await store.participants.find(message.participantId);
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

  /**
   * REQ_SYNC: a replica found its cache stale; send it the definitions it names and, as ONAP does, the
   * instance it names as an instance SYNC (its revision and elements) whatever composition the instance is
   * on, so a participant that serves only the target of a migration gets it too.
   */
  async requestedSync(message: ParticipantReqSync): Promise<void> {
    await this.unitOfWork.transaction(async (store) => {
      const compositionIds = [message.compositionId, message.compositionTargetId].filter((id): id is string => !!id);
      const instanceId = message.automationCompositionId;
      const records =
        compositionIds.length > 0 || instanceId === undefined
          ? await this.restartSync(store, message.participantId, message.replicaId, {
              compositionIds,
              ...(instanceId !== undefined ? { instanceId } : {}),
            })
          : [];
      if (instanceId !== undefined) {
        const instance = await store.instances.find(instanceId);
        const definition = instance ? await store.definitions.find(instance.value.compositionId) : undefined;
        records.push(
          toOutbox(
            requestedInstanceSync(
              this.ids.uuid(),
              new Date(this.clock.now()).toISOString(),
              { participantId: message.participantId, replicaId: message.replicaId, instanceId },
              instance && definition ? { instance: instance.value, definition: definition.value } : undefined,
            ),
            this.topics,
          ),
        );
      }
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

  /**
   * Forgets every recorded replica and returns every known participant. Only for a runtime whose
   * participants all live in its own process (embedded database and in-process bus): the replicas an
   * earlier run recorded died with it (they would otherwise stay ON_LINE until MAX_STATUS_WAIT), and so
   * did whatever work they held, killed or stopped.
   */
  async forgetReplicasOfEarlierRuns(): Promise<string[]> {
    return this.unitOfWork.transaction(async (store) => {
      const participants = await store.participants.list();
      for (const participant of participants) {
        for (const replicaId of Object.keys(participant.replicas)) {
          await store.participants.deleteReplica(participant.participantId, replicaId);
        }
      }
      return participants.map((participant) => participant.participantId);
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
   * Returns null when the registration is refused (registration limits, or a type already owned by another
   * participant), true when the replica is new or its types changed, false for a plain heartbeat.
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
    if (!this.admitRegistration(participantId, replicaId, existing ?? undefined, owners)) {
      return null;
    }
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
   * A stored definition for a SYNC. One that cannot be read is left out (logged and counted) rather than
   * failing the whole message: a participant is never refused for what another definition contains.
   */
  private readStored(definition: CompositionDefinition): CompositionTemplateInfo | undefined {
    try {
      return this.templates.readDefinition(definition);
    } catch (error) {
      if (!(error instanceof DomainError)) {
        throw error;
      }
      this.metrics.messagesIgnored.inc({ reason: 'UNREADABLE_DEFINITION' });
      this.logger.warn(`Definition ${definition.compositionId} left out of a SYNC: ${error.message}`);
      return undefined;
    }
  }

  /**
   * Registration limits: a new participant or replica counts against a bound and a rate, a known replica
   * never does. A refused replica gets no REGISTER_ACK, so a real participant simply registers again on its
   * next heartbeat. One warning per window, however many records a flood sends; every refusal is counted.
   */
  private admitRegistration(
    participantId: string,
    replicaId: string,
    existing: Participant | undefined,
    owners: readonly Participant[],
  ): boolean {
    const online = (participant: Participant): number =>
      Object.values(participant.replicas).filter((replica) => replica.participantState === 'ON_LINE').length;
    const now = this.clock.now();
    const decision = decideRegistration(
      this.registrationLimits,
      this.registrationWindow,
      {
        participantKnown: existing !== undefined,
        replicaKnown: existing?.replicas[replicaId] !== undefined,
        participantsOnline: owners.filter((participant) => online(participant) > 0).length,
        replicasOnline: existing === undefined ? 0 : online(existing),
      },
      now,
    );
    this.registrationWindow = decision.window;
    if (decision.refusal === null) {
      return true;
    }
    this.metrics.registrationsRefused.inc({ reason: decision.refusal });
    if (decision.firstRefusalInWindow) {
      this.logger.warn(
        `Participant ${participantId} replica ${replicaId} refused (${decision.refusal}); further refusals in this ` +
          `${this.registrationLimits.windowMs} ms window are only counted in acm_participant_registrations_refused_total`,
      );
    }
    return false;
  }

  /**
   * A new replica may be a restarted process whose predecessor died with work in hand, while the dead
   * one still looks ON_LINE until MAX_STATUS_WAIT. Every replica of the participant is asked for a
   * STATUS now; at the next supervision pass, those that did not answer are silent and their work goes
   * to the live ones (`OperationSupervisor.handOverAfterProbes`). A later registration moves a pending probe
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
      const info = this.readStored(definition);
      if (info === undefined) {
        continue;
      }
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
            automationcompositionList: instances.map((instance) => restartAc(instance, participantId, info)),
          },
          this.topics,
        ),
      );
    }
    return records;
  }
}
