import {
  DEPLOY_STATES,
  STATE_CHANGE_RESULTS,
  ROLLOUT_EVENT_KINDS,
  ROLLOUT_INSTANCE_STATES,
  ROLLOUT_ON_FAILURE,
  ROLLOUT_ORDERS,
  ROLLOUT_STATES,
} from '@acm/domain';
import type {
  RolloutActor,
  RolloutEvent,
  RolloutEventKind,
  RolloutInstanceState,
  RolloutOnFailure,
  RolloutOrder,
  RolloutState,
} from '@acm/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type {
  RolloutBatchState,
  RolloutBatchView,
  RolloutInstanceView,
  RolloutView,
  RolloutsView,
} from '../../application/rollout-view';
import type { RolloutPlanResult } from '../../application/rollout.service';

const THRESHOLD = {
  oneOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^\\d{1,3}%$' },
  ],
};

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
    minimum: 1,
    description: 'Instances with an operation in flight at once, over the rollout; absent: a whole batch at once',
  })
  maxInFlight?: number;

  @ApiPropertyOptional({
    ...THRESHOLD,
    default: 0,
    description:
      'Failures a batch may have, a count (at most the batch size) or a percentage of the batch; one more and the batch fails',
  })
  failureThreshold?: number | string;

  @ApiPropertyOptional({
    ...THRESHOLD,
    description: 'Failures the whole rollout may have, a count or a percentage of the selection; one more and it stops',
  })
  totalFailureThreshold?: number | string;

  @ApiPropertyOptional({
    enum: ROLLOUT_ON_FAILURE,
    default: 'pause',
    description:
      'pause: a failed batch pauses the rollout until resume; continue: the next batch starts; rollback: the ' +
      'completed instances of the failed batch get the reverse order, and the rollout ends FAILED',
  })
  onFailure?: RolloutOnFailure;

  @ApiPropertyOptional({
    default: false,
    description: 'With onFailure rollback: also roll back the batches that succeeded, newest first',
  })
  rollbackAll?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'Instances of a first batch that must succeed and then waits for POST .../promote',
  })
  canary?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 86_400_000,
    default: 0,
    description: 'Milliseconds between the end of a batch and the start of the next',
  })
  pauseBetweenBatches?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 86_400,
    default: 0,
    description:
      'Seconds a batch bakes after its instances ended: an instance found unhealthy meanwhile (an element observed ' +
      'Degraded or Missing after its operation ended, or a health gate that no longer holds) fails the batch',
  })
  bakeTime?: number;

  @ApiPropertyOptional({
    description: "A key of the instances' metadata: batches never mix its values and run in batchOrder",
    example: 'site',
  })
  batchBy?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'With batchBy: its values in the order they run; an instance with another value is refused',
    example: ['dev', 'prod'],
  })
  batchOrder?: string[];

  @ApiPropertyOptional({
    default: false,
    description: 'Start without the selected instances that refuse the order (listed in refused)',
  })
  skipRefused?: boolean;
}

export class RolloutUpdateDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: true },
    description: 'By element definition name: the properties merged into each such element of every instance',
    example: { 'onap.policy.clamp.ac.element.Sim_StarterAutomationCompositionElement': { baseUrl: 'http://x' } },
  })
  elements!: Record<string, Record<string, unknown>>;
}

/** The body of POST .../v2/rollouts. */
export class RolloutFilterDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Instances with an element served by this participant' })
  participantId?: string;

  @ApiPropertyOptional({ type: [String], enum: DEPLOY_STATES, description: 'Instances in one of these deploy states' })
  deployStates?: string[];

  @ApiPropertyOptional({
    type: [String],
    enum: STATE_CHANGE_RESULTS,
    description: 'Instances with one of these results',
  })
  stateChangeResults?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    description: 'Instances whose metadata has each key with this value',
    example: { site: 'prod' },
  })
  metadata?: Record<string, string | number | boolean>;
}

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

  @ApiPropertyOptional({
    type: RolloutFilterDto,
    description:
      'Narrows the selection (instanceIds, or every instance of the composition) with the filters of GET /v2/instances ' +
      'and metadata values; resolved once, at creation',
  })
  filter?: RolloutFilterDto;

  @ApiPropertyOptional({ format: 'uuid', description: 'MIGRATE: the composition the instances migrate to' })
  compositionTargetId?: string;

  @ApiPropertyOptional({ type: RolloutUpdateDto, description: 'UPDATE: the property patch' })
  update?: RolloutUpdateDto;

  @ApiProperty({ type: RolloutStrategyDto })
  strategy!: RolloutStrategyDto;
}

export class RolloutStrategyViewDto {
  @ApiProperty(BATCH_SIZE)
  batchSize!: number | string;

  @ApiProperty({ type: 'integer', nullable: true })
  maxInFlight!: number | null;

  @ApiProperty(THRESHOLD)
  failureThreshold!: number | string;

  @ApiProperty({ ...THRESHOLD, nullable: true })
  totalFailureThreshold!: number | string | null;

  @ApiProperty({ enum: ROLLOUT_ON_FAILURE })
  onFailure!: RolloutOnFailure;

  @ApiProperty()
  rollbackAll!: boolean;

  @ApiProperty({ type: 'integer', nullable: true })
  canary!: number | null;

  @ApiProperty({ type: 'integer' })
  pauseBetweenBatches!: number;

  @ApiProperty({ type: 'integer', description: 'Seconds each batch bakes after its instances ended' })
  bakeTime!: number;

  @ApiProperty({ type: String, nullable: true })
  batchBy!: string | null;

  @ApiProperty({ type: [String] })
  batchOrder!: string[];

  @ApiProperty()
  skipRefused!: boolean;
}

export class RolloutRefusedDto {
  @ApiProperty({ format: 'uuid' })
  instanceId!: string;

