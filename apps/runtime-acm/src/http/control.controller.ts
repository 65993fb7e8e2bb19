import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { excerpt } from '@acm/input-guards';
import type { ControlView, SignalAnswer, SignalTarget, SignalUrl } from '../application/control.service';
import { ControlService } from '../application/control.service';
import type { RuntimeConfig } from '../config/runtime.config';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import { SignalAnswerDto, SignalBodyDto, SignalUrlDto } from './dto/signal.dto';
import { ApiController, ApiJsonOrYamlBody, ApiRefusals, TAGS } from './openapi';
import { publicBaseUrl } from './public-url';
import { ApiSignedUrlLifetime, parseSignedUrlLifetime } from './signed-url-lifetime';
import { invalid, parseUuid } from './request-parsing';

function parseRollback(value: unknown): boolean {
  if (value === undefined || value === 'false') {
    return false;
  }
  if (value === 'true' || value === '') {
    return true;
  }
  throw invalid(`rollback: must be true or false, got ${excerpt(value)}`);
}

/**
 * Control of running work, beyond ONAP: cancel, pause and resume. Each answers 202 like ONAP's
 * orders, or 409 with the current state and what is allowed when nothing runs.
 */
@ApiController(TAGS.control)
@Controller('v2/compositions/:compositionId')
export class ControlController {
  constructor(
    private readonly control: ControlService,
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
  ) {}

  @Post('instances/:instanceId/cancel')
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel the running operation of an instance; ?rollback=true then reverses what it did' })
  @ApiQuery({ name: 'rollback', required: false, type: Boolean })
  @ApiResponse({ status: 202, description: 'Cancelled (and the rollback started)' })
  @ApiRefusals(400, 404, 409)
  async cancelInstance(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Query('rollback') rollback: unknown,
  ): Promise<{ instanceId: string; affectedAutomationComposition: { name: string; version: string } }> {
    const cancelled = await this.control.cancelInstance(
      parseUuid('compositionId', compositionId),
      parseUuid('instanceId', instanceId),
      parseRollback(rollback),
    );
    return {
      instanceId: cancelled.instanceId,
      affectedAutomationComposition: { name: cancelled.name, version: cancelled.version },
    };
  }

  @Post('instances/:instanceId/pause')
  @ApiAcceptedResponse({ description: 'Paused: the running operation, its control state' })
  @ApiRefusals(400, 404, 409)
  @HttpCode(202)
  @ApiOperation({ summary: 'Pause the running operation: nothing new is dispatched, its deadline stops' })
  async pause(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
  ): Promise<ControlView | null> {
    const instance = parseUuid('instanceId', instanceId);
    await this.control.pauseInstance(parseUuid('compositionId', compositionId), instance);
    return this.control.controlOf(instance);
  }

  @Post('instances/:instanceId/resume')
  @ApiAcceptedResponse({ description: 'Resumed: the running operation, its control state' })
  @ApiRefusals(400, 404, 409)
  @HttpCode(202)
  @ApiOperation({ summary: 'Resume a paused operation where it stopped' })
  async resume(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
  ): Promise<ControlView | null> {
    const instance = parseUuid('instanceId', instanceId);
    await this.control.resumeInstance(parseUuid('compositionId', compositionId), instance);
    return this.control.controlOf(instance);
  }

  @Get('instances/:instanceId/control')
  @ApiOkResponse({ description: 'The running operation: paused, resent and retried elements; empty when none runs' })
  @ApiRefusals(400, 404)
  @ApiOperation({ summary: "The running operation's control state (paused, resends, retries); null when idle" })
  async controlOf(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
  ): Promise<{ running: ControlView | null }> {
    parseUuid('compositionId', compositionId);
    return { running: await this.control.controlOf(parseUuid('instanceId', instanceId)) };
  }

  @Post('cancel')
  @ApiAcceptedResponse({ description: 'Cancelled: the prime or deprime stops' })
  @ApiRefusals(400, 404, 409)
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel a running prime or deprime of a composition definition' })
  async cancelDefinition(@Param('compositionId') compositionId: string): Promise<{ compositionId: string }> {
    const cancelled = await this.control.cancelDefinition(parseUuid('compositionId', compositionId));
    return { compositionId: cancelled.compositionId };
  }

  @Post('instances/:instanceId/elements/:elementId/signal')
  @ApiOperation({
    summary: 'Signal a wait-condition element: SUCCESS counts towards its count, FAILURE fails it; idempotent by id',
    description:
      'With HTTP Basic credentials, or without any through a signed URL (GET .../signal-url): ?token=... . ' +
      'A known id answers 200 and changes nothing.',
  })
  @ApiQuery({ name: 'token', required: false, description: 'The token of a signed URL (no Basic credentials needed)' })
  @ApiJsonOrYamlBody(SignalBodyDto, 'The signal: SUCCESS or FAILURE, an idempotency id and an optional reason', {
    approve: { summary: 'An approval', value: { status: 'SUCCESS', id: 'approval-1', reason: 'change board: ok' } },
    refuse: { summary: 'A refusal', value: { status: 'FAILURE', id: 'approval-2', reason: 'change board: no' } },
  })
  @ApiResponse({ status: 202, description: 'Counted, or the wait completed or failed', type: SignalAnswerDto })
  @ApiResponse({ status: 200, description: 'A duplicate id: nothing changed', type: SignalAnswerDto })
  @ApiRefusals(400, 403, 404, 409)
  async signal(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Param('elementId') elementId: string,
    @Query('token') token: unknown,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignalAnswer> {
    const raw = { compositionId, instanceId, elementId };
    const answer = await this.control.signal(token === undefined ? this.targetOf(raw) : raw, body, token);
    response.status(answer.effect === 'DUPLICATE' ? 200 : 202);
    return answer;
  }

  @Get('instances/:instanceId/elements/:elementId/signal-url')
  @ApiOperation({
    summary: 'A signed URL that signals this wait condition without credentials, until it expires',
    description:
      "The URL starts with PUBLIC_URL, else with the address the request arrived on; never with the request's Host.",
  })
  @ApiSignedUrlLifetime()
  @ApiOkResponse({ type: SignalUrlDto })
  @ApiRefusals(400, 404)
  async signalUrl(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Param('elementId') elementId: string,
    @Query('expiresIn') expiresIn: unknown,
    @Req() request: Request,
  ): Promise<SignalUrl> {
    const target = this.targetOf({ compositionId, instanceId, elementId });
    return this.control.signalUrl(
      target,
      parseSignedUrlLifetime(expiresIn),
      publicBaseUrl(this.config.publicUrl, request),
    );
  }

  private targetOf(raw: SignalTarget): SignalTarget {
    return {
      compositionId: parseUuid('compositionId', raw.compositionId),
      instanceId: parseUuid('instanceId', raw.instanceId),
      elementId: parseUuid('elementId', raw.elementId),
    };
  }
}
