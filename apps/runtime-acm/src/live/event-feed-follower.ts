import { EventFeed } from '@acm/domain';
import type { FeedEvent } from '@acm/domain';
import { TypeOrmUnitOfWork } from '@acm/persistence';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { Observable } from 'rxjs';
import { Subject } from 'rxjs';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import type { RuntimeConfig } from '../config/runtime.config';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { Database } from '../database/database';
import { DATABASE } from '../database/database';
import { CoalescedPasses } from './coalesced-passes';

/** Events read per statement while following the feed. */
export const FEED_PAGE = 500;
/** The wait before listening again after the LISTEN connection broke (the poll covers the gap). */
const RELISTEN_MS = 2_000;

/**
 * Follows the event feed for this replica: wakes on its own commits (in-process), on PostgreSQL's NOTIFY from any
 * replica's commit (a LISTEN connection of its own; the embedded database is one process, so it needs none), and on
 * a poll; each wake stamps what committed and emits what follows the replica's position, in feed order. One pass runs
 * at a time; wakes during a pass make one more pass.
 */
@Injectable()
export class EventFeedFollower implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('EventFeed');
  private readonly events = new Subject<FeedEvent>();
  private position = 0;
  private started = false;
  private stopped = false;
  private readonly passes = new CoalescedPasses(
    () => this.pass(),
    // The database is away or busy: the next wake or poll tries again from the same position.
    (error) => this.logger.debug(`Reading the event feed failed: ${error.message}`),
  );
  private poll: NodeJS.Timeout | null = null;
  private listener: Client | null = null;
  private relisten: NodeJS.Timeout | null = null;
  private schema = 'public';

  constructor(
    private readonly feed: EventFeed,
    unitOfWork: TypeOrmUnitOfWork,
    @Inject(DATABASE) private readonly database: Database,
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
  ) {
    unitOfWork.onEventsCommitted(() => this.wake());
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.feed.stamp();
    this.position = await this.feed.head();
    this.started = true;
    const [row] = await this.database.dataSource.query<Array<{ schema: string }>>(`SELECT current_schema() AS schema`);
    this.schema = row?.schema ?? 'public';
    if (!this.database.embedded) {
      this.listen();
    }
    this.poll = setInterval(() => this.wake(), this.config.eventFeedPollMs);
    this.poll.unref();
  }

  /** The events this replica reads from now on, every replica's, in feed order. */
  live(): Observable<FeedEvent> {
    return this.events.asObservable();
  }

  /** The position up to which this replica has emitted. */
  get emitted(): number {
    return this.position;
  }

  /** Reads (after stamping) what follows `position`: a resuming reader's backlog. */
  async after(position: number, limit: number): Promise<FeedEvent[]> {
    await this.feed.stamp();
    return this.feed.after(position, limit);
  }

  /** Asks for a pass now (coalesced with a running one). */
  wake(): void {
    if (this.started && !this.stopped) {
      this.passes.wake();
    }
  }

  private async pass(): Promise<void> {
    await this.feed.stamp();
    for (;;) {
      const page = await this.feed.after(this.position, FEED_PAGE);
      for (const event of page) {
        this.position = event.position;
        this.events.next(event);
      }
      if (page.length < FEED_PAGE) {
        return;
      }
    }
  }

  private listen(): void {
    const url = (this.database.dataSource.options as PostgresConnectionOptions).url;
    if (url === undefined || this.stopped) {
      return;
    }
    const client = new Client({ connectionString: url });
    this.listener = client;
    const retry = (): void => {
      if (this.listener !== client || this.stopped) {
        return;
      }
      this.listener = null;
      client.end().catch(() => undefined);
      this.relisten = setTimeout(() => this.listen(), RELISTEN_MS);
      this.relisten.unref();
    };
    client.on('notification', (message) => {
      if (message.payload === this.schema) {
        this.wake();
      }
    });
    client.on('error', retry);
    client.on('end', retry);
    client
      .connect()
      .then(() => client.query('LISTEN acm_event_feed'))
      .then(() => this.wake())
      .catch(retry);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.poll !== null) {
      clearInterval(this.poll);
    }
    if (this.relisten !== null) {
      clearTimeout(this.relisten);
    }
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.passes.stop();
    this.events.complete();
  }
}
