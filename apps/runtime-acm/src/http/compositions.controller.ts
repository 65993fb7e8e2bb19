import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { DEFAULT_PROJECT, PROJECT_NAME_RULE, isProjectName } from '@acm/domain';
import type { Request, Response } from 'express';
import { CommissioningService } from '../application/commissioning.service';
import { DefinitionDocsService } from '../application/definition-docs.service';
import { definitionView } from '../application/views';
import type { DefinitionView } from '../application/views';
import {
  AcTypeStateUpdate,
  AutomationCompositionDefinition,
  CommissioningResponse,
  ToscaServiceTemplate,
  ToscaServiceTemplates,
} from './dto/composition.dto';
import { COMMISSIONING_RESPONSE_EXAMPLE, SERVICE_TEMPLATE_EXAMPLE } from './dto/examples';
import { locationOf } from './location';
import { ApiController, ApiJsonOrYamlBody, ApiPaging, ApiRefusals, ApiUuidParam, TAGS } from './openapi';
import { assertFiniteNumbers, invalid, optionalString, optionalUuid, parsePage, parseUuid } from './request-parsing';
import { visibleProjectsOf } from './access-guard';
import { validatedBody } from './validated-body';

const COMPOSITION_ID = 'The compositionId the commissioning answered';

@ApiController(TAGS.definition)
@Controller('v2/compositions')
export class CompositionsController {
  constructor(
    private readonly commissioning: CommissioningService,
    private readonly docs: DefinitionDocsService,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'queryCompositionDefinitions',
    summary: 'List composition definitions, optionally by participant, name and version',
  })
  @ApiQuery({ name: 'participantId', required: false, schema: { type: 'string', format: 'uuid' } })
  @ApiQuery({ name: 'name', required: false, description: 'Service template name', schema: { type: 'string' } })
  @ApiQuery({ name: 'version', required: false, description: 'Service template version', schema: { type: 'string' } })
  @ApiPaging()
  @ApiOkResponse({ type: ToscaServiceTemplates, description: 'The service templates that match' })
  @ApiRefusals(400)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ToscaServiceTemplates> {
    const definitions = await this.commissioning.list({
      projects: visibleProjectsOf(response),
      participantId: optionalUuid('participantId', query['participantId']),
      name: optionalString('name', query['name']),
      version: optionalString('version', query['version']),
      ...parsePage(query),
    });
    return { service_templates: definitions.map((definition) => definition.serviceTemplate) };
  }

  @Post()
  @ApiOperation({
    operationId: 'createCompositionDefinitions',
    summary: 'Commission a TOSCA service template; with metadata.compositionId, update that definition',
  })
  @ApiJsonOrYamlBody(ToscaServiceTemplate, 'The service template to commission', {
    minimal: { summary: 'One element served by the simulator participant', value: SERVICE_TEMPLATE_EXAMPLE },
  })
  @ApiResponse({
    status: 201,
    type: CommissioningResponse,
    description: 'Commissioned; the Location header names the new definition',
    example: COMMISSIONING_RESPONSE_EXAMPLE,
  })
  @ApiOkResponse({ type: CommissioningResponse, description: 'Updated (metadata.compositionId named it)' })
  @ApiQuery({
    name: 'project',
    required: false,
    description: `Beyond ONAP: the project of a new definition and its instances (${PROJECT_NAME_RULE}); default: ${DEFAULT_PROJECT}. An update names the definition's own`,
    schema: { type: 'string' },
  })
  @ApiRefusals(404)
  async commission(
    @Body() body: unknown,
    @Query() query: Record<string, unknown>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CommissioningResponse> {
    assertFiniteNumbers('', body);
    const project = optionalString('project', query['project']) ?? DEFAULT_PROJECT;
    if (!isProjectName(project)) {
      throw invalid(`project: "${project}" is not a project name (${PROJECT_NAME_RULE})`);
    }
    const { created, response: result } = await this.commissioning.commission(body, project);
    if (created) {
      response.status(201).location(locationOf(request, result.compositionId));
    } else {
      response.status(200);
    }
    return result;
  }

  @Get(':compositionId')
  @ApiOperation({ operationId: 'getCompositionDefinition', summary: 'Get one composition definition' })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiOkResponse({ type: AutomationCompositionDefinition, description: 'The definition and its state' })
  @ApiRefusals(400, 404)
  async get(@Param('compositionId') compositionId: string): Promise<DefinitionView> {
    return definitionView(await this.commissioning.get(parseUuid('compositionId', compositionId)));
  }

  @Get(':compositionId/docs')
  @ApiOperation({
    operationId: 'getCompositionDefinitionDocs',
    summary: 'Beyond ONAP: documentation generated from the definition, Markdown or (Accept: text/html) HTML',
  })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiOkResponse({
    description: 'The page',
    content: { 'text/markdown': { schema: { type: 'string' } }, 'text/html': { schema: { type: 'string' } } },
  })
  @ApiRefusals(400, 404)
  async documentation(
    @Param('compositionId') compositionId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const id = parseUuid('compositionId', compositionId);
    if (request.accepts(['text/markdown', 'text/html']) === 'text/html') {
      response.type('text/html; charset=utf-8').send(await this.docs.html(id));
      return;
    }
    response.type('text/markdown; charset=utf-8').send(await this.docs.markdown(id));
  }

  @Put(':compositionId')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'compositionDefinitionPriming',
    summary: 'Prime or deprime a composition definition; poll it until state is PRIMED or COMMISSIONED',
  })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiJsonOrYamlBody(AcTypeStateUpdate, 'The order', {
    prime: { summary: 'Prime', value: { primeOrder: 'PRIME' } },
    deprime: { summary: 'Deprime', value: { primeOrder: 'DEPRIME' } },
  })
  @ApiAcceptedResponse({ description: 'Ordered; the order runs in the background' })
  @ApiRefusals(404, 409)
  async order(@Param('compositionId') compositionId: string, @Body() body: unknown): Promise<void> {
    const { primeOrder } = validatedBody(AcTypeStateUpdate, body);
    await this.commissioning.order(parseUuid('compositionId', compositionId), primeOrder ?? 'NONE');
  }

  @Delete(':compositionId')
  @ApiOperation({
    operationId: 'deleteCompositionDefinition',
    summary: 'Delete a COMMISSIONED composition definition that no instance uses',
  })
  @ApiUuidParam('compositionId', COMPOSITION_ID)
  @ApiOkResponse({ type: CommissioningResponse, description: 'Deleted' })
  @ApiRefusals(400, 404)
  delete(@Param('compositionId') compositionId: string): Promise<CommissioningResponse> {
    return this.commissioning.delete(parseUuid('compositionId', compositionId));
  }
}
