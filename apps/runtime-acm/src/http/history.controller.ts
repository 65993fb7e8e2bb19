import { Controller, Get, Param } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HistoryService } from '../application/history.service';
import { parseUuid } from './request-parsing';

/** Beyond ONAP: the history of each definition and instance (who ordered what, each phase, each result). */
@ApiTags('History')
@ApiBasicAuth()
@Controller('v2/compositions/:compositionId')
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  @Get('history')
  @ApiOperation({ summary: 'Operations and events of a composition definition (prime, deprime)' })
  definition(@Param('compositionId') compositionId: string): Promise<unknown> {
    return this.history.of(parseUuid('compositionId', compositionId));
  }

  @Get('instances/:instanceId/history')
  @ApiOperation({ summary: 'Operations and events of an instance, in order: orders, phases, element results' })
  instance(@Param('compositionId') compositionId: string, @Param('instanceId') instanceId: string): Promise<unknown> {
    return this.history.of(parseUuid('compositionId', compositionId), parseUuid('instanceId', instanceId));
  }
}
