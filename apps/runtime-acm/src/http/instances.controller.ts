import {
  DEPLOY_ORDERS,
  DEPLOY_STATES,
  INSTANCE_SORT_FIELDS,
  LOCK_ORDERS,
  STATE_CHANGE_RESULTS,
  SUB_ORDERS,
} from '@acm/domain';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { InstantiationService } from '../application/instantiation.service';
import { instanceView, instancesView } from '../application/views';
import { SensitiveValues } from '../security/sensitive-values';
import { parseShowSensitive } from './show-sensitive';
import { asStateUpdateBody, parseInstanceBody } from './instance-body';
import { locationOf } from './location';
import {
  invalid,
  optionalOrder,
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

@ApiTags('Automation Composition Instance')
@ApiBasicAuth()
@Controller('v2/compositions/:compositionId/instances')
export class CompositionInstancesController {
  constructor(
    private readonly instantiation: InstantiationService,
    private readonly sensitive: SensitiveValues,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the instances of a composition definition' })
  async list(@Param('compositionId') compositionId: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    const instances = await this.instantiation.list({
      compositionId: parseUuid('compositionId', compositionId),
      name: optionalString('name', query['name']),
      version: optionalString('version', query['version']),
      sort: 'name',
      sortOrder: 'ASC',
      ...parsePage(query),
    });
    return instancesView(instances, this.sensitive.disclosure(parseShowSensitive(query)));
  }

  @Post()
  @ApiOperation({ summary: 'Create an instance; with instanceId, update it; with ?dryRun=true, only validate' })
  @ApiBody({ schema: { type: 'object', description: 'AutomationComposition' } })
  @ApiResponse({ status: 201, description: 'Created; Location names the new instance' })
  @ApiResponse({ status: 200, description: 'Updated, or (dryRun) the instance a creation would store' })
  @ApiQuery({
    name: 'dryRun',
    required: false,
    type: Boolean,
    description: 'true: validate the creation and answer what would be stored, storing nothing',
  })
  async createOrUpdate(
    @Param('compositionId') compositionId: string,
    @Query('dryRun') dryRun: unknown,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<unknown> {
    const pathId = parseUuid('compositionId', compositionId);
    const parsed = parseInstanceBody(body);
    if (parseDryRun(dryRun)) {
      if (parsed.instanceId !== undefined) {
        throw invalid('dryRun: only a creation can be dry-run, and this body has an instanceId (an update)');
      }
      response.status(200);
      const preview = await this.instantiation.preview(pathId, parsed);
      return { ...preview, automationComposition: instanceView(preview.automationComposition) };
    }
    if (parsed.instanceId !== undefined) {
      response.status(200);
      return this.instantiation.update(pathId, { ...parsed, instanceId: parsed.instanceId });
    }
    const result = await this.instantiation.create(pathId, parsed);
    response.status(201).location(locationOf(request, result.instanceId));
    return result;
  }

  @Get(':instanceId')
  @ApiOperation({ summary: 'Get one instance' })
  async get(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<unknown> {
    const disclose = this.sensitive.disclosure(parseShowSensitive(query));
    return instanceView(
      await this.instantiation.get(parseUuid('compositionId', compositionId), parseUuid('instanceId', instanceId)),
      disclose,
    );
  }

  @Put(':instanceId')
  @HttpCode(202)
  @ApiOperation({ summary: 'Order a state change: deployOrder, lockOrder or subOrder' })
  @ApiBody({
    schema: {
      type: 'object',
      properties: {
        deployOrder: { type: 'string', enum: [...DEPLOY_ORDERS] },
        lockOrder: { type: 'string', enum: [...LOCK_ORDERS] },
        subOrder: { type: 'string', enum: [...SUB_ORDERS] },
        supersede: { type: 'boolean', description: 'beyond ONAP: cancel a running operation and start this order' },
      },
    },
  })
  async changeState(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Body() body: unknown,
  ): Promise<void> {
    const input = asStateUpdateBody(body);
    const problems: string[] = [];
    const read = <const T extends readonly string[]>(name: string, vocabulary: T): T[number] => {
      try {
        return optionalOrder(name, vocabulary, input[name], 'NONE');
      } catch (error) {
        problems.push(error instanceof Error ? error.message : String(error));
        return 'NONE';
      }
    };
    const update = {
      deployOrder: read('deployOrder', DEPLOY_ORDERS),
      lockOrder: read('lockOrder', LOCK_ORDERS),
      subOrder: read('subOrder', SUB_ORDERS),
    };
    const supersede = input['supersede'];
    if (supersede !== undefined && typeof supersede !== 'boolean') {
      problems.push(`supersede: must be true or false, got ${JSON.stringify(supersede)}`);
    }
    if (problems.length > 0) {
      throw invalid(problems.join('\n'));
    }
    await this.instantiation.changeState(
      parseUuid('compositionId', compositionId),
      parseUuid('instanceId', instanceId),
      update,
      supersede === true,
    );
  }

  @Delete(':instanceId')
  @HttpCode(202)
  @ApiOperation({ summary: 'Delete an UNDEPLOYED instance (asynchronous: DELETING, then gone)' })
  delete(@Param('compositionId') compositionId: string, @Param('instanceId') instanceId: string): Promise<unknown> {
    return this.instantiation.delete(parseUuid('compositionId', compositionId), parseUuid('instanceId', instanceId));
  }

  @Post(':instanceId/rollback')
  @HttpCode(202)
  @ApiOperation({ summary: 'Roll back a failed or timed-out update or migration' })
  async rollback(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
  ): Promise<void> {
    await this.instantiation.rollback(parseUuid('compositionId', compositionId), parseUuid('instanceId', instanceId));
  }
}

@ApiTags('Automation Composition Instance')
@ApiBasicAuth()
@Controller('v2/instances')
export class InstancesController {
  constructor(
    private readonly instantiation: InstantiationService,
    private readonly sensitive: SensitiveValues,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List instances across definitions, with filters, sorting and paging' })
  async list(@Query() query: Record<string, unknown>): Promise<unknown> {
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
      ...parsePage(query),
    });
    return instancesView(instances, this.sensitive.disclosure(parseShowSensitive(query)));
  }
}
