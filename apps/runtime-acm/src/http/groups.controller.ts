import { Controller, Get, HttpCode, Param, Post, Query, Req, Inject } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiQuery } from '@nestjs/swagger';
import type { Request } from 'express';
import { excerpt } from '@acm/input-guards';
import type { GroupTarget, ScaleAnswer, ScaleUrl } from '../application/group-scaling.service';
import { GroupScalingService } from '../application/group-scaling.service';
import type { RuntimeConfig } from '../config/runtime.config';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import { ScaleAnswerDto, ScaleUrlDto } from './dto/scale.dto';
import { ApiController, ApiRefusals, TAGS } from './openapi';
import { publicBaseUrl } from './public-url';
import { ApiSignedUrlLifetime, parseSignedUrlLifetime } from './signed-url-lifetime';
import { invalid, parseUuid } from './request-parsing';

/** A group node template name as the path gives it: a non-empty name of at most 256 characters. */
function parseGroup(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > 256) {
    throw invalid(`group: must be the name of a node template with count, got ${excerpt(value)}`);
  }
  return value;
}

/**
 * Groups' scaling webhooks, beyond ONAP (Heat's ScalingPolicy `alarm_url`): a signed URL per group of an instance,
 * and the call of it, which changes the group's count by its policy as an UPDATE of the instance.
 */
@ApiController(TAGS.control)
@Controller('v2/compositions/:compositionId/instances/:instanceId/groups/:group')
export class GroupsController {
  constructor(
    private readonly scaling: GroupScalingService,
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
  ) {}

  @Get('scale-url')
  @ApiOperation({
    summary: 'A signed URL that scales this group by its policy without credentials, until it expires',
    description:
      "The URL starts with PUBLIC_URL, else with the address the request arrived on; never with the request's Host.",
  })
  @ApiSignedUrlLifetime()
  @ApiOkResponse({ type: ScaleUrlDto })
  @ApiRefusals(400, 404)
  async scaleUrl(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Param('group') group: string,
    @Query('expiresIn') expiresIn: unknown,
    @Req() request: Request,
  ): Promise<ScaleUrl> {
    return this.scaling.scaleUrl(
      this.targetOf(compositionId, instanceId, group),
      parseSignedUrlLifetime(expiresIn),
      publicBaseUrl(this.config.publicUrl, request),
    );
  }

  @Post('scale')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Scale this group by its policy (the token of its scale-url, no credentials); runs as an UPDATE',
    description:
      'Refused with 401 or 403 for a bad or expired token, 409 during the cooldown (with the seconds left) or while ' +
      'another operation runs on the instance. At a bound of the count nothing runs (effect UNCHANGED).',
  })
  @ApiQuery({ name: 'token', required: true, description: 'The token of the signed URL' })
  @ApiAcceptedResponse({ description: 'The UPDATE started, or nothing to change', type: ScaleAnswerDto })
  @ApiRefusals(400, 403, 404, 409)
  async scale(
    @Param('compositionId') compositionId: string,
    @Param('instanceId') instanceId: string,
    @Param('group') group: string,
    @Query('token') token: unknown,
    @Req() request: Request,
  ): Promise<ScaleAnswer> {
    const caller = request.socket.remoteAddress ?? 'unknown';
    return this.scaling.scale(this.targetOf(compositionId, instanceId, group), token, caller);
  }

  private targetOf(compositionId: string, instanceId: string, group: string): GroupTarget {
    return {
      compositionId: parseUuid('compositionId', compositionId),
      instanceId: parseUuid('instanceId', instanceId),
      group: parseGroup(group),
    };
  }
}
