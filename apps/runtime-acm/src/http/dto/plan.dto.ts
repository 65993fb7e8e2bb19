import { ELEMENT_ACTIONS } from '@acm/domain';
import type * as domain from '@acm/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { PLANNED_ORDERS } from '../../application/plan.service';
import { AutomationComposition } from './instance.dto';
import { ToscaConceptIdentifier } from './composition.dto';

/** The body of POST .../instances/{instanceId}/plan: an order and, for UPDATE and MIGRATE, the body it takes. */
export class PlanRequest {
  @ApiProperty({ enum: PLANNED_ORDERS, enumName: 'PlannedOrder' })
  order!: string;

  @ApiPropertyOptional({
    type: AutomationComposition,
    description:
      'UPDATE, MIGRATE and MIGRATE_PRECHECK only, and required for them: the body the order takes ' +
      '(compositionTargetId for a migration, precheck: true for a precheck); instanceId may be left out',
  })
  instance?: AutomationComposition;
}

/** Any JSON value: a property holds what its type allows. */
const ANY_JSON: SchemaObject = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'object', additionalProperties: true },
    { type: 'array', items: {} },
  ],
};

/** One changed property of an element. */
export class PropertyChange implements domain.PropertyChange {
  @ApiProperty({ description: 'Where the property is: `a.b` in maps, `m["odd key"]`', example: 'timeout' })
  path!: string;

  @ApiPropertyOptional({
    ...ANY_JSON,
    description: 'The value now; absent when the order adds the property',
  } as ApiPropertyOptions)
  old?: unknown;

  @ApiPropertyOptional({
    ...ANY_JSON,
    description: 'The value after the order; absent when it removes it',
  } as ApiPropertyOptions)
  new?: unknown;

  @ApiPropertyOptional({ enum: [true], description: 'A sensitive value: both sides are masked' })
  sensitive?: true;

  @ApiPropertyOptional({ enum: [true], description: 'The new value is only known once the order ran' })
  knownAfterDeploy?: true;

  @ApiProperty({ description: 'path: old → new', example: 'timeout: 10 → 20' })
  text!: string;
}

export class DefinitionChange {
  @ApiProperty({ type: ToscaConceptIdentifier })
  old!: ToscaConceptIdentifier;

  @ApiProperty({ type: ToscaConceptIdentifier })
  new!: ToscaConceptIdentifier;
}

/** What the order does to one element. */
export class ElementChange implements domain.ElementDiff {
  @ApiProperty({ format: 'uuid' })
  elementId!: string;

  @ApiProperty({ description: 'Node template name' })
  name!: string;

  @ApiProperty()
  version!: string;

  @ApiProperty({ enum: ELEMENT_ACTIONS, enumName: 'ElementAction' })
  action!: domain.ElementAction;

  @ApiPropertyOptional({ type: DefinitionChange, description: 'A migration to another node template version' })
  definition?: DefinitionChange;

  @ApiPropertyOptional({ type: [String], description: 'replace only: the changed properties that force it' })
  forcedBy?: string[];

  @ApiProperty({ type: [PropertyChange] })
  changes!: PropertyChange[];
}

export class DiffSummary implements domain.DiffSummary {
  @ApiProperty({ type: 'integer' })
  create!: number;

  @ApiProperty({ type: 'integer' })
  update!: number;

  @ApiProperty({ type: 'integer' })
  replace!: number;

  @ApiProperty({ type: 'integer' })
  delete!: number;

  @ApiProperty({ type: 'integer' })
  unchanged!: number;
}

/** The answer of POST .../plan: GET .../plan's answer, each element's change and the planId. */
export class InstanceDiffPlan {
  @ApiProperty({
    description:
      'Send it as ?planId= with the order: refused (409) if the instance, its definition or the body changed',
    example: '3f1c0a9d2b7e4c51a0b1c2d3e4f5a6b70123456789abcdef',
  })
  planId!: string;

  @ApiProperty({ enum: PLANNED_ORDERS, enumName: 'PlannedOrder' })
  order!: string;

  @ApiProperty({ format: 'uuid' })
  compositionId!: string;

  @ApiProperty({ format: 'uuid' })
  instanceId!: string;

  @ApiPropertyOptional({ format: 'uuid' })
  compositionTargetId?: string;

  @ApiProperty({ description: 'False when the order runs no operation (an update of an UNDEPLOYED instance)' })
  runsOperation!: boolean;

  @ApiProperty({ type: [ElementChange], description: 'One entry per element, by element id' })
  changes!: ElementChange[];

  @ApiProperty({ type: DiffSummary })
  summary!: DiffSummary;

  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'The messages the order would send, in order, as GET .../plan answers them',
  })
  steps!: object[];
}
