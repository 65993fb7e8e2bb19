import type { StoredEvent } from '../history/history-events';

/** A committed history event with its place in the feed, and the definition it belongs to (when still known). */
export type FeedEvent = StoredEvent & {
  /** Its position in the feed: increasing in commit order, never reused; retention may leave holes. */
  readonly position: number;
  /** The definition: the subject itself for a definition's event, the instance's definition for an instance's. */
  readonly compositionId: string | null;
  /** That definition's project (when still known); absent where the feed does not say. */
  readonly project?: string | null;
  /**
   * The instance's metadata, for an event of an instance still there when the event is read (null: none, or not an
   * instance's event); absent where the feed does not say. Subscriptions filter on it.
   */
  readonly instanceMetadata?: Readonly<Record<string, unknown>> | null;
};

/**
 * Every replica's committed history events, in one order: a reader following `position > last` sees each event
 * once, none missed, whatever replica committed it (see the EventFeed migration for why).
 */
export abstract class EventFeed {
  /** Gives a position to every committed event that has none; answers how many it numbered. */
  abstract stamp(): Promise<number>;
  /** The events after `position`, in position order, at most `limit`. */
  abstract after(position: number, limit: number): Promise<FeedEvent[]>;
  /** The highest position given so far (0: none). */
  abstract head(): Promise<number>;
}
