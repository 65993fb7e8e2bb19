import { Clock, CronCalendar, openedAt } from '@acm/domain';
import type { MaintenanceWindow } from '@acm/domain';
import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { RolloutService } from '../application/rollout.service';
import { WindowsService, isoOf } from '../application/windows.service';
import type { WindowView } from '../application/windows.service';
import { WindowDto, WindowRequestDto, WindowsDto } from './dto/window.dto';
import { ApiController, ApiJsonOrYamlBody, ApiRefusals, ApiUuidParam, TAGS } from './openapi';
import { parseUuid } from './request-parsing';

const WINDOW_ID = 'The windowId the creation answered';

/**
 * Maintenance windows, beyond ONAP: when orders may change instances. Reading needs the viewer role, creating and
 * deleting the admin role (the access guard's defaults for GET and for other methods).
 */
@ApiController(TAGS.window)
@Controller('v2/windows')
export class WindowsController {
  constructor(
    private readonly windows: WindowsService,
    private readonly calendar: CronCalendar,
    private readonly clock: Clock,
    private readonly rollouts: RolloutService,
  ) {}

  private view(window: MaintenanceWindow): WindowView {
    const now = this.clock.now();
    return {
      windowId: window.windowId,
      name: window.name,
      cron: window.cron,
      durationSeconds: window.durationMs / 1000,
      timeZone: window.timeZone,
      kind: window.kind,
      outside: window.outside,
      scope: window.scope,
      createdAt: new Date(window.createdAt).toISOString(),
      openNow: openedAt(window, now, this.calendar) !== null,
      nextStart: isoOf(this.calendar.nextStart(window.cron, window.timeZone, now + 1)),
    };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createWindow',
    summary: 'Create a maintenance window',
    description:
      "400 names the field: a cron expression that does not parse (with the cron library's reason), an unknown " +
      'time zone, a duration out of range, a name already taken.',
  })
  @ApiJsonOrYamlBody(WindowRequestDto, 'The window', {
    weekendNights: {
      summary: 'Orders to prod instances only on weekend nights, Paris time',
      value: {
        name: 'weekend-nights',
        cron: '0 22 * * SAT,SUN',
        duration: '4h',
        timeZone: 'Europe/Paris',
        kind: 'allow',
        outside: 'wait',
        scope: { metadata: { site: 'prod' } },
      },
    },
  })
  @ApiResponse({ status: 201, type: WindowDto, description: 'Created' })
  @ApiRefusals(400)
  async create(@Body() body: unknown): Promise<WindowView> {
    const window = await this.windows.create(body);
    this.rollouts.windowsChanged();
    return this.view(window);
  }

  @Get()
  @ApiOperation({ operationId: 'queryWindows', summary: 'List the maintenance windows, oldest first' })
  @ApiOkResponse({ type: WindowsDto })
  async list(): Promise<{ windows: WindowView[] }> {
    return { windows: (await this.windows.list()).map((window) => this.view(window)) };
  }

  @Get(':windowId')
  @ApiOperation({ operationId: 'getWindow', summary: 'A maintenance window, whether it is open now, its next start' })
  @ApiUuidParam('windowId', WINDOW_ID)
  @ApiOkResponse({ type: WindowDto })
  @ApiRefusals(400, 404)
  async get(@Param('windowId') windowId: string): Promise<WindowView> {
    return this.view(await this.windows.get(parseUuid('windowId', windowId)));
  }

  @Delete(':windowId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteWindow', summary: 'Delete a maintenance window' })
  @ApiUuidParam('windowId', WINDOW_ID)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiRefusals(400, 404)
  async delete(@Param('windowId') windowId: string): Promise<void> {
    await this.windows.delete(parseUuid('windowId', windowId));
    this.rollouts.windowsChanged();
  }
}
