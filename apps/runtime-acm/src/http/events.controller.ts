import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { RuntimeConfig } from '../config/runtime.config';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import { LiveEvents } from '../live/live-events';
import { StreamSlots } from '../live/stream-slots';
import { sendErrorDetails } from './error.filter';
import { ApiController, ApiRefusals, TAGS } from './openapi';
import { parseUuidList } from './request-parsing';

/** Idle streams get a comment now and then, so proxies and browsers do not drop them. */
const KEEP_ALIVE_MS = 15_000;
/** When a refused client may try again: streams end as browsers close tabs, within seconds to minutes. */
export const STREAM_RETRY_AFTER_SECONDS = 30;

/** The client a stream counts against: the peer address (a proxy in front counts as one client). */
function clientOf(request: Request): string {
  return (request.socket.remoteAddress ?? 'unknown').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}

/** Beyond ONAP: the history as it is written, pushed as server-sent events (the console's live view). */
@ApiController(TAGS.history)
@Controller('v2')
export class EventsController {
  private readonly slots: StreamSlots;

  constructor(
    private readonly live: LiveEvents,
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
  ) {
    this.slots = new StreamSlots(config.maxEventStreams, config.maxEventStreamsPerClient);
  }

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
  @ApiRefusals(400, 429)
  stream(@Query() query: Record<string, unknown>, @Req() request: Request, @Res() response: Response): void {
    const subjects = parseUuidList('subjectId', query['subjectId']);
    const slot = this.slots.acquire(clientOf(request));
    if (!slot.granted) {
      response.setHeader('Retry-After', String(STREAM_RETRY_AFTER_SECONDS));
      const whose = slot.setting === 'MAX_EVENT_STREAMS' ? 'this runtime has' : 'this client has';
      sendErrorDetails(response, 429, `Too many event streams: ${whose} ${slot.limit} open (${slot.setting})`);
      return;
    }
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
    // The response's close, not the request's: the request closed once its (empty) body was read, before this ran.
    response.once('close', () => {
      clearInterval(keepAlive);
      subscription.unsubscribe();
      slot.release();
    });
  }
}
