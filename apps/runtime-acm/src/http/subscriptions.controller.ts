import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { DomainError } from '@acm/domain';
import type { Request, Response } from 'express';
import { CommissioningService } from '../application/commissioning.service';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { SubscriptionsService, subscriptionView } from '../application/subscriptions.service';
import type { SubscriptionTestView, SubscriptionView } from '../application/subscriptions.service';
import { SubscriptionDto, SubscriptionRequestDto, SubscriptionTestDto, SubscriptionsDto } from './dto/subscription.dto';
import { ApiController, ApiJsonOrYamlBody, ApiRefusals, ApiUuidParam, TAGS } from './openapi';
import { invalid, isUuid, parseUuid } from './request-parsing';
import { projectRefusalOf, visibleProjectsOf } from './access-guard';

const SUBSCRIPTION_ID = 'The subscriptionId the creation answered';
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

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
 * Notification subscriptions, beyond ONAP: webhooks told of history events (CloudEvents or Alertmanager payloads,
 * signed), delivered at least once from the event feed with retries, and dead-lettered after the last attempt.
 */
@ApiController(TAGS.notification)
@Controller('v2/subscriptions')
export class SubscriptionsController {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly commissioning: CommissioningService,
  ) {}

  /** The project of a subscription's definition; null for one that names none (or a deleted one): every project. */
  private async projectOf(compositionId: unknown): Promise<string | null> {
    return typeof compositionId === 'string' && isUuid(compositionId)
      ? this.commissioning.projectOf(compositionId.toLowerCase())
      : null;
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createSubscription',
    summary: 'Subscribe a webhook to history events: it receives those committed from now on',
  })
  @ApiJsonOrYamlBody(SubscriptionRequestDto, 'The URL, the filter, the format and the signing secret', {
    failures: {
      summary: 'Failures and timeouts of one composition, as CloudEvents, signed',
      value: {
        url: 'https://hooks.example.com/acm',
        filter: { kinds: ['FAILED', 'TIMEOUT'], compositionId: '709c62b3-8918-41b9-a747-d21eb79c6c20' },
        format: 'cloudevents',
        secret: 'a shared secret',
      },
    },
  })
  @ApiResponse({ status: 201, type: SubscriptionDto, description: 'Created (the secret is never shown)' })
  @ApiRefusals(400)
  async create(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubscriptionView> {
    // A subscription is its filter's definition's project's; one without spans projects. The access guard, which runs
    // before the body is read, let through a caller with the role in some project, and words the refusal.
    const refusal = projectRefusalOf(response);
    if (refusal !== undefined) {
      const filter = (body as { filter?: unknown } | null)?.filter;
      const project = await this.projectOf((filter as { compositionId?: unknown } | null | undefined)?.compositionId);
      const reason = refusal(project);
      if (reason !== null) {
        throw new DomainError('FORBIDDEN', `Forbidden: ${request.method} ${request.path} ${reason}`);
      }
    }
    return subscriptionView(await this.subscriptions.create(body));
  }

  @Get()
  @ApiOperation({ operationId: 'querySubscriptions', summary: 'List subscriptions, oldest first' })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  })
  @ApiOkResponse({ type: SubscriptionsDto })
  @ApiRefusals(400)
  async list(
    @Query('limit') limit: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ subscriptions: SubscriptionView[] }> {
    const stored = await this.subscriptions.list(parseLimit(limit));
    const visible = visibleProjectsOf(response);
    if (visible === undefined) {
      return { subscriptions: stored.map(subscriptionView) };
    }
    const shown: SubscriptionView[] = [];
    for (const subscription of stored) {
      const project = await this.projectOf(subscription.subscription.filter.compositionId);
      if (project !== null && visible.includes(project)) {
        shown.push(subscriptionView(subscription));
      }
    }
    return { subscriptions: shown };
  }

  @Get(':subscriptionId')
  @ApiOperation({ operationId: 'getSubscription', summary: 'A subscription and how its deliveries went' })
  @ApiUuidParam('subscriptionId', SUBSCRIPTION_ID)
  @ApiOkResponse({ type: SubscriptionDto })
  @ApiRefusals(400, 404)
  async get(@Param('subscriptionId') subscriptionId: string): Promise<SubscriptionView> {
    return subscriptionView(await this.subscriptions.get(parseUuid('subscriptionId', subscriptionId)));
  }

  @Delete(':subscriptionId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteSubscription', summary: 'Delete a subscription: nothing more is sent to it' })
  @ApiUuidParam('subscriptionId', SUBSCRIPTION_ID)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiRefusals(400, 404)
  async delete(@Param('subscriptionId') subscriptionId: string): Promise<void> {
    await this.subscriptions.delete(parseUuid('subscriptionId', subscriptionId));
  }

  @Post(':subscriptionId/test')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testSubscription',
    summary: 'Send a TEST event to the subscription now, once, and answer what the receiver did',
  })
  @ApiUuidParam('subscriptionId', SUBSCRIPTION_ID)
  @ApiOkResponse({ type: SubscriptionTestDto })
  @ApiRefusals(400, 404)
  test(@Param('subscriptionId') subscriptionId: string): Promise<SubscriptionTestView> {
    return this.subscriptions.test(parseUuid('subscriptionId', subscriptionId));
  }
}
