import type { FeedEvent } from '@acm/domain';
import { REFUSAL_SUBJECT } from '@acm/domain';
import { Subject } from 'rxjs';
import type { EventFeedFollower } from './event-feed-follower';
import type { PositionedEvent } from './live-events';
import { LiveEvents } from './live-events';

describe('LiveEvents', () => {
  it('streams the committed events of definitions and instances, never a refused request', () => {
    const feed = new Subject<FeedEvent>();
    const follower = {
      emitted: 0,
      live: () => feed.asObservable(),
      after: () => Promise.resolve([]),
    } as unknown as EventFeedFollower;
    const live = new LiveEvents(follower);
    const seen: PositionedEvent[] = [];
    const subscription = live.stream().subscribe((event) => seen.push(event));
    const actor = { kind: 'request', user: 'mallory', requestId: 'r-1' } as const;
    feed.next({
      position: 1,
      compositionId: null,
      sequence: 1,
      subjectId: REFUSAL_SUBJECT,
      operationId: null,
      event: 'ACCESS_REFUSED',
      detail: { status: 401, reason: 'Unauthorized', method: 'GET', path: '/', source: null, unrecorded: 0 },
      actor,
      at: 0,
    });
    feed.next({
      position: 2,
      compositionId: '709c62b3-8918-41b9-a747-d21eb79c6c22',
      sequence: 2,
      subjectId: '709c62b3-8918-41b9-a747-d21eb79c6c20',
      operationId: '709c62b3-8918-41b9-a747-d21eb79c6c21',
      event: 'ORDERED',
      detail: { order: 'DEPLOY' },
      actor,
      at: 1,
    });
    subscription.unsubscribe();
    live.beforeApplicationShutdown();
    expect(seen.map(({ position, event }) => [position, event.sequence, event.event])).toEqual([[2, 2, 'ORDERED']]);
  });

  it("streams only the events of the caller's projects when given them", () => {
    const feed = new Subject<FeedEvent>();
    const follower = {
      emitted: 0,
      live: () => feed.asObservable(),
      after: () => Promise.resolve([]),
    } as unknown as EventFeedFollower;
    const live = new LiveEvents(follower);
    const seen: PositionedEvent[] = [];
    const subscription = live.stream(undefined, undefined, ['team-a']).subscribe((event) => seen.push(event));
    const ordered = (position: number, project: string | null): FeedEvent => ({
      position,
      compositionId: '709c62b3-8918-41b9-a747-d21eb79c6c22',
      project,
      sequence: position,
      subjectId: '709c62b3-8918-41b9-a747-d21eb79c6c20',
      operationId: null,
      event: 'ORDERED',
      detail: { order: 'DEPLOY' },
      actor: { kind: 'request', user: 'alice', requestId: 'r-2' },
      at: position,
    });
    feed.next(ordered(1, 'team-b'));
    feed.next(ordered(2, 'team-a'));
    feed.next(ordered(3, null));
    subscription.unsubscribe();
    live.beforeApplicationShutdown();
    expect(seen.map(({ position }) => position)).toEqual([2]);
  });
});
