import { DEPLOY_STATES, INSTANCE_SORT_FIELDS, STATE_CHANGE_RESULTS } from '@acm/domain';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ObservationService } from '../application/observation.service';
import type { InstanceHealthView } from '../application/observation.service';
import { ControlService } from '../application/control.service';
import type { ControlView } from '../application/control.service';
import { InstantiationService } from '../application/instantiation.service';
import { ApprovalsService, pendingApprovalView } from '../application/approvals.service';
import type { PendingApprovalView } from '../application/approvals.service';
import type { InstanceOrder } from '../application/instance-orders';
import { principalOf } from '../security/principal';
import type {
  InstancePreview as InstancePreviewAnswer,
  InstantiationResponse as InstantiationAnswer,
} from '../application/instantiation.service';
import { instanceView, instancesView, withProjects } from '../application/views';
import type { InstanceView, WithProject } from '../application/views';
import { CommissioningService } from '../application/commissioning.service';
import {
  AutomationCompositionWithControl,
  AcInstanceStateUpdate,
  AutomationComposition,
  AutomationCompositions,
  InstancePreview,
  InstantiationResponse,
} from './dto/instance.dto';
import { INSTANCE_EXAMPLE, INSTANTIATION_RESPONSE_EXAMPLE } from './dto/examples';
import {
  ApiController,
  ApiJsonOrYamlBody,
  ApiPaging,
  ApiRefusals,
  ApiShowSensitive,
  ApiUuidParam,
  TAGS,
} from './openapi';
import { SensitiveValues } from '../security/sensitive-values';
import { parseShowSensitive } from './show-sensitive';
import { parseInstanceBody } from './instance-body';
import { PLAN_ID_PATTERN } from '../application/plan-digest';
import { excerpt } from '@acm/input-guards';
import { locationOf } from './location';
import { visibleProjectsOf } from './access-guard';
import { validatedBody } from './validated-body';
import {
  invalid,
  optionalString,
  optionalUuid,
  parseEnumList,
  parsePage,
  parseUuid,
  parseUuidList,
} from './request-parsing';

function parseDryRun(value: unknown): boolean {
  if (value === undefined || value === 'false') {
    return false;
  }
  if (value === 'true' || value === '') {
    return true;
  }
  throw invalid(`dryRun: must be true or false, got ${JSON.stringify(value)}`);
}

/** `?planId=` (beyond ONAP): the order starts only if nothing changed since POST .../plan answered this id. */
function parsePlanId(value: unknown): string | undefined {
  const text = optionalString('planId', value)?.toLowerCase();
  if (text === undefined) {
    return undefined;
  }
  if (!PLAN_ID_PATTERN.test(text)) {
    throw invalid(`planId: must be the 48 hexadecimal characters POST .../plan answered, got ${excerpt(text)}`);
  }
  return text;
}

/** The planId query parameter of an order. */
const ApiPlanId = (): MethodDecorator =>
  ApiQuery({
    name: 'planId',
    required: false,
    description:
      'Beyond ONAP: the planId POST .../plan answered; the order is refused (409, naming what changed) if the ' +
      'instance, its definition or the order and its body differ from what was planned',
    schema: { type: 'string', pattern: PLAN_ID_PATTERN.source },
  });

/** Longest override reason: it is the caller's text, kept in the history. */
const MAX_OVERRIDE = 500;

/** `?override=<reason>` (beyond ONAP): the order goes through maintenance windows that hold it, and is recorded. */
function parseOverride(value: unknown): string | null {
  const text = optionalString('override', value)?.trim();
  if (text === undefined) {
    return null;
  }
  if (text === '' || text.length > MAX_OVERRIDE) {
    throw invalid(`override: must give a reason of 1 to ${MAX_OVERRIDE} characters`);
  }
  return text;
}

/** The override query parameter of an order. */
const ApiWindowOverride = (): MethodDecorator =>
  ApiQuery({
    name: 'override',
    required: false,
    description:
      'Beyond ONAP: a reason to order through the maintenance windows that hold the order now (role approver); ' +
      "recorded in the instance's history with the caller. Without it, a held order is refused with 409 and the next opening",
    schema: { type: 'string', maxLength: MAX_OVERRIDE },
  });

