import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { ControlView } from '../application/control.service';
import { ControlService } from '../application/control.service';
import { invalid, parseUuid } from './request-parsing';

function parseRollback(value: unknown): boolean {
  if (value === undefined || value === 'false') {
    return false;
  }
  if (value === 'true' || value === '') {
    return true;
  }
  throw invalid(`rollback: must be true or false, got ${JSON.stringify(value)}`);
}

/**
 * Control of running work, beyond ONAP (issue 12): cancel, pause and resume. Each answers 202 like ONAP's
 * orders, or 409 with the current state and what is allowed when nothing runs.
 */
@ApiTags('Control of running work')
@ApiBasicAuth()
@Controller('v2/compositions/:compositionId')
export class ControlController {
  constructor(private readonly control: ControlService) {}

  @Post('instances/:instanceId/cancel')
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel the running operation of an instance; ?rollback=true then reverses what it did' })
  @ApiQuery({ name: 'rollback', required: false, type: Boolean })
  @ApiResponse({ status: 202, description: 'Cancelled (and the rollback started)' })
  @ApiResponse({ status: 409, description: 'Nothing runs: the current state and the orders allowed now' })
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
  @ApiOperation({ summary: "The running operation's control state (paused, resends, retries); null when idle" })
  async controlOf(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
  ): Promise<{ running: ControlView | null }> {
    parseUuid('compositionId', compositionId);
    return { running: await this.control.controlOf(parseUuid('instanceId', instanceId)) };
  }

  @Post('cancel')
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel a running prime or deprime of a composition definition' })
  async cancelDefinition(@Param('compositionId') compositionId: string): Promise<{ compositionId: string }> {
    const cancelled = await this.control.cancelDefinition(parseUuid('compositionId', compositionId));
    return { compositionId: cancelled.compositionId };
  }
}
