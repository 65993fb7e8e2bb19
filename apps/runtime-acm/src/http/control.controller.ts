import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { excerpt } from '@acm/input-guards';
import type { ControlView } from '../application/control.service';
import { ControlService } from '../application/control.service';
import { ApiController, ApiRefusals, TAGS } from './openapi';
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
 * Control of running work, beyond ONAP (issue 12): cancel, pause and resume. Each answers 202 like ONAP's
 * orders, or 409 with the current state and what is allowed when nothing runs.
 */
@ApiController(TAGS.control)
@Controller('v2/compositions/:compositionId')
export class ControlController {
  constructor(private readonly control: ControlService) {}

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
}
