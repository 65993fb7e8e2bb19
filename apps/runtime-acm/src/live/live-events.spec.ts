import type { StoredEvent } from '@acm/domain';
import { REFUSAL_SUBJECT } from '@acm/domain';
import type { TypeOrmUnitOfWork } from '@acm/persistence';
import type { LiveEvent } from './live-events';
import { LiveEvents } from './live-events';

describe('LiveEvents', () => {
  it('streams the committed events of definitions and instances, never a refused request', () => {
    let committed: (events: readonly StoredEvent[]) => void = () => undefined;
    const unitOfWork = {
      onEventsCommitted: (listener: (events: readonly StoredEvent[]) => void) => {
        committed = listener;
      },
    } as unknown as TypeOrmUnitOfWork;
    const live = new LiveEvents(unitOfWork);
    const seen: LiveEvent[] = [];
    const subscription = live.stream().subscribe((event) => seen.push(event));
    const actor = { kind: 'request', user: 'mallory', requestId: 'r-1' } as const;
    committed([
      {
        sequence: 1,
        subjectId: REFUSAL_SUBJECT,
        operationId: null,
        event: 'ACCESS_REFUSED',
        detail: { status: 401, reason: 'Unauthorized', method: 'GET', path: '/', source: null, unrecorded: 0 },
        actor,
        at: 0,
      },
      {
        sequence: 2,
        subjectId: '709c62b3-8918-41b9-a747-d21eb79c6c20',
        operationId: '709c62b3-8918-41b9-a747-d21eb79c6c21',
        event: 'ORDERED',
        detail: { order: 'DEPLOY' },
        actor,
        at: 1,
      },
    ]);
    subscription.unsubscribe();
    live.beforeApplicationShutdown();
    expect(seen.map((event) => [event.sequence, event.event])).toEqual([[2, 'ORDERED']]);
  });
});
