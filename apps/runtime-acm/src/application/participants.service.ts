import type { InstanceElement, NodeTemplateState, Participant, SupportedElementType } from '@acm/domain';
import { Clock, DomainError, UnitOfWork } from '@acm/domain';
import type { ServiceTemplate } from '@acm/tosca';
import { Injectable } from '@nestjs/common';
import { participantView } from './views';
import { elementView } from './views';

export interface ParticipantInformation {
  participant: Record<string, unknown>;
  acNodeTemplateStateDefinitionMap: Record<string, NodeTemplateState>;
  acElementInstanceMap: Record<string, Record<string, unknown>>;
}

export interface CompositionDto {
  compositionId: string;
  inPropertiesMap: Record<string, unknown>;
  outPropertiesMap: Record<string, unknown>;
}

function pageOf<T>(entries: Array<[string, T]>, page?: number, size?: number): Record<string, T> {
  const slice = page !== undefined && size !== undefined ? entries.slice(page * size, page * size + size) : entries;
  return Object.fromEntries(slice);
}

function participantNotFound(participantId: string): DomainError {
  return new DomainError('NOT_FOUND', `Participant Not Found with ID: ${participantId}`, { participantId });
}

/** What the runtime knows of participants and what each one serves (ONAP AcmParticipantProvider). */
@Injectable()
export class ParticipantsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async list(page?: number, size?: number): Promise<ParticipantInformation[]> {
    return this.unitOfWork.read(async (store) => {
      const participants = await store.participants.list();
      return Promise.all(participants.map((participant) => this.information(participant, page, size)));
    });
  }

  async get(participantId: string, page?: number, size?: number): Promise<ParticipantInformation> {
    const participant = await this.unitOfWork.read((store) => store.participants.find(participantId));
    if (!participant) {
      throw participantNotFound(participantId);
    }
    return this.information(participant, page, size);
  }

  /**
   * PUT /participants[/{id}]: asks participants for a STATUS. The request goes out on the sync topic
   * once the participant protocol is wired (docs/compatibility.md lists it as pending).
   */
  async requestStatus(participantId?: string): Promise<void> {
    if (participantId !== undefined) {
      await this.assertKnown(participantId);
    }
  }

  /** PUT /participants/sync[/{id}]: re-sends participants what they serve (pending like requestStatus). */
  async sync(participantId?: string): Promise<void> {
    if (participantId !== undefined) {
      await this.assertKnown(participantId);
    }
  }

  /** Fails with NOT_FOUND for an unknown participant; orders aimed at one use it. */
  async assertKnown(participantId: string): Promise<void> {
    const participant = await this.unitOfWork.read((store) => store.participants.find(participantId));
    if (!participant) {
      throw participantNotFound(participantId);
    }
  }

  /** The compositions a participant serves, with only its own elements' properties. */
  async compositions(participantId: string, page?: number, size?: number): Promise<CompositionDto[]> {
    await this.assertKnown(participantId);
    const definitions = await this.unitOfWork.read((store) => store.definitions.list({ participantId, page, size }));
    return definitions.map((definition) => {
      const nodeTemplates = (definition.serviceTemplate as ServiceTemplate).topology_template?.node_templates ?? {};
      const mine = Object.entries(definition.elementStateMap).filter(
        ([, state]) => state.participantId === participantId,
      );
      return {
        compositionId: definition.compositionId,
        inPropertiesMap: Object.fromEntries(
          mine.map(([name, state]) => [
            `${state.nodeTemplateId.name} ${state.nodeTemplateId.version}`,
            nodeTemplates[name]?.properties ?? {},
          ]),
        ),
        outPropertiesMap: Object.fromEntries(
          mine.map(([, state]) => [
            `${state.nodeTemplateId.name} ${state.nodeTemplateId.version}`,
            state.outProperties,
          ]),
        ),
      };
    });
  }

  async composition(participantId: string, compositionId: string): Promise<CompositionDto> {
    const all = await this.compositions(participantId);
    const found = all.find((dto) => dto.compositionId === compositionId);
    if (!found) {
      throw new DomainError(
        'NOT_FOUND',
        `Composition definition ${compositionId} not found for participant ${participantId}`,
        { participantId, compositionId },
      );
    }
    return found;
  }

  /**
   * Records a replica's registration or heartbeat (ONAP REGISTER/STATUS). A type already owned by
   * another participant is refused: priming must find exactly one owner per element type.
   */
  async registerReplica(
    participantId: string,
    replicaId: string,
    supportedTypes: readonly SupportedElementType[],
  ): Promise<{ changed: boolean }> {
    return this.unitOfWork.transaction(async (store) => {
      const all = await store.participants.list();
      const taken = all
        .filter((other) => other.participantId !== participantId)
        .flatMap((other) =>
          Object.values(other.participantSupportedElementTypes)
            .filter((type) =>
              supportedTypes.some((mine) => mine.typeName === type.typeName && mine.typeVersion === type.typeVersion),
            )
            .map((type) => `${type.typeName} ${type.typeVersion} (owned by ${other.participantId})`),
        );
      if (taken.length > 0) {
        throw new DomainError(
          'ALREADY_EXISTS',
          `Participant ${participantId} registers element types already served: ${taken.join(', ')}`,
        );
      }
      const existing = all.find((participant) => participant.participantId === participantId);
      const typesKey = (types: Iterable<SupportedElementType>): string =>
        [...types]
          .map((type) => `${type.typeName} ${type.typeVersion}`)
          .sort()
          .join(',');
      const changed =
        existing === undefined ||
        existing.replicas[replicaId] === undefined ||
        typesKey(Object.values(existing.participantSupportedElementTypes)) !== typesKey(supportedTypes);
      const participant: Participant = {
        participantId,
        participantSupportedElementTypes: Object.fromEntries(supportedTypes.map((type) => [type.id, type])),
        replicas: {
          ...(existing?.replicas ?? {}),
          [replicaId]: { replicaId, participantState: 'ON_LINE', lastMsg: this.clock.now() },
        },
      };
      await store.participants.save(participant);
      return { changed };
    });
  }

  private async information(participant: Participant, page?: number, size?: number): Promise<ParticipantInformation> {
    const { definitions, instances } = await this.unitOfWork.read(async (store) => ({
      definitions: await store.definitions.list({ participantId: participant.participantId }),
      instances: await store.instances.list({ participantId: participant.participantId }),
    }));
    const nodeTemplateStates = definitions.flatMap((definition) =>
      Object.values(definition.elementStateMap)
        .filter((state) => state.participantId === participant.participantId)
        .map((state): [string, NodeTemplateState] => [state.nodeTemplateStateId, state]),
    );
    const elements = instances.flatMap((instance) =>
      Object.values(instance.elements)
        .filter((element) => element.participantId === participant.participantId)
        .map((element: InstanceElement): [string, Record<string, unknown>] => [element.id, elementView(element)]),
    );
    return {
      participant: participantView(participant),
      acNodeTemplateStateDefinitionMap: pageOf(nodeTemplateStates, page, size),
      acElementInstanceMap: pageOf(elements, page, size),
    };
  }
}
