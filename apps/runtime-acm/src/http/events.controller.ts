import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { LiveEvents } from '../live/live-events';
import { ApiController, TAGS } from './openapi';
import { parseUuidList } from './request-parsing';

/** Idle streams get a comment now and then, so proxies and browsers do not drop them. */
const KEEP_ALIVE_MS = 15_000;

/** Beyond ONAP: the history as it is written, pushed as server-sent events (the console's live view). */
@ApiController(TAGS.history)
@Controller('v2')
export class EventsController {
  constructor(private readonly live: LiveEvents) {}

  @Get('events')
  @ApiOperation({
    summary:
      'Server-sent events: each history event this replica commits (event "history", id = sequence); ' +
      'an event "ready" first, once the stream is subscribed',
  })
  @ApiQuery({ name: 'subjectId', required: false, description: 'comma-separated definition or instance ids' })
  @ApiOkResponse({
    description: 'An endless text/event-stream: "ready", then one "history" event per committed history event',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  stream(@Query() query: Record<string, unknown>, @Req() request: Request, @Res() response: Response): void {
    const subjects = parseUuidList('subjectId', query['subjectId']);
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    // The client reads its baseline over REST after "ready": nothing committed in between is missed.
    response.write('retry: 2000\nevent: ready\ndata: {}\n\n');
    const subscription = this.live.stream(subjects === undefined ? undefined : new Set(subjects)).subscribe({
      next: (event) => response.write(`id: ${event.sequence}\nevent: history\ndata: ${JSON.stringify(event)}\n\n`),
      complete: () => response.end(),
    });
    const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    request.once('close', () => {
      clearInterval(keepAlive);
      subscription.unsubscribe();
    });
  }
}
