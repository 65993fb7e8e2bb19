import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { DomainError } from '@acm/domain';
import type { Rollout } from '@acm/domain';
import type { Request, Response } from 'express';
import { CommissioningService } from '../application/commissioning.service';
import { projectRefusalOf, visibleProjectsOf } from './access-guard';
import { ApprovalsService } from '../application/approvals.service';
import { RolloutService } from '../application/rollout.service';
import type { RolloutPlanResult } from '../application/rollout.service';
import { rolloutView } from '../application/rollout-view';
import type { RolloutView, RolloutsView } from '../application/rollout-view';
import { RolloutDto, RolloutHistoryDto, RolloutPlanDto, RolloutRequestDto, RolloutsDto } from './dto/rollout.dto';
import { ApiController, ApiJsonOrYamlBody, ApiRefusals, ApiUuidParam, TAGS } from './openapi';
import { invalid, isUuid, parseUuid } from './request-parsing';

const ROLLOUT_ID = 'The rolloutId the creation answered';
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

function parseDryRun(value: unknown): boolean {
  if (value === undefined || value === 'false') {
    return false;
  }
  if (value === 'true' || value === '') {
    return true;
  }
  throw invalid(`dryRun: must be true or false, got ${JSON.stringify(value)}`);
}

/** A rollout's history as REST shows it: times as ISO 8601. */
export interface RolloutHistoryView {
  readonly rolloutId: string;
  readonly events: RolloutHistoryDto['events'];
}

function parseLimit(value: unknown): number {
  if (value === undefined || value === '') {
    return DEFAULT_LIMIT;
  }
  const limit = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw invalid(`limit: must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(value)}`);
  }
  return limit;
}

/**
 * Rollouts, beyond ONAP: one order given to many instances of a composition in batches. A batch starts when every
 * instance of the one before ended; a batch with more failures than the threshold pauses the rollout or goes on.
 */
@ApiController(TAGS.rollout)
@Controller('v2/rollouts')
export class RolloutsController {
  constructor(
    private readonly rollouts: RolloutService,
    private readonly approvals: ApprovalsService,
    private readonly commissioning: CommissioningService,
  ) {}