  @ApiProperty({ description: 'Why the instance refuses the order' })
  reason!: string;
}

export class RolloutInstanceDto implements RolloutInstanceView {
  @ApiProperty({ format: 'uuid' })
  instanceId!: string;

  @ApiProperty({
    enum: ROLLOUT_INSTANCE_STATES,
    description:
      'PENDING: not ordered yet; ORDERED: its operation runs; DONE, FAILED; REFUSED: the order was refused; ' +
      'ROLLING_BACK: its rollback runs; ROLLED_BACK, ROLLBACK_FAILED; ' +
      'UNHEALTHY: done, then found unhealthy while its batch baked (a failure of the batch)',
  })
  state!: RolloutInstanceState;

  @ApiProperty({ type: String, nullable: true, description: 'Why it failed or was refused' })
  reason!: string | null;
}

export class RolloutBatchDto implements RolloutBatchView {
  @ApiProperty({ type: 'integer', description: 'From 1, in the order the batches run' })
  batch!: number;

  @ApiProperty({
    enum: ['PENDING', 'RUNNING', 'BAKING', 'ENDED'],
    description: 'BAKING: every instance ended; the batch must stay healthy until bakingUntil',
  })
  state!: RolloutBatchState;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'While the batch bakes: when its bake ends',
  })
  bakingUntil!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'While the batch bakes: the milliseconds of its bake left when the rollout was read',
  })
  bakeRemainingMs!: number | null;

  @ApiProperty({ type: 'integer', description: 'Instances FAILED, REFUSED or UNHEALTHY' })
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

  @ApiProperty({ type: 'integer' })
  ROLLING_BACK!: number;

  @ApiProperty({ type: 'integer' })
  ROLLED_BACK!: number;

  @ApiProperty({ type: 'integer' })
  ROLLBACK_FAILED!: number;
  @ApiProperty({ type: 'integer' })
  UNHEALTHY!: number;
}

export class RolloutWindowWaitDto {
  @ApiProperty({ type: [String], description: 'The windows holding the next batch' })
  windows!: string[];

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Their next opening; null: none within a year (looked at again hourly and when windows change)',
  })
  until!: string | null;

  @ApiProperty({ example: 'waiting for window "weekend-nights" until 2026-12-12T21:00:00.000Z' })
  message!: string;
}

export class RolloutPlanWindowsDto {
  @ApiProperty({ type: [String], description: 'The names of the windows whose scope covers a selected instance' })
  applying!: string[];

  @ApiProperty({ description: 'Whether they let a batch start now' })
  openNow!: boolean;

  @ApiProperty({ type: [String], description: 'The windows that hold it now; empty when open' })
  heldBy!: string[];

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When a batch may start: now when open, else the next opening; null: none within a year',
  })
  nextOpening!: string | null;
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

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  compositionTargetId!: string | null;

  @ApiProperty({ type: RolloutUpdateDto, nullable: true })
  update!: RolloutUpdateDto | null;

  @ApiProperty({ type: RolloutStrategyViewDto })
  strategy!: RolloutStrategyViewDto;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the next batch starts, while a pause between batches runs',
  })
  nextBatchAt!: string | null;

  @ApiProperty({
    type: RolloutWindowWaitDto,
    nullable: true,
    description: 'Maintenance windows holding the next batch; null while none holds it',
  })
  waitingFor!: RolloutWindowWaitDto | null;

  @ApiProperty({ type: [RolloutRefusedDto], description: 'Selected instances left out (skipRefused)' })
  refused!: RolloutRefusedDto[];

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

export class RolloutPlanBatchDto {
  @ApiProperty({ type: 'integer', description: 'From 1, in the order the batches would run' })
  batch!: number;

  @ApiProperty({ type: [String], format: 'uuid' })
  instanceIds!: string[];
}

export class RolloutPlanDto implements RolloutPlanResult {
  @ApiProperty({ enum: ROLLOUT_ORDERS })
  order!: RolloutOrder;

  @ApiProperty({ format: 'uuid' })
  compositionId!: string;

  @ApiProperty({ type: [RolloutPlanBatchDto] })
  batches!: RolloutPlanBatchDto[];

  @ApiProperty({ type: [RolloutRefusedDto], description: 'Selected instances that refuse the order, with the reason' })
  refused!: RolloutRefusedDto[];

  @ApiProperty({ type: [String], format: 'uuid', description: 'Unfinished rollouts holding selected instances (409)' })
  heldBy!: string[];

  @ApiProperty({ description: 'Whether a creation would start (no refused instance, or skipRefused)' })
  wouldStart!: boolean;

  @ApiProperty({ type: RolloutPlanWindowsDto, description: 'The maintenance windows that apply to the selection' })
  windows!: RolloutPlanWindowsDto;
}

export class RolloutEventDto implements Omit<RolloutEvent, 'at' | 'actor'> {
  @ApiProperty({ format: 'date-time' })
  at!: string;

  @ApiProperty({ enum: ROLLOUT_EVENT_KINDS })
  kind!: RolloutEventKind;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The batch, from 1' })
  batch!: number | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  instanceId!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "STATE_CHANGED: the rollout's new state; INSTANCE_ENDED, ROLLBACK_ENDED: the instance's",
  })
  state!: RolloutState | RolloutInstanceState | null;

  @ApiProperty({ type: String, nullable: true })
  reason!: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "{kind: 'request', user, requestId} or {kind: 'runtime', rule: 'rollout'}",
  })
  actor!: RolloutActor;
}

export class RolloutHistoryDto {
  @ApiProperty({ format: 'uuid' })
  rolloutId!: string;

  @ApiProperty({ type: [RolloutEventDto], description: 'Oldest first' })
  events!: RolloutEventDto[];
}
