import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery } from '@nestjs/swagger';
import type { DefinitionOrder } from '@acm/domain';
import { DomainError, isDomainError } from '@acm/domain';
import type { InstanceRequest } from '../application/instantiation.service';
import type { InstanceDiffPlan } from '../application/order-plan.service';
import { OrderPlanService } from '../application/order-plan.service';
import type { DefinitionPlan, InstancePlan, PlannedOrder } from '../application/plan.service';
import { PLANNED_ORDERS, PlanService, TARGETED_ORDERS } from '../application/plan.service';
import { InstanceDiffPlan as InstanceDiffPlanDto, PlanRequest } from './dto/plan.dto';
import { parseInstanceBody } from './instance-body';
import { ApiController, ApiJsonOrYamlBody, ApiRefusals, ApiUuidParam, TAGS } from './openapi';
import { asObject, invalid, optionalString, optionalUuid, parseUuid } from './request-parsing';

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

/** The orders that take an instance body, and the order that body makes of a POST of the instance. */
const BODY_ORDERS: ReadonlySet<PlannedOrder> = new Set(['UPDATE', 'MIGRATE', 'MIGRATE_PRECHECK']);

function orderOfBody(request: InstanceRequest): PlannedOrder {
  if (request.compositionTargetId === undefined) {
    return 'UPDATE';
  }
  return request.precheck === true ? 'MIGRATE_PRECHECK' : 'MIGRATE';
}

/**
 * The body of POST .../plan: `order`, and for an update or a migration `instance`, the body that order takes, checked
 * as the order checks it; its problems are named under `instance.`.
 */
function parsePlanRequest(
  instanceId: string,
  body: unknown,
): { order: PlannedOrder; instance: (InstanceRequest & { instanceId: string }) | null } {
  const input = asObject('body', body);
  const order = parseOrder(input['order']);
  const raw = input['instance'];
  if (!BODY_ORDERS.has(order)) {
    if (raw !== undefined && raw !== null) {
      throw invalid(`instance: only for orders ${[...BODY_ORDERS].join(', ')}, not ${order}, which takes no body`);
    }
    return { order, instance: null };
  }
  if (raw === undefined || raw === null) {
    throw invalid(`instance: required for order ${order}: the body the order takes (an AutomationComposition)`);
  }
  let parsed: InstanceRequest;
  try {
    parsed = parseInstanceBody(raw);
  } catch (error) {
    if (isDomainError(error)) {
      throw new DomainError(
        error.code,
        error.message
          .split('\n')
          .map((line) => `instance.${line}`)
          .join('\n'),
        error.details,
      );
    }
    throw error;
  }
  if (parsed.instanceId !== undefined && parsed.instanceId !== instanceId) {
    throw new DomainError(
      'ID_MISMATCH',
      `instance.instanceId: ${parsed.instanceId} does not match with ${instanceId}`,
      {
        instanceId,
      },
    );
  }
  const bodyOrder = orderOfBody(parsed);
  if (bodyOrder !== order) {
    throw invalid(
      `instance: this body orders ${bodyOrder} (compositionTargetId starts a migration, precheck: true a precheck), ` +
        `not ${order}`,
    );
  }
  return { order, instance: { ...parsed, instanceId } };
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
  constructor(
    private readonly plans: PlanService,
    private readonly orderPlans: OrderPlanService,
  ) {}

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

  @Post('instances/:instanceId/plan')
  @HttpCode(200)
  @ApiOperation({
    summary: 'What an order with its body would change in each element (old → new), its steps, and a planId',
    description:
      'Checks the body as the order checks it and writes nothing. Send the answered planId as ?planId= with the ' +
      'order: it is refused (409) if the instance, its definition or the body changed since.',
  })
  @ApiUuidParam('compositionId', 'The compositionId of the instance (for a migration, the one it leaves)')
  @ApiUuidParam('instanceId', 'The instance')
  @ApiJsonOrYamlBody(PlanRequest, 'The order, and the body an UPDATE or a migration takes', {
    deploy: { summary: 'Deploy', value: { order: 'DEPLOY' } },
  })
  @ApiOkResponse({ type: InstanceDiffPlanDto, description: 'The plan, its diff and its planId' })
  @ApiRefusals(404)
  async planOrder(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Body() body: unknown,
  ): Promise<InstanceDiffPlan> {
    const pathCompositionId = parseUuid('compositionId', compositionId);
    const pathInstanceId = parseUuid('instanceId', instanceId);
    const request = parsePlanRequest(pathInstanceId, body);
    return this.orderPlans.ofOrder(pathCompositionId, pathInstanceId, request.order, request.instance);
  }
}