  /** The rollout as REST shows it, a bake's time left counted at the runtime's now. */
  private view(rollout: Rollout): RolloutView {
    return rolloutView(rollout, this.rollouts.now());
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createRollout',
    summary: 'Start a rollout: one order given to the selected instances in batches',
    description:
      'The selection is resolved once and stored. 400 lists the selected instances that would refuse the order, ' +
      'with the reason (unless strategy.skipRefused); 409 names the unfinished rollout that already holds a ' +
      'selected instance. With ?dryRun=true: 200 with the batches and the refused instances, nothing written.',
  })
  @ApiQuery({
    name: 'dryRun',
    required: false,
    schema: { type: 'boolean', default: false },
    description: 'true: answer the batches and the refused instances, writing nothing',
  })
  @ApiJsonOrYamlBody(RolloutRequestDto, 'The order, the selection and the strategy', {
    deployAll: {
      summary: 'Deploy every instance of a composition, two at a time',
      value: {
        order: 'DEPLOY',
        compositionId: '709c62b3-8918-41b9-a747-d21eb79c6c20',
        strategy: { batchSize: 2, failureThreshold: 0, onFailure: 'pause' },
      },
    },
  })
  @ApiResponse({ status: 201, type: RolloutDto, description: 'Started: the rollout with its first batch ordered' })
  @ApiResponse({ status: 200, type: RolloutPlanDto, description: 'dryRun: what a creation would run' })
  @ApiRefusals(400, 409)
  async create(
    @Query('dryRun') dryRun: unknown,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RolloutView | RolloutPlanResult> {
    await this.refuseOutsideProject(body, request, response);
    if (parseDryRun(dryRun)) {
      response.status(200);
      return this.rollouts.plan(body);
    }
    await this.approvals.refuseHeldRollout(body);
    return this.view(await this.rollouts.create(body));
  }

  /**
   * A rollout is its definition's project's: its creation needs operator there (the access guard, which runs before
   * the body is read, let through a caller who is operator in some project, and words the refusal).
   */
  private async refuseOutsideProject(body: unknown, request: Request, response: Response): Promise<void> {
    const refusal = projectRefusalOf(response);
    const compositionId = (body as { compositionId?: unknown } | null)?.compositionId;
    if (refusal === undefined || typeof compositionId !== 'string' || !isUuid(compositionId)) {
      return;
    }
    const project = await this.commissioning.projectOf(compositionId.toLowerCase());
    const reason = project === null ? null : refusal(project);
    if (reason !== null) {
      throw new DomainError('FORBIDDEN', `Forbidden: ${request.method} ${request.path} ${reason}`, { compositionId });
    }
  }

  @Get()
  @ApiOperation({ operationId: 'queryRollouts', summary: 'List rollouts, newest first' })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  })
  @ApiOkResponse({ type: RolloutsDto })
  @ApiRefusals(400)
  async list(@Query('limit') limit: unknown, @Res({ passthrough: true }) response: Response): Promise<RolloutsView> {
    const rollouts = await this.rollouts.list(parseLimit(limit));
    const visible = visibleProjectsOf(response);
    const shown: Rollout[] = [];
    for (const rollout of rollouts) {
      const project = visible === undefined ? null : await this.commissioning.projectOf(rollout.compositionId);
      if (visible === undefined || (project !== null && visible.includes(project))) {
        shown.push(rollout);
      }
    }
    return { rollouts: shown.map((rollout) => this.view(rollout)) };
  }

  @Get(':rolloutId')
  @ApiOperation({ operationId: 'getRollout', summary: 'A rollout: its state, and each batch with its instances' })
  @ApiUuidParam('rolloutId', ROLLOUT_ID)
  @ApiOkResponse({ type: RolloutDto })
  @ApiRefusals(400, 404)
  async get(@Param('rolloutId') rolloutId: string): Promise<RolloutView> {
    return this.view(await this.rollouts.get(parseUuid('rolloutId', rolloutId)));
  }

  @Get(':rolloutId/history')
  @ApiOperation({
    operationId: 'getRolloutHistory',
    summary: "A rollout's own history: batches started and ended, instances ordered and ended, controls, rollbacks",
  })
  @ApiUuidParam('rolloutId', ROLLOUT_ID)
  @ApiOkResponse({ type: RolloutHistoryDto })
  @ApiRefusals(400, 404)
  async history(@Param('rolloutId') rolloutId: string): Promise<RolloutHistoryView> {
    const id = parseUuid('rolloutId', rolloutId);
    const events = await this.rollouts.history(id);
    return { rolloutId: id, events: events.map((event) => ({ ...event, at: new Date(event.at).toISOString() })) };
  }

  @Post(':rolloutId/promote')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'promoteRollout',
    summary: 'Promote a rollout whose canary batch succeeded: the next batches start',
  })
  @ApiUuidParam('rolloutId', ROLLOUT_ID)
  @ApiOkResponse({ type: RolloutDto })
  @ApiRefusals(400, 404, 409)
  async promote(@Param('rolloutId') rolloutId: string): Promise<RolloutView> {
    return this.view(await this.rollouts.control(parseUuid('rolloutId', rolloutId), { kind: 'PROMOTE' }));
  }

  @Post(':rolloutId/pause')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'pauseRollout',
    summary: 'Pause a running rollout: no batch starts; the operations already ordered go on',
  })
  @ApiUuidParam('rolloutId', ROLLOUT_ID)
  @ApiOkResponse({ type: RolloutDto })
  @ApiRefusals(400, 404, 409)
  async pause(@Param('rolloutId') rolloutId: string): Promise<RolloutView> {
    return this.view(await this.rollouts.control(parseUuid('rolloutId', rolloutId), { kind: 'PAUSE' }));
  }

  @Post(':rolloutId/resume')
  @HttpCode(200)
  @ApiOperation({ operationId: 'resumeRollout', summary: 'Resume a paused rollout: the next batch starts when due' })
  @ApiUuidParam('rolloutId', ROLLOUT_ID)
  @ApiOkResponse({ type: RolloutDto })
  @ApiRefusals(400, 404, 409)
  async resume(@Param('rolloutId') rolloutId: string): Promise<RolloutView> {
    return this.view(await this.rollouts.control(parseUuid('rolloutId', rolloutId), { kind: 'RESUME' }));
  }

  @Post(':rolloutId/cancel')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'cancelRollout',
    summary: 'Cancel a rollout: no instance is ordered after it; operations already ordered go on',
  })
  @ApiUuidParam('rolloutId', ROLLOUT_ID)
  @ApiOkResponse({ type: RolloutDto })
  @ApiRefusals(400, 404, 409)
  async cancel(@Param('rolloutId') rolloutId: string): Promise<RolloutView> {
    return this.view(await this.rollouts.control(parseUuid('rolloutId', rolloutId), { kind: 'CANCEL' }));
  }
}
