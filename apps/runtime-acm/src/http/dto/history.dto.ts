import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const OPERATION_STATES = ['RUNNING', 'COMPLETED', 'FAILED', 'SUPERSEDED'] as const;
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

/** One line of history: an order, a phase start or end, an element result, a completion, a timeout. */
export class EventView {
  @ApiProperty({ type: 'integer' })
  sequence!: number;

  @ApiProperty({ format: 'uuid' })
  subjectId!: string;

  @ApiProperty({ format: 'uuid', nullable: true })
  operationId!: string | null;

  @ApiProperty({ example: 'ORDERED' })
  event!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Sensitive values masked' })
  detail!: Record<string, unknown>;

  @ApiProperty(TIME)
  at!: string;
}

/** Beyond ONAP: the history of a definition or an instance, oldest first. */
export class HistoryView {
  @ApiProperty({ type: [OperationView] })
  operations!: OperationView[];

  @ApiProperty({ type: [EventView] })
  events!: EventView[];
}
