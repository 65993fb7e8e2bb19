import { GRAPH_FORMATS, MAX_GRAPH_DEPTH } from '@acm/tosca';
import type { GraphFormat } from '@acm/tosca';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiQuery, getSchemaPath } from '@nestjs/swagger';
import type { CompositionGraph } from '@acm/tosca';
import type { RenderedGraph } from '../application/graph.service';
import { GraphService } from '../application/graph.service';
import { invalid, parseUuid } from './request-parsing';
import { CompositionGraph as CompositionGraphDto } from './dto/graph.dto';
import { ApiController, ApiRefusals, ApiUuidParam, TAGS } from './openapi';
import { TextBody } from './text-body';

const MEDIA_TYPES = { dot: 'text/vnd.graphviz', mermaid: 'text/vnd.mermaid' } as const;

function parseFormat(value: unknown): GraphFormat {
  if (value === undefined || value === '') {
    return 'json';
  }
  const format = GRAPH_FORMATS.find((candidate) => candidate === value);
  if (format === undefined) {
    throw invalid(`format: must be one of ${GRAPH_FORMATS.join(', ')}`);
  }
  return format;
}

/** `depth`: how many levels of nested compositions an instance graph expands (0, the default, expands none). */
function parseDepth(value: unknown): number {
  if (value === undefined || value === '') {
    return 0;
  }
  const depth = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(depth) || depth > MAX_GRAPH_DEPTH) {
    throw invalid(`depth: must be an integer from 0 to ${MAX_GRAPH_DEPTH}, got ${JSON.stringify(value)}`);
  }
  return depth;
}

function answer(rendered: RenderedGraph): CompositionGraph | TextBody {
  return rendered.format === 'json' ? rendered.graph : new TextBody(MEDIA_TYPES[rendered.format], rendered.text);
}

/** Beyond ONAP: the dependency graph of a composition and of an instance (`tofu graph`). */
/** The graph's answer in each format: JSON or YAML (Accept) for json, text for dot and mermaid. */
const GRAPH_ANSWER = {
  description: 'The graph; dot and mermaid answer text of their own media types',
  content: {
    'application/json': { schema: { $ref: getSchemaPath(CompositionGraphDto) } },
    'application/yaml': { schema: { $ref: getSchemaPath(CompositionGraphDto) } },
    [MEDIA_TYPES.dot]: { schema: { type: 'string' } },
    [MEDIA_TYPES.mermaid]: { schema: { type: 'string' } },
  },
};

@ApiController(TAGS.graph)
@ApiExtraModels(CompositionGraphDto)
@Controller('v2/compositions/:compositionId')
export class GraphController {
  constructor(private readonly graphs: GraphService) {}

  @Get('graph')
  @ApiOperation({
    operationId: 'getCompositionDefinitionGraph',
    summary: 'Elements by start phase with their dependsOn edges (json, dot or mermaid)',
  })
  @ApiUuidParam('compositionId', 'The compositionId of the definition')
  @ApiQuery({ name: 'format', required: false, schema: { type: 'string', enum: [...GRAPH_FORMATS], default: 'json' } })
  @ApiOkResponse(GRAPH_ANSWER)
  @ApiRefusals(400, 404)
  async definition(
    @Param('compositionId') compositionId: string,
    @Query('format') format: unknown,
  ): Promise<CompositionGraph | TextBody> {
    return answer(await this.graphs.ofDefinition(parseUuid('compositionId', compositionId), parseFormat(format)));
  }

  @Get('instances/:instanceId/graph')
  @ApiOperation({
    operationId: 'getCompositionInstanceGraph',
    summary: 'The instance graph: each element with its current deployState/lockState',
  })
  @ApiUuidParam('compositionId', 'The compositionId of the definition')
  @ApiUuidParam('instanceId', 'The instanceId of the instance')
  @ApiQuery({ name: 'format', required: false, schema: { type: 'string', enum: [...GRAPH_FORMATS], default: 'json' } })
  @ApiQuery({
    name: 'depth',
    required: false,
    description: 'Levels of nested compositions to expand into their child instances (0: none)',
    schema: { type: 'integer', minimum: 0, maximum: MAX_GRAPH_DEPTH, default: 0 },
  })
  @ApiOkResponse(GRAPH_ANSWER)
  @ApiRefusals(400, 404)
  async instance(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query('format') format: unknown,
    @Query('depth') depth: unknown,
  ): Promise<CompositionGraph | TextBody> {
    const rendered = await this.graphs.ofInstance(
      parseUuid('compositionId', compositionId),
      parseUuid('instanceId', instanceId),
      parseFormat(format),
      parseDepth(depth),
    );
    return answer(rendered);
  }
}
