import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { HistoryService } from '../application/history.service';
import type { HistoryView as HistoryAnswer } from '../application/history.service';
import { SensitiveValues } from '../security/sensitive-values';
import { HistoryView } from './dto/history.dto';
import { ApiController, ApiRefusals, ApiShowSensitive, ApiUuidParam, TAGS } from './openapi';
import { parseUuid } from './request-parsing';
import { parseShowSensitive } from './show-sensitive';

/** Beyond ONAP: the history of each definition and instance (who ordered what, each phase, each result). */
@ApiController(TAGS.history)
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
  @ApiOkResponse({ type: HistoryView, description: 'Oldest first' })
  @ApiRefusals(400, 404)
  definition(
    @Param('compositionId') compositionId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<HistoryAnswer> {
    const disclose = this.sensitive.disclosure(parseShowSensitive(query));
    return this.history.of(parseUuid('compositionId', compositionId), undefined, disclose);
  }

  @Get('instances/:instanceId/history')
  @ApiOperation({
    operationId: 'getCompositionInstanceHistory',
    summary: 'Operations and events of an instance, in order: orders, phases, element results',
  })
  @ApiUuidParam('compositionId', 'The compositionId of the definition')
  @ApiUuidParam('instanceId', 'The instanceId of the instance')
  @ApiShowSensitive()
  @ApiOkResponse({ type: HistoryView, description: 'Oldest first' })
  @ApiRefusals(400, 404)
  instance(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<HistoryAnswer> {
    const disclose = this.sensitive.disclosure(parseShowSensitive(query));
    return this.history.of(parseUuid('compositionId', compositionId), parseUuid('instanceId', instanceId), disclose);
  }
}
