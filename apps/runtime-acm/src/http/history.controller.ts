import { Readable } from 'node:stream';
import { Controller, Get, Param, Query, Req, StreamableFile } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiQuery, getSchemaPath } from '@nestjs/swagger';
import type { Request } from 'express';
import { HistoryService } from '../application/history.service';
import type { HistoryView as HistoryAnswer } from '../application/history.service';
import { SensitiveValues } from '../security/sensitive-values';
import { HistoryView } from './dto/history.dto';
import { ApiController, ApiRefusals, ApiShowSensitive, ApiUuidParam, TAGS } from './openapi';
import { invalid, optionalString, parseUuid } from './request-parsing';
import { parseShowSensitive } from './show-sensitive';

export const NDJSON = 'application/x-ndjson';
const HISTORY_FORMATS = ['json', 'ndjson'] as const;
type HistoryFormat = (typeof HISTORY_FORMATS)[number];

const NDJSON_LINES =
  'NDJSON, one JSON object a line: {"record":"operation",...} for each operation (oldest start first), then ' +
  '{"record":"event",...} for each event (in sequence order); the same fields as the JSON answer, streamed page by page';

/** `format=ndjson`, or an Accept that prefers application/x-ndjson, asks for the streamed export. */
export function historyFormat(query: Record<string, unknown>, request: Request): HistoryFormat {
  const format = optionalString('format', query['format'])?.toLowerCase();
  if (format !== undefined && !(HISTORY_FORMATS as readonly string[]).includes(format)) {
    throw invalid(`format: must be ${HISTORY_FORMATS.join(' or ')}, got "${format}"`);
  }
  if (format !== undefined) {
    return format as HistoryFormat;
  }
  return request.accepts(['application/json', 'application/yaml', 'text/yaml', NDJSON]) === NDJSON ? 'ndjson' : 'json';
}

/**
 * The lines as a streamed answer. The first line is read before the answer starts, so a failure to read (the
 * database unavailable) is answered with its status; a failure later cuts the connection.
 */
export async function ndjsonAnswer(lines: AsyncIterable<string>): Promise<StreamableFile> {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* all(): AsyncGenerator<string> {
    if (first.done === true) {
      return;
    }
    yield first.value;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
      yield next.value;
    }
  }
  // StreamableFile aborts a response that fails once started, rather than ending it as if it were whole.
  return new StreamableFile(Readable.from(all()), { type: `${NDJSON}; charset=utf-8` });
}

const FORMAT_QUERY = ApiQuery({
  name: 'format',
  required: false,
  description: `json (default) or ndjson: the whole history streamed as ${NDJSON} (also with Accept: ${NDJSON})`,
  schema: { type: 'string', enum: [...HISTORY_FORMATS] },
});

const HISTORY_ANSWER = ApiOkResponse({
  description: `Oldest first. JSON: the latest 1000 operations and the first 1000 events. ${NDJSON_LINES}`,
  content: {
    'application/json': { schema: { $ref: getSchemaPath(HistoryView) } },
    [NDJSON]: { schema: { type: 'string' } },
  },
});

/** Beyond ONAP: the history of each definition and instance (who ordered what, each phase, each result). */
@ApiController(TAGS.history)
@ApiExtraModels(HistoryView)
@Controller('v2/compositions/:compositionId')
export class HistoryController {
  constructor(
    private readonly history: HistoryService,
    private readonly sensitive: SensitiveValues,
  ) {}

  @Get('history')
  @ApiOperation({
    operationId: 'getCompositionDefinitionHistory',
    summary: 'Operations and events of a composition definition (prime, deprime)',
  })
  @ApiUuidParam('compositionId', 'The compositionId of the definition')
  @ApiShowSensitive()
  @FORMAT_QUERY
  @HISTORY_ANSWER
  @ApiRefusals(400, 404)
  async definition(
    @Param('compositionId') compositionId: string,
    @Query() query: Record<string, unknown>,
    @Req() request: Request,
  ): Promise<HistoryAnswer | StreamableFile> {
    const disclose = this.sensitive.disclosure(parseShowSensitive(query));
    const id = parseUuid('compositionId', compositionId);
    if (historyFormat(query, request) === 'ndjson') {
      return ndjsonAnswer(await this.history.exportOf(id, undefined, disclose));
    }
    return this.history.of(id, undefined, disclose);
  }

  @Get('instances/:instanceId/history')
  @ApiOperation({
    operationId: 'getCompositionInstanceHistory',
    summary: 'Operations and events of an instance, in order: orders, phases, element results',
  })
  @ApiUuidParam('compositionId', 'The compositionId of the definition')
  @ApiUuidParam('instanceId', 'The instanceId of the instance')
  @ApiShowSensitive()
  @FORMAT_QUERY
  @HISTORY_ANSWER
  @ApiRefusals(400, 404)
  async instance(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query() query: Record<string, unknown>,
    @Req() request: Request,
  ): Promise<HistoryAnswer | StreamableFile> {
    const disclose = this.sensitive.disclosure(parseShowSensitive(query));
    const composition = parseUuid('compositionId', compositionId);
    const instance = parseUuid('instanceId', instanceId);
    if (historyFormat(query, request) === 'ndjson') {
      return ndjsonAnswer(await this.history.exportOf(composition, instance, disclose));
    }
    return this.history.of(composition, instance, disclose);
  }
}

/** Beyond ONAP: the whole runtime's history at once, for archiving before retention prunes it. */
@ApiController(TAGS.history)
@Controller('v2')
export class RuntimeHistoryController {
  constructor(
    private readonly history: HistoryService,
    private readonly sensitive: SensitiveValues,
  ) {}

  @Get('history')
  @ApiOperation({
    operationId: 'exportRuntimeHistory',
    summary: 'The history of every definition and instance (deleted ones included, while kept), streamed as NDJSON',
  })
  @ApiShowSensitive()
  @ApiQuery({
    name: 'format',
    required: false,
    description: `ndjson, the only format of this export (${NDJSON})`,
    schema: { type: 'string', enum: ['ndjson'] },
  })
  @ApiOkResponse({
    description: `Subject by subject in id order; for each, ${NDJSON_LINES}`,
    content: { [NDJSON]: { schema: { type: 'string' } } },
  })
  @ApiRefusals(400)
  async runtime(@Query() query: Record<string, unknown>): Promise<StreamableFile> {
    const format = optionalString('format', query['format'])?.toLowerCase();
    if (format !== undefined && format !== 'ndjson') {
      throw invalid(`format: the runtime's history is exported as ndjson only, got "${format}"`);
    }
    return ndjsonAnswer(this.history.exportAll(this.sensitive.disclosure(parseShowSensitive(query))));
  }
}