const COMPOSITION_ID = 'The compositionId of the definition';
const INSTANCE_ID = 'The instanceId the creation answered';

/** What a dry run answers: the instance as the views show it. */
type PreviewView = Omit<InstancePreviewAnswer, 'automationComposition'> & { automationComposition: InstanceView };

@ApiController(TAGS.instance)
@Controller('v2/compositions/:compositionId/instances')
export class CompositionInstancesController {
  constructor(
    private readonly instantiation: InstantiationService,
    private readonly sensitive: SensitiveValues,
    private readonly control: ControlService,
    private readonly observations: ObservationService,
    private readonly approvals: ApprovalsService,
    private readonly commissioning: CommissioningService,
  ) {}

  /**
   * Gives an order to an instance: through the maintenance windows that apply to it (or refused, 409), or stored to
   * wait for approvals when a rule of the policy holds it (the answer is the same: the instance shows what waits).
   */
  private async order(order: InstanceOrder, response: Response): Promise<InstantiationAnswer | undefined> {
    const outcome = await this.approvals.order(order, principalOf(response)?.user ?? null);
    return outcome.answer;
  }

  @Get()
  @ApiOperation({ operationId: 'queryCompositionInstances', summary: 'List the instances of a composition definition' })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiQuery({ name: 'name', required: false, description: 'Instance name', schema: { type: 'string' } })
  @ApiQuery({ name: 'version', required: false, description: 'Instance version', schema: { type: 'string' } })
  @ApiPaging()
  @ApiShowSensitive()
  @ApiOkResponse({ type: AutomationCompositions, description: 'The instances that match, by name' })
  @ApiRefusals(400)
  async list(
    @Param('compositionId') compositionId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<{ automationCompositionList: WithProject<InstanceView>[] }> {
    const instances = await this.instantiation.list({
      compositionId: parseUuid('compositionId', compositionId),
      name: optionalString('name', query['name']),
      version: optionalString('version', query['version']),
      sort: 'name',
      sortOrder: 'ASC',
      ...parsePage(query),
    });
    return withProjects(instancesView(instances, this.sensitive.disclosure(parseShowSensitive(query))), (id) =>
      this.commissioning.projectOf(id),
    );
  }

  @Post()
  @ApiOperation({
    operationId: 'createCompositionInstance',
    summary: 'Create an instance; with instanceId, update it (or migrate it with compositionTargetId)',
    description: 'With ?dryRun=true (beyond ONAP), only check a creation and answer what it would store.',
  })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiPlanId()
  @ApiQuery({
    name: 'dryRun',
    required: false,
    schema: { type: 'boolean', default: false },
    description: 'true: check the creation and answer what would be stored, storing nothing',
  })
  @ApiJsonOrYamlBody(AutomationComposition, 'The instance; its compositionId must be the one of the path', {
    minimal: { summary: 'An instance of the example composition', value: INSTANCE_EXAMPLE },
  })
  @ApiResponse({
    status: 201,
    type: InstantiationResponse,
    description: 'Created; the Location header names the new instance',
    example: INSTANTIATION_RESPONSE_EXAMPLE,
  })
  @ApiOkResponse({
    description:
      'Updated (InstantiationResponse), or with dryRun the instance a creation would store (InstancePreview)',
    schema: { oneOf: [{ $ref: getSchemaPath(InstantiationResponse) }, { $ref: getSchemaPath(InstancePreview) }] },
  })
  @ApiExtraModels(InstancePreview)
  @ApiWindowOverride()
  @ApiRefusals(404, 409)
  async createOrUpdate(
    @Param('compositionId') compositionId: string,
    @Query('dryRun') dryRun: unknown,
    @Query('planId') planIdValue: unknown,
    @Query('override') override: unknown,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<InstantiationAnswer | PreviewView> {
    const pathId = parseUuid('compositionId', compositionId);
    const planId = parsePlanId(planIdValue);
    const parsed = parseInstanceBody(body);
    if (planId !== undefined && parsed.instanceId === undefined) {
      throw invalid('planId: only for an update or a migration (a body with instanceId), not a creation');
    }
    if (parseDryRun(dryRun)) {
      if (parsed.instanceId !== undefined) {
        throw invalid('dryRun: only a creation can be dry-run, and this body has an instanceId (an update)');
      }
      response.status(200);
      const preview = await this.instantiation.preview(pathId, parsed);
      return { ...preview, automationComposition: instanceView(preview.automationComposition) };
    }
    if (parsed.instanceId !== undefined) {
      const answer = await this.order(
        {
          kind: 'UPDATE',
          compositionId: pathId,
          instanceId: parsed.instanceId,
          request: { ...parsed, instanceId: parsed.instanceId },
          ...(planId === undefined ? {} : { planId }),
          override: parseOverride(override),
        },
        response,
      );
      response.status(200);
      return answer!;
    }
    const result = await this.instantiation.create(pathId, parsed);
    response.status(201).location(locationOf(request, result.instanceId));
    return result;
  }

  @Get(':instanceId')
  @ApiOperation({ operationId: 'getCompositionInstance', summary: 'Get one instance' })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiUuidParam('instanceId', INSTANCE_ID)
  @ApiShowSensitive()
  @ApiOkResponse({
    type: AutomationCompositionWithControl,
    description: 'The instance and its state; `runtimeControl` (beyond ONAP) while an operation runs',
  })
  @ApiRefusals(400, 404)
  async get(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<
    WithProject<InstanceView> & {
      runtimeControl?: ControlView;
      observedHealth?: InstanceHealthView;
      pendingApproval?: PendingApprovalView;
    }
  > {
    const disclose = this.sensitive.disclosure(parseShowSensitive(query));
    const instance = await this.instantiation.get(
      parseUuid('compositionId', compositionId),
      parseUuid('instanceId', instanceId),
    );
    // Beside ONAP's fields, which ONAP clients read alone: whether the running operation is paused or stuck, the
    // health and drift participants observed (only once one reported an observation), the order waiting for approvals.
    const runtimeControl = await this.control.controlOf(instance.instanceId);
    const observedHealth = await this.observations.ofInstance(instance.instanceId, Object.keys(instance.elements));
    const pendingApproval = await this.approvals.pendingOf(instance.instanceId);
    const project = await this.commissioning.projectOf(instance.compositionId);
    return {
      ...instanceView(instance, disclose),
      ...(project === null ? {} : { project }),
      ...(runtimeControl ? { runtimeControl } : {}),
      ...(observedHealth ? { observedHealth } : {}),
      ...(pendingApproval ? { pendingApproval: pendingApprovalView(pendingApproval) } : {}),
    };
  }

  @Put(':instanceId')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'compositionInstanceState',
    summary:
      'Order a state change (deployOrder, lockOrder or subOrder); poll the instance until it is done (`supersede`: beyond ONAP)',
  })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiUuidParam('instanceId', INSTANCE_ID)
  @ApiJsonOrYamlBody(AcInstanceStateUpdate, 'The order', {
    deploy: { summary: 'Deploy', value: { deployOrder: 'DEPLOY' } },
    undeploy: { summary: 'Undeploy', value: { deployOrder: 'UNDEPLOY' } },
    lock: { summary: 'Lock', value: { lockOrder: 'LOCK' } },
    unlock: { summary: 'Unlock', value: { lockOrder: 'UNLOCK' } },
  })
  @ApiPlanId()
  @ApiWindowOverride()
  @ApiAcceptedResponse({ description: 'Ordered; the order runs in the background' })
  @ApiRefusals(404, 409)
  async changeState(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query('planId') planId: unknown,
    @Query('override') override: unknown,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const order = validatedBody(AcInstanceStateUpdate, body);
    const plan = parsePlanId(planId);
    await this.order(
      {
        kind: 'STATE',
        compositionId: parseUuid('compositionId', compositionId),
        instanceId: parseUuid('instanceId', instanceId),
        update: {
          deployOrder: order.deployOrder ?? 'NONE',
          lockOrder: order.lockOrder ?? 'NONE',
          subOrder: order.subOrder ?? 'NONE',
        },
        supersede: order.supersede === true,
        ...(plan === undefined ? {} : { planId: plan }),
        override: parseOverride(override),
      },
      response,
    );
  }

  @Delete(':instanceId')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'deleteCompositionInstance',
    summary: 'Delete an UNDEPLOYED instance (asynchronous: DELETING, then 404)',
  })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiUuidParam('instanceId', INSTANCE_ID)
  @ApiPlanId()
  @ApiWindowOverride()
  @ApiAcceptedResponse({ type: InstantiationResponse, description: 'Deleting' })
  @ApiRefusals(400, 404, 409)
  async delete(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query('planId') planId: unknown,
    @Query('override') override: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<InstantiationAnswer> {
    const plan = parsePlanId(planId);
    const answer = await this.order(
      {
        kind: 'DELETE',
        compositionId: parseUuid('compositionId', compositionId),
        instanceId: parseUuid('instanceId', instanceId),
        ...(plan === undefined ? {} : { planId: plan }),
        override: parseOverride(override),
      },
      response,
    );
    return answer!;
  }

  @Post(':instanceId/rollback')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'rollbackCompositionInstance',
    summary: 'Roll back a failed or timed-out update or migration',
  })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiUuidParam('instanceId', INSTANCE_ID)
  @ApiAcceptedResponse({ description: 'Ordered; the rollback runs in the background' })
  @ApiRefusals(400, 404, 409)
  async rollback(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
  ): Promise<void> {
    await this.instantiation.rollback(parseUuid('compositionId', compositionId), parseUuid('instanceId', instanceId));
  }
}

