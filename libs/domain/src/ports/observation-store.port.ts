import type { OperationEvent, StoredEvent } from '../history/history-events';
import type { HealthState, ObservedElement } from '../observation/observation';

/** One element's observed state, with the instance it belongs to. */
export interface ElementObservationRow {
  readonly instanceId: string;
  readonly elementId: string;
  readonly observed: ObservedElement;
}

/**
 * Where the health and drift of observed elements live, apart from the instance rows: an observation never bumps an
 * instance's version nor waits for its lock, so it never makes a user's order fail with 409. Each method commits on
 * its own.
 */
export abstract class ObservationStore {
  /** What is known of these elements (absent: never observed). */
  abstract findMany(elementIds: readonly string[]): Promise<Map<string, ObservedElement>>;
  /** What is known of an instance's elements, by element id. */
  abstract ofInstance(instanceId: string): Promise<Record<string, ObservedElement>>;
  /** Writes the changed rows and appends their history events, in one transaction. */
  abstract record(rows: readonly ElementObservationRow[], events: readonly OperationEvent[]): Promise<void>;
  /** The observed elements per health state (the metrics gauge). */
  abstract countByHealth(): Promise<Record<HealthState, number>>;
  /** The HEAL and HEALING_STOPPED events of an instance at or after `since` (epoch ms), oldest first: the heals' past. */
  abstract healingSince(instanceId: string, since: number): Promise<StoredEvent[]>;
  /** Forgets the observations of an instance's elements (its elements were deleted). */
  abstract forgetInstance(instanceId: string): Promise<void>;
}
