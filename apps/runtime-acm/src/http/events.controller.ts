import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { RuntimeConfig } from '../config/runtime.config';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import { LiveEvents } from '../live/live-events';
import { StreamSlots } from '../live/stream-slots';
import { visibleProjectsOf } from './access-guard';
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

/** The position a reconnecting client resumes after (its Last-Event-ID header), if it sent one. */
function lastEventIdOf(request: Request): number | undefined | 'invalid' {
  const header = request.headers['last-event-id'];
  if (header === undefined || header === '') {
    return undefined;
  }
  const text = Array.isArray(header) ? header.join(',') : header;
  return /^\d{1,15}$/.test(text.trim()) ? Number(text.trim()) : 'invalid';
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
      'Server-sent events: each history event any replica commits (event "history", id = its feed position), ' +
      'in commit order; an event "ready" first, once the stream is subscribed. A client reconnecting with ' +
      'Last-Event-ID receives every event after that position first: none missed, none twice',
  })
  @ApiQuery({ name: 'subjectId', required: false, description: 'comma-separated definition or instance ids' })
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'the id of the last event received: the stream resumes after it (what EventSource sends on reconnect)',
  })
  @ApiOkResponse({
    description: 'An endless text/event-stream: "ready", then one "history" event per committed history event',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiRefusals(400, 429)
  stream(@Query() query: Record<string, unknown>, @Req() request: Request, @Res() response: Response): void {
    const subjects = parseUuidList('subjectId', query['subjectId']);
    const after = lastEventIdOf(request);
    if (after === 'invalid') {
      sendErrorDetails(response, 400, 'Last-Event-ID: must be the id of an event this stream sent (a whole number)');
      return;
    }
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
    const projects = visibleProjectsOf(response);
    const subscription = this.live
      .stream(subjects === undefined ? undefined : new Set(subjects), after, projects)
      .subscribe({
        next: ({ position, event }) =>
          response.write(`id: ${position}\nevent: history\ndata: ${JSON.stringify(event)}\n\n`),
        complete: () => response.end(),
        error: () => response.end(),
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
