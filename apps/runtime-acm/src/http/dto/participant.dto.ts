import { PARTICIPANT_STATES } from '@acm/domain';
import type { ParticipantState } from '@acm/domain';
import { ApiExtraModels, ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { NodeTemplateState } from './composition.dto';
import { AutomationCompositionElement } from './instance.dto';
import { EXAMPLE_PARTICIPANT_ID } from './examples';

const OPEN_MAP = { type: 'object', additionalProperties: true } as const;

/** An element type a participant serves (ONAP ParticipantSupportedElementType). */
export class ParticipantSupportedElementType {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement' })
  typeName!: string;

  @ApiProperty({ example: '1.0.0' })
  typeVersion!: string;
}

/** One running process of a participant (ONAP ParticipantReplica). */
export class ParticipantReplica {
  @ApiProperty({ format: 'uuid' })
  replicaId!: string;

  @ApiProperty({ enum: PARTICIPANT_STATES, enumName: 'ParticipantState' })
  participantState!: ParticipantState;

  @ApiProperty({ description: 'Time of its last message, UTC', example: '2026-12-01 11:30:15.123' })
  lastMsg!: string;
}

/**
 * A registered participant and its replicas. ONAP's clients know the schema as `Participant`; the class has a name
 * of its own so it is not taken for the domain's participant.
 */
@ApiSchema({ name: 'Participant' })
@ApiExtraModels(ParticipantSupportedElementType, ParticipantReplica)
export class RegisteredParticipant {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_PARTICIPANT_ID })
  participantId!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ParticipantSupportedElementType) },
    description: 'By supported element type id',
  })
  participantSupportedElementTypes!: Record<string, ParticipantSupportedElementType>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ParticipantReplica) },
    description: 'By replica id',
  })
  replicas!: Record<string, ParticipantReplica>;
}

/** A participant with the node templates and instance elements it serves (ONAP ParticipantInformation). */
@ApiExtraModels(NodeTemplateState, AutomationCompositionElement)
export class ParticipantInformation {
  @ApiProperty({ type: RegisteredParticipant })
  participant!: RegisteredParticipant;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(NodeTemplateState) },
    description: 'By node template state id',
  })
  acNodeTemplateStateDefinitionMap!: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(AutomationCompositionElement) },
    description: 'By element id (paged with page and size)',
  })
  acElementInstanceMap!: Record<string, unknown>;
}

/** A composition as one participant sees it: only its own elements' properties (ONAP CompositionDto). */
export class CompositionDto {
  @ApiProperty({ format: 'uuid' })
  compositionId!: string;

  @ApiProperty({ ...OPEN_MAP, description: 'Node template properties by "name version"' })
  inPropertiesMap!: Record<string, unknown>;

  @ApiProperty({ ...OPEN_MAP, description: 'Reported properties by "name version"' })
  outPropertiesMap!: Record<string, unknown>;
}

/** The answer of GET /v2/participants/{participantId}/compositions (ONAP CompositionDtos). */
export class CompositionDtos {
  @ApiProperty({ type: [CompositionDto] })
  compositions!: CompositionDto[];
}
