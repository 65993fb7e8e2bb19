import type { InstanceElement, NodeTemplateState, Participant } from '@acm/domain';
import { DomainError, ReadModels } from '@acm/domain';
import type { ServiceTemplate } from '@acm/tosca';
import { Injectable } from '@nestjs/common';
import { participantView } from './views';
import { elementView } from './views';
import { participantNotFound } from '../engine/participant-errors';

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

/** What the runtime knows of participants and what each one serves (ONAP AcmParticipantProvider). */
@Injectable()
export class ParticipantsService {
  constructor(private readonly reads: ReadModels) {}

  async list(page?: number, size?: number): Promise<ParticipantInformation[]> {
    return this.reads.read(async (store) => {
      const participants = await store.participants.list();
      return Promise.all(participants.map((participant) => this.information(participant, page, size)));
    });
  }

  async get(participantId: string, page?: number, size?: number): Promise<ParticipantInformation> {
    const participant = await this.reads.read((store) => store.participants.find(participantId));
    if (!participant) {
      throw participantNotFound(participantId);
    }
    return this.information(participant, page, size);
  }

  /** Fails with NOT_FOUND for an unknown participant; orders aimed at one use it. */
  async assertKnown(participantId: string): Promise<void> {
    const participant = await this.reads.read((store) => store.participants.find(participantId));
    if (!participant) {
      throw participantNotFound(participantId);
    }
  }

  /** The compositions a participant serves, with only its own elements' properties. */
  async compositions(participantId: string, page?: number, size?: number): Promise<CompositionDto[]> {
    await this.assertKnown(participantId);
    const definitions = await this.reads.read((store) => store.definitions.list({ participantId, page, size }));
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

  private async information(participant: Participant, page?: number, size?: number): Promise<ParticipantInformation> {
    const { definitions, participantElements } = await this.reads.read(async (store) => ({
      definitions: await store.definitions.list({ participantId: participant.participantId }),
      participantElements: await store.instances.elementsOfParticipant(participant.participantId, { page, size }),
    }));
    const nodeTemplateStates = definitions.flatMap((definition) =>
      Object.values(definition.elementStateMap)
        .filter((state) => state.participantId === participant.participantId)
        .map((state): [string, NodeTemplateState] => [state.nodeTemplateStateId, state]),
    );
    const elements = participantElements.map((element: InstanceElement): [string, Record<string, unknown>] => [
      element.id,
      elementView(element),
    ]);
    return {
      participant: participantView(participant),
      acNodeTemplateStateDefinitionMap: pageOf(nodeTemplateStates, page, size),
      // Paged in the database: a participant may serve far more elements than fit in memory at once.
      acElementInstanceMap: Object.fromEntries(elements),
    };
  }
}
