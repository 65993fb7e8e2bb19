import type { OperationState } from '@acm/domain';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { HistoryView as HistoryAnswer } from '../../application/history.service';
import { EVENT_VIEWS, HISTORY_EVENT_SCHEMA } from './history-events.dto';

const OPERATION_STATES = [
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'SUPERSEDED',
  'CANCELLED',
] as const satisfies readonly OperationState[];
const TIME = { description: 'UTC', example: '2026-12-01 11:30:15.123' } as const;

/** One transition of a definition or an instance, from its order to its end. */
export class OperationView {
  @ApiProperty({ format: 'uuid' })
  operationId!: string;

  @ApiProperty({ enum: ['INSTANCE', 'DEFINITION'] })
  targetKind!: 'INSTANCE' | 'DEFINITION';

  @ApiProperty({ format: 'uuid' })
  targetId!: string;

  @ApiProperty({ example: 'DEPLOY', description: 'The order: PRIME, DEPRIME, DEPLOY, UNDEPLOY, LOCK, ...' })
  order!: string;

  @ApiProperty({ enum: OPERATION_STATES })
  state!: (typeof OPERATION_STATES)[number];

  @ApiProperty({ description: 'The deadline passed' })
  timedOut!: boolean;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The open start phase (instances)' })
  phase!: number | null;

  @ApiProperty(TIME)
  startedAt!: string;

  @ApiProperty(TIME)
  deadlineAt!: string;

  @ApiPropertyOptional(TIME)
  finishedAt?: string;

  @ApiPropertyOptional({ type: 'integer' })
  durationMs?: number;
}

/** Beyond ONAP: the history of a definition or an instance, oldest first. */
@ApiExtraModels(...EVENT_VIEWS.values())
export class HistoryView {
  @ApiProperty({ type: [OperationView] })
  operations!: OperationView[];

  @ApiProperty({
    type: 'array',
    items: HISTORY_EVENT_SCHEMA,
    description:
      'One line per event: an order, a phase start or end, an element result, a completion, a timeout, ...; ' +
      'each names who caused it (actor); sensitive values in a detail are masked',
  })
  events!: HistoryAnswer['events'];
}