@ApiController(TAGS.instance)
@Controller('v2/instances')
export class InstancesController {
  constructor(
    private readonly instantiation: InstantiationService,
    private readonly sensitive: SensitiveValues,
    private readonly commissioning: CommissioningService,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'queryCompositionInstancesByFilter',
    summary: 'List instances across definitions, with filters, sorting and paging',
  })
  @ApiQuery({ name: 'participantId', required: false, schema: { type: 'string', format: 'uuid' } })
  @ApiQuery({
    name: 'instanceIds',
    required: false,
    description: 'Comma-separated instance ids',
    schema: { type: 'string' },
  })
  @ApiQuery({
    name: 'deployState',
    required: false,
    description: `Comma-separated, each one of ${DEPLOY_STATES.join(', ')}`,
    schema: { type: 'string' },
  })
  @ApiQuery({
    name: 'stateChangeResult',
    required: false,
    description: `Comma-separated, each one of ${STATE_CHANGE_RESULTS.join(', ')}`,
    schema: { type: 'string' },
  })
  @ApiQuery({ name: 'sort', required: false, schema: { type: 'string', enum: [...INSTANCE_SORT_FIELDS] } })
  @ApiQuery({ name: 'sortOrder', required: false, schema: { type: 'string', enum: ['ASC', 'DESC'] } })
  @ApiPaging()
  @ApiShowSensitive()
  @ApiOkResponse({ type: AutomationCompositions, description: 'The instances that match' })
  @ApiRefusals(400)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ automationCompositionList: WithProject<InstanceView>[] }> {
    const sortOrder = optionalString('sortOrder', query['sortOrder'])?.toUpperCase();
    if (sortOrder !== undefined && sortOrder !== 'ASC' && sortOrder !== 'DESC') {
      throw invalid(`sortOrder: must be ASC or DESC, got "${sortOrder}"`);
    }
    const sort = parseEnumList('sort', INSTANCE_SORT_FIELDS, query['sort']);
    const instances = await this.instantiation.list({
      participantId: optionalUuid('participantId', query['participantId']),
      instanceIds: parseUuidList('instanceIds', query['instanceIds']),
      deployStates: parseEnumList('deployState', DEPLOY_STATES, query['deployState']),
      stateChangeResults: parseEnumList('stateChangeResult', STATE_CHANGE_RESULTS, query['stateChangeResult']),
      sort: sort?.[0],
      sortOrder: sortOrder,
      projects: visibleProjectsOf(response),
      ...parsePage(query),
    });
    return withProjects(instancesView(instances, this.sensitive.disclosure(parseShowSensitive(query))), (id) =>
      this.commissioning.projectOf(id),
    );
  }
}
