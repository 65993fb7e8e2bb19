import { ROLLOUT_INSTANCE_STATES, ROLLOUT_ON_FAILURE, ROLLOUT_ORDERS, ROLLOUT_STATES } from '@acm/domain';
import type { RolloutInstanceState, RolloutOnFailure, RolloutOrder, RolloutState } from '@acm/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type {
  RolloutBatchState,
  RolloutBatchView,
  RolloutInstanceView,
  RolloutView,
  RolloutsView,
} from '../../application/rollout-view';

const BATCH_SIZE = {
  oneOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', pattern: '^\\d{1,3}%$' },
  ],
  description: 'Instances per batch: a count (2) or a percentage of the selection ("25%", at least one instance)',
  example: 2,
};

export class RolloutStrategyDto {
  @ApiProperty(BATCH_SIZE)
  batchSize!: number | string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    default: 0,
    description: 'Failures a batch may have; one more and the batch fails (at most the batch size)',
  })
  failureThreshold?: number;

  @ApiPropertyOptional({
    enum: ROLLOUT_ON_FAILURE,
    default: 'pause',
    description: 'pause: a failed batch pauses the rollout until resume; continue: the next batch starts',
  })
  onFailure?: RolloutOnFailure;
}

/** The body of POST .../v2/rollouts. */
export class RolloutRequestDto {
  @ApiProperty({ enum: ROLLOUT_ORDERS, description: 'The order every selected instance is given' })
  order!: RolloutOrder;

  @ApiProperty({ format: 'uuid', description: 'The composition definition of the selected instances' })
  compositionId!: string;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'The instances, in the order they run; absent: every instance of the composition, by id',
  })
  instanceIds?: string[];

  @ApiProperty({ type: RolloutStrategyDto })
  strategy!: RolloutStrategyDto;
}

export class RolloutStrategyViewDto {
  @ApiProperty(BATCH_SIZE)
  batchSize!: number | string;

  @ApiProperty({ type: 'integer' })
  failureThreshold!: number;

  @ApiProperty({ enum: ROLLOUT_ON_FAILURE })
  onFailure!: RolloutOnFailure;
}

export class RolloutInstanceDto implements RolloutInstanceView {
  @ApiProperty({ format: 'uuid' })
  instanceId!: string;

  @ApiProperty({
    enum: ROLLOUT_INSTANCE_STATES,
    description: 'PENDING: not ordered yet; ORDERED: its operation runs; DONE, FAILED; REFUSED: the order was refused',
  })
  state!: RolloutInstanceState;

  @ApiProperty({ type: String, nullable: true, description: 'Why it failed or was refused' })
  reason!: string | null;
}

export class RolloutBatchDto implements RolloutBatchView {
  @ApiProperty({ type: 'integer', description: 'From 1, in the order the batches run' })
  batch!: number;

  @ApiProperty({ enum: ['PENDING', 'RUNNING', 'ENDED'] })
  state!: RolloutBatchState;

  @ApiProperty({ type: 'integer', description: 'Instances FAILED or REFUSED' })
  failures!: number;

  @ApiProperty({ description: 'Its failures went over the failure threshold' })
  overThreshold!: boolean;

  @ApiProperty({ type: [RolloutInstanceDto] })
  instances!: RolloutInstanceDto[];
}

export class RolloutCountsDto implements Record<RolloutInstanceState, number> {
  @ApiProperty({ type: 'integer' })
  PENDING!: number;

  @ApiProperty({ type: 'integer' })
  ORDERED!: number;

  @ApiProperty({ type: 'integer' })
  DONE!: number;

  @ApiProperty({ type: 'integer' })
  FAILED!: number;

  @ApiProperty({ type: 'integer' })
  REFUSED!: number;
}

export class RolloutDto implements RolloutView {
  @ApiProperty({ format: 'uuid' })
  rolloutId!: string;

  @ApiProperty({ enum: ROLLOUT_ORDERS })
  order!: RolloutOrder;

  @ApiProperty({ format: 'uuid' })
  compositionId!: string;

  @ApiProperty({ enum: ROLLOUT_STATES })
  state!: RolloutState;

  @ApiProperty({ type: String, nullable: true, description: 'Why it paused, failed or was cancelled' })
  reason!: string | null;

  @ApiProperty({ type: RolloutStrategyViewDto })
  strategy!: RolloutStrategyViewDto;

  @ApiProperty({ type: RolloutCountsDto, description: 'Instances per state' })
  counts!: RolloutCountsDto;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;

  @ApiProperty({ type: [RolloutBatchDto] })
  batches!: RolloutBatchDto[];
}

export class RolloutsDto implements RolloutsView {
  @ApiProperty({ type: [RolloutDto], description: 'Newest first' })
  rollouts!: RolloutDto[];
}
