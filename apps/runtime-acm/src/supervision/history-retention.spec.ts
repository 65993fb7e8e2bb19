import { Clock, RetentionStore } from '@acm/domain';
import type { PrunedRows, RetentionCandidate } from '@acm/domain';
import { InMemoryUnitOfWork } from '@acm/persistence/testing';
import { loadRuntimeConfig } from '../config/runtime.config';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { HistoryRetention } from './history-retention';

class FixedClock extends Clock {
  constructor(private readonly at: number) {
    super();
  }

  now(): number {
    return this.at;
  }
}

/** The in-memory retention store, whose reads of candidates wait for a gate the test opens. */
class GatedStore extends RetentionStore {
  readonly reads: string[][] = [];
  private release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  constructor(private readonly inner: RetentionStore) {
    super();
  }

  open(): void {
    this.release();
  }

  subjectsAfter(after: string | null, limit: number): Promise<string[]> {
    return this.inner.subjectsAfter(after, limit);
  }

  async candidates(subjectIds: readonly string[]): Promise<RetentionCandidate[]> {
    this.reads.push([...subjectIds]);
    await this.released;
    return this.inner.candidates(subjectIds);
  }

  prune(operationIds: readonly string[]): Promise<PrunedRows> {
    return this.inner.prune(operationIds);
  }

  pruneLooseEvents(before: number, limit: number): Promise<number> {
    return this.inner.pruneLooseEvents(before, limit);
  }

  operationsPage: RetentionStore['operationsPage'] = (...args) => this.inner.operationsPage(...args);
  eventsPage: RetentionStore['eventsPage'] = (...args) => this.inner.eventsPage(...args);
}

describe('HistoryRetention', () => {
  it('runs beside the supervision pass: kick returns at once, and one prune runs at a time', async () => {
    const store = new GatedStore(new InMemoryUnitOfWork().retention());
    const retention = new HistoryRetention(loadRuntimeConfig({}), store, new FixedClock(0), new RuntimeMetrics());
    retention.kick();
    retention.kick();
    let idle = false;
    const waiting = retention.idle().then(() => (idle = true));
    // Both kicks returned while the first prune waits in the store; the second started nothing.
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    store.open();
    await waiting;
    expect(store.reads).toHaveLength(1);
  });

  it('does nothing with RETENTION_ENABLED=false', async () => {
    const store = new GatedStore(new InMemoryUnitOfWork().retention());
    const config = loadRuntimeConfig({ RETENTION_ENABLED: 'false' });
    const retention = new HistoryRetention(config, store, new FixedClock(0), new RuntimeMetrics());
    retention.kick();
    await retention.idle();
    expect(await retention.sweep()).toEqual({ operations: 0, messages: 0, answers: 0, events: 0 });
    expect(store.reads).toEqual([]);
  });
});
