import { AC_TYPE_STATES, PRIME_ORDERS, STATE_CHANGE_RESULTS } from '@acm/domain';
import type { AcTypeState, JsonObject, PrimeOrder, StateChangeResult } from '@acm/domain';
import type { CommissioningResponse as CommissioningAnswer } from '../../application/commissioning.service';
import type { DefinitionView } from '../../application/views';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { notOneOf } from '../validated-body';
import { COMMISSIONING_RESPONSE_EXAMPLE } from './examples';

/** A name and version that identify a TOSCA concept (ONAP ToscaConceptIdentifier). */
export class ToscaConceptIdentifier {
  @ApiProperty({ example: 'acm.example.single.SimElement' })
  name!: string;

  @ApiProperty({ example: '1.0.0' })
  version!: string;
}

const OPEN_MAP = { type: 'object', additionalProperties: true } as const;

/**
 * A TOSCA service template, JSON or YAML (ONAP ToscaServiceTemplate). The runtime checks it with its TOSCA reader,
 * which names every problem with its path; the schema lists the sections it reads.
 */
export class ToscaServiceTemplate {
  @ApiProperty({ example: 'tosca_simple_yaml_1_3' })
  tosca_definitions_version!: string;

  @ApiPropertyOptional({ example: 'acm.example.Minimal' })
  name?: string;

  @ApiPropertyOptional({ example: '1.0.0' })
  version?: string;

  @ApiPropertyOptional({ description: 'Free text' })
  description?: string;

  @ApiPropertyOptional({
    ...OPEN_MAP,
    description: 'With compositionId, a commissioning replaces that COMMISSIONED definition',
  })
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ ...OPEN_MAP, description: 'Data types by name' })
  data_types?: Record<string, unknown>;

  @ApiPropertyOptional({ ...OPEN_MAP, description: 'Node types by name' })
  node_types?: Record<string, unknown>;

  @ApiPropertyOptional({ ...OPEN_MAP, description: 'Policy types by name' })
  policy_types?: Record<string, unknown>;

  @ApiPropertyOptional({ ...OPEN_MAP, description: 'node_templates: the composition and its elements' })
  topology_template?: Record<string, unknown>;
}

/** The answer of GET /v2/compositions (ONAP ToscaServiceTemplates). */
export class ToscaServiceTemplates {
  @ApiProperty({ type: [ToscaServiceTemplate] })
  service_templates!: JsonObject[];
}

/** The answer of a commissioning, update or deletion of a definition (ONAP CommissioningResponse). */
export class CommissioningResponse implements CommissioningAnswer {
  @ApiProperty({ format: 'uuid', example: COMMISSIONING_RESPONSE_EXAMPLE.compositionId })
  compositionId!: string;

  @ApiProperty({ type: [ToscaConceptIdentifier], description: 'The node templates of the definition' })
  affectedAutomationCompositionDefinitions!: ToscaConceptIdentifier[];
}

/** Per element node template: the participant that serves it and how far priming got (ONAP NodeTemplateState). */
export class NodeTemplateState {
  @ApiProperty({ format: 'uuid' })
  nodeTemplateStateId!: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Set once a participant serves the type' })
  participantId?: string;

  @ApiProperty({ type: ToscaConceptIdentifier })
  nodeTemplateId!: ToscaConceptIdentifier;

  @ApiProperty({ enum: AC_TYPE_STATES, enumName: 'AcTypeState' })
  state!: AcTypeState;

  @ApiPropertyOptional()
  message?: string;

  @ApiProperty({ ...OPEN_MAP })
  outProperties!: Record<string, unknown>;
}

/** One commissioned definition and its lifecycle (ONAP AutomationCompositionDefinition). */
@ApiExtraModels(NodeTemplateState)
export class AutomationCompositionDefinition implements DefinitionView {
  @ApiProperty({ format: 'uuid' })
  compositionId!: string;

  @ApiProperty({ type: ToscaServiceTemplate })
  serviceTemplate!: JsonObject;

  @ApiProperty({ enum: AC_TYPE_STATES, enumName: 'AcTypeState' })
  state!: AcTypeState;

  @ApiProperty({ enum: STATE_CHANGE_RESULTS, enumName: 'StateChangeResult' })
  stateChangeResult!: StateChangeResult;

  @ApiProperty({ description: 'Time of the last change, UTC, as ONAP prints it', example: '2026-12-01 11:30:15.123' })
  lastMsg!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(NodeTemplateState) },
    description: 'By element node template name',
  })
  elementStateMap!: DefinitionView['elementStateMap'];

  @ApiProperty({ format: 'uuid', description: 'Changes with every stored change' })
  revisionId!: string;

  @ApiProperty({ example: 'default', description: 'Beyond ONAP: the project of the definition and its instances' })
  project!: string;
}

/** The body of PUT /v2/compositions/{compositionId} (ONAP AcTypeStateUpdate). */
export class AcTypeStateUpdate {
  @ApiPropertyOptional({ enum: PRIME_ORDERS, enumName: 'PrimeOrder', example: 'PRIME', description: 'Absent: NONE' })
  @IsOptional()
  @IsIn(PRIME_ORDERS, { message: notOneOf(PRIME_ORDERS) })
  primeOrder?: PrimeOrder;
}
