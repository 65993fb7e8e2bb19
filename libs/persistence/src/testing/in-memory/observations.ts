import { HEALTH_STATES, ObservationStore } from '@acm/domain';
import type { ElementObservationRow, HealthState, ObservedElement, OperationEvent, StoredEvent } from '@acm/domain';

const copy = <T>(value: T): T => structuredClone(value);

/** The observation port in memory: the twin of `TypeOrmObservationStore`; the events it recorded are in `events`. */
export class InMemoryObservationStore extends ObservationStore {
  private readonly rows = new Map<string, ElementObservationRow>();
  readonly events: OperationEvent[] = [];
  /** How many times `record` wrote something (a report that changed nothing must not). */
  writes = 0;

  override findMany(elementIds: readonly string[]): Promise<Map<string, ObservedElement>> {
    const found = new Map<string, ObservedElement>();
    for (const id of elementIds) {
      const row = this.rows.get(id);
      if (row !== undefined) {
        found.set(id, copy(row.observed));
      }
    }
    return Promise.resolve(found);
  }

  override ofInstance(instanceId: string): Promise<Record<string, ObservedElement>> {
    return Promise.resolve(
      Object.fromEntries(
        [...this.rows.values()]
          .filter((row) => row.instanceId === instanceId)
          .map((row) => [row.elementId, copy(row.observed)]),
      ),
    );
  }

  override record(rows: readonly ElementObservationRow[], events: readonly OperationEvent[]): Promise<void> {
    if (rows.length === 0 && events.length === 0) {
      return Promise.resolve();
    }
    this.writes += 1;
    for (const row of rows) {
      this.rows.set(row.elementId, copy(row));
    }
    this.events.push(...events.map(copy));
    return Promise.resolve();
  }

  override countByHealth(): Promise<Record<HealthState, number>> {
    const counts = Object.fromEntries(HEALTH_STATES.map((state) => [state, 0])) as Record<HealthState, number>;
    for (const row of this.rows.values()) {
      counts[row.observed.health.state] += 1;
    }
    return Promise.resolve(counts);
  }

  override healingSince(instanceId: string, since: number): Promise<StoredEvent[]> {
    return Promise.resolve(
      this.events
        .map((event, index) => ({ ...copy(event), sequence: index + 1 }))
        .filter(
          (event) =>
            event.subjectId === instanceId &&
            (event.event === 'HEAL' || event.event === 'HEALING_STOPPED') &&
            event.at >= since,
        ),
    );
  }

  override forgetInstance(instanceId: string): Promise<void> {
    for (const [id, row] of this.rows) {
      if (row.instanceId === instanceId) {
        this.rows.delete(id);
      }
    }
    return Promise.resolve();
  }
}
