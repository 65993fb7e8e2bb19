import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery } from '@nestjs/swagger';
import type { DefinitionOrder } from '@acm/domain';
import type { DefinitionPlan, InstancePlan, PlannedOrder } from '../application/plan.service';
import { PLANNED_ORDERS, PlanService, TARGETED_ORDERS } from '../application/plan.service';
import { ApiController, TAGS } from './openapi';
import { invalid, optionalString, optionalUuid, parseUuid } from './request-parsing';

function parseOrder(value: unknown): PlannedOrder {
  const text = optionalString('order', value);
  if (text === undefined || text === '') {
    throw invalid(`order: required, one of ${PLANNED_ORDERS.join(', ')}`);
  }
  const order = PLANNED_ORDERS.find((candidate) => candidate === text);
  if (order === undefined) {
    throw invalid(`order: must be one of ${PLANNED_ORDERS.join(', ')}`);
  }
  return order;
}

function parseTarget(order: PlannedOrder, value: unknown): string | undefined {
  const target = optionalUuid('compositionTargetId', value);
  if (TARGETED_ORDERS.has(order) && target === undefined) {
    throw invalid(`compositionTargetId: required for order ${order}, the composition to migrate to`);
  }
  if (!TARGETED_ORDERS.has(order) && target !== undefined) {
    throw invalid(`compositionTargetId: only for orders ${[...TARGETED_ORDERS].join(', ')}, not ${order}`);
  }
  return target;
}

const DEFINITION_ORDERS = ['PRIME', 'DEPRIME'] as const satisfies readonly DefinitionOrder[];

function parseDefinitionOrder(value: unknown): DefinitionOrder {
  const text = optionalString('order', value);
  if (text === undefined || text === '') {
    throw invalid(`order: required, one of ${DEFINITION_ORDERS.join(', ')}`);
  }
  const order = DEFINITION_ORDERS.find((candidate) => candidate === text);
  if (order === undefined) {
    throw invalid(`order: must be one of ${DEFINITION_ORDERS.join(', ')}`);
  }
  return order;
}

/** Beyond ONAP: what an order would do, step by step, before it is given (`tofu plan`). */
@ApiController(TAGS.plan)
@Controller('v2/compositions/:compositionId')
export class PlanController {
  constructor(private readonly plans: PlanService) {}

  @Get('plan')
  @ApiOperation({ summary: 'The participants a PRIME or DEPRIME would go to, after the checks the order runs' })
  @ApiQuery({ name: 'order', required: true, enum: DEFINITION_ORDERS })
  async definition(
    @Param('compositionId') compositionId: string,
    @Query('order') order: unknown,
  ): Promise<DefinitionPlan> {
    const parsedOrder = parseDefinitionOrder(order);
    return this.plans.ofDefinition(parseUuid('compositionId', compositionId), parsedOrder);
  }

  @Get('instances/:instanceId/plan')
  @ApiOperation({
    summary: 'The messages an order would send, in order: phase or stage, elements, participants, what each waits for',
  })
  @ApiQuery({ name: 'order', required: true, enum: PLANNED_ORDERS })
  @ApiQuery({ name: 'compositionTargetId', required: false, description: 'MIGRATE and MIGRATE_PRECHECK only' })
  async plan(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query('order') order: unknown,
    @Query('compositionTargetId') compositionTargetId: unknown,
  ): Promise<InstancePlan> {
    const parsedOrder = parseOrder(order);
    return this.plans.ofInstance(
      parseUuid('compositionId', compositionId),
      parseUuid('instanceId', instanceId),
      parsedOrder,
      parseTarget(parsedOrder, compositionTargetId),
    );
  }
}
