import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HistoryService } from '../application/history.service';
import { SensitiveValues } from '../security/sensitive-values';
import { parseUuid } from './request-parsing';
import { parseShowSensitive } from './show-sensitive';

/** Beyond ONAP: the history of each definition and instance (who ordered what, each phase, each result). */
@ApiTags('History')
@ApiBasicAuth()
@Controller('v2/compositions/:compositionId')
export class HistoryController {
  constructor(
    private readonly history: HistoryService,
    private readonly sensitive: SensitiveValues,
  ) {}

  @Get('history')
  @ApiOperation({ summary: 'Operations and events of a composition definition (prime, deprime)' })
  definition(@Param('compositionId') compositionId: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    const disclose = this.sensitive.disclosure(parseShowSensitive(query));
    return this.history.of(parseUuid('compositionId', compositionId), undefined, disclose);
  }

  @Get('instances/:instanceId/history')
  @ApiOperation({ summary: 'Operations and events of an instance, in order: orders, phases, element results' })
  instance(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<unknown> {
    const disclose = this.sensitive.disclosure(parseShowSensitive(query));
    return this.history.of(parseUuid('compositionId', compositionId), parseUuid('instanceId', instanceId), disclose);
  }
}
