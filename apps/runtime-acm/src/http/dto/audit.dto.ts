import { ApiExtraModels, ApiProperty } from '@nestjs/swagger';
import type { AuditView as AuditAnswer } from '../../application/audit.service';
import { EVENT_VIEWS, HISTORY_EVENT_SCHEMA } from './history-events.dto';

/** Beyond ONAP: a page of the audit ledger. */
@ApiExtraModels(...EVENT_VIEWS.values())
export class AuditView implements AuditAnswer {
  @ApiProperty({
    type: 'array',
    items: HISTORY_EVENT_SCHEMA,
    description: 'Events by time, then by sequence; each with its subjectId and actor; sensitive values masked',
  })
  events!: AuditAnswer['events'];
}
