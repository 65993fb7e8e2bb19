import { Controller, Get, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiQuery, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { visibleProjectsOf } from './access-guard';
import { AUDIT_DEFAULT_SIZE, AuditService } from '../application/audit.service';
import type { AuditView as AuditAnswer } from '../application/audit.service';
import { SensitiveValues } from '../security/sensitive-values';
import { parseAuditFilter } from './audit-query';
import { AuditView } from './dto/audit.dto';
import { NDJSON, historyFormat, ndjsonAnswer } from './history.controller';
import { ApiController, ApiPaging, ApiRefusals, ApiShowSensitive, TAGS } from './openapi';
import { parsePage } from './request-parsing';
import { parseShowSensitive } from './show-sensitive';

const TEXT = { type: 'string' } as const;

/** Beyond ONAP: the audit ledger, history events across every definition and instance, filtered. */
@ApiController(TAGS.history)
@ApiExtraModels(AuditView)
@Controller('v2')
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    private readonly sensitive: SensitiveValues,
  ) {}

  @Get('audit')
  @ApiOperation({
    operationId: 'queryAudit',
    summary: 'History events across definitions and instances, by actor, action, subject and time',
    description:
      'Events in time order, then in the order they were written. Every filter left out selects all; filters ' +
      'combine with AND. Events of deleted instances remain while history retention keeps them.',
  })
  @ApiQuery({ name: 'actor', required: false, description: 'The user (or participant id, or runtime)', schema: TEXT })
  @ApiQuery({
    name: 'action',
    required: false,
    description:
      'Comma-separated event kinds (ORDERED, FAILED, ...) or orders (DEPLOY, PRIME, ...: their ORDERED events)',
    schema: TEXT,
  })
  @ApiQuery({
    name: 'instanceId',
    required: false,
    description: 'Events of this instance',
    schema: { type: 'string', format: 'uuid' },
  })
  @ApiQuery({
    name: 'compositionId',
    required: false,
    description: 'Events of this definition and of the instances stored under it',
    schema: { type: 'string', format: 'uuid' },
  })
  @ApiQuery({
    name: 'from',
    required: false,
    description: 'ISO-8601 time, inclusive',
    schema: { type: 'string', format: 'date-time' },
  })
  @ApiQuery({
    name: 'to',
    required: false,
    description: 'ISO-8601 time, exclusive',
    schema: { type: 'string', format: 'date-time' },
  })
  @ApiPaging()
  @ApiShowSensitive()
  @ApiQuery({
    name: 'format',
    required: false,
    description: `json (default: one page, the first ${AUDIT_DEFAULT_SIZE} events without page and size) or ndjson: every matching event streamed as ${NDJSON} (also with Accept: ${NDJSON})`,
    schema: { type: 'string', enum: ['json', 'ndjson'] },
  })
  @ApiOkResponse({
    description: 'The matching events; NDJSON: one event a line, every matching event, paging ignored',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(AuditView) } },
      [NDJSON]: { schema: { type: 'string' } },
    },
  })
  @ApiRefusals(400)
  async query(
    @Query() query: Record<string, unknown>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AuditAnswer | StreamableFile> {
    const filter = { ...parseAuditFilter(query), projects: visibleProjectsOf(response) };
    const disclose = this.sensitive.disclosure(parseShowSensitive(query));
    if (historyFormat(query, request) === 'ndjson') {
      return ndjsonAnswer(this.audit.export(filter, disclose));
    }
    return this.audit.query(filter, parsePage(query), disclose);
  }
}
