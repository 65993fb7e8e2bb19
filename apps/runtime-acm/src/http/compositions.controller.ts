import { PRIME_ORDERS } from '@acm/domain';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CommissioningService } from '../application/commissioning.service';
import { DefinitionDocsService } from '../application/definition-docs.service';
import { definitionView } from '../application/views';
import { locationOf } from './location';
import { asObject, optionalOrder, optionalString, optionalUuid, parsePage, parseUuid } from './request-parsing';

@ApiTags('Automation Composition Definition')
@ApiBasicAuth()
@Controller('v2/compositions')
export class CompositionsController {
  constructor(
    private readonly commissioning: CommissioningService,
    private readonly docs: DefinitionDocsService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List composition definitions, optionally by participant, name and version' })
  async list(@Query() query: Record<string, unknown>): Promise<unknown> {
    const definitions = await this.commissioning.list({
      participantId: optionalUuid('participantId', query['participantId']),
      name: optionalString('name', query['name']),
      version: optionalString('version', query['version']),
      ...parsePage(query),
    });
    return { service_templates: definitions.map((definition) => definition.serviceTemplate) };
  }

  @Post()
  @ApiOperation({
    summary: 'Commission a TOSCA service template (JSON or YAML); with metadata.compositionId, update it',
  })
  @ApiBody({ schema: { type: 'object', description: 'TOSCA service template' } })
  @ApiResponse({ status: 201, description: 'Commissioned; Location names the new definition' })
  @ApiResponse({ status: 200, description: 'Updated' })
  async commission(@Body() body: unknown, @Req() request: Request, @Res({ passthrough: true }) response: Response) {
    const { created, response: result } = await this.commissioning.commission(body);
    if (created) {
      response.status(201).location(locationOf(request, result.compositionId));
    } else {
      response.status(200);
    }
    return result;
  }

  @Get(':compositionId')
  @ApiOperation({ summary: 'Get one composition definition' })
  async get(@Param('compositionId') compositionId: string): Promise<unknown> {
    return definitionView(await this.commissioning.get(parseUuid('compositionId', compositionId)));
  }

  @Get(':compositionId/docs')
  @ApiOperation({ summary: 'Documentation generated from the definition: Markdown, or HTML with Accept: text/html' })
  @ApiProduces('text/markdown', 'text/html')
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
  @ApiOperation({ summary: 'Prime or deprime a composition definition' })
  @ApiBody({ schema: { type: 'object', properties: { primeOrder: { type: 'string', enum: [...PRIME_ORDERS] } } } })
  async order(@Param('compositionId') compositionId: string, @Body() body: unknown): Promise<void> {
    const order = asObject('body', body);
    const primeOrder = optionalOrder('primeOrder', PRIME_ORDERS, order['primeOrder'], 'NONE');
    await this.commissioning.order(parseUuid('compositionId', compositionId), primeOrder);
  }

  @Delete(':compositionId')
  @ApiOperation({ summary: 'Delete a COMMISSIONED composition definition that no instance uses' })
  delete(@Param('compositionId') compositionId: string): Promise<unknown> {
    return this.commissioning.delete(parseUuid('compositionId', compositionId));
  }
}
