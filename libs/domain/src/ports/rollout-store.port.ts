import type { JsonObject } from '../model';
import type { Rollout } from '../rollout/rollout';
import type { RolloutEvent } from '../rollout/rollout-history';
import type { OperationState } from './engine.port';

/** An instance's operation as a rollout judges it: its id, state and whether its deadline passed. */
export interface RolloutOperation {
  readonly operationId: string;
  readonly targetId: string;
  readonly state: OperationState;
  readonly timedOut: boolean;
}

/** What the driver keeps per ordered instance to recover after a crash (never shown to the rules). */
export interface RolloutTracking {
  /** The instance's latest operation when the rollout marked it ORDERED (null: it had none). */
  readonly baselineOperationId: string | null;
  /** The operation the rollout's order (or its rollback) started, once known. */
  readonly operationId: string | null;
  /** UPDATE: each element's properties when the instance was marked ORDERED, by element id (what a rollback restores). */
  readonly previousProperties?: Readonly<Record<string, JsonObject>>;
}

export interface StoredRollout {
  readonly rollout: Rollout;
  /** By instance id: present for every instance the rollout marked ORDERED. */
  readonly tracking: Readonly<Record<string, RolloutTracking>>;
}

/** The rollout that already holds some of the instances a new rollout selects. */
export interface RolloutConflict {
  readonly rolloutId: string;
  readonly instanceIds: readonly string[];
}

/**
 * Where rollouts live. Each method commits on its own. A rollout not finished holds its instances: a second one
 * selecting any of them is refused (`create` answers the conflict). One driver at a time holds a rollout's lease;
 * only the holder may save it, so replicas never drive one rollout twice.
 */
export abstract class RolloutStore {
  /**
   * Stores a new rollout with its first history events and claims its instances, or answers the rollout that holds
   * some of them already (writing nothing).
   */
  abstract create(stored: StoredRollout, events?: readonly RolloutEvent[]): Promise<RolloutConflict | null>;
  abstract find(rolloutId: string): Promise<StoredRollout | null>;
  /** Every rollout, newest first. */
  abstract list(limit: number): Promise<Rollout[]>;
  /** The rollouts not finished (not COMPLETED, FAILED or CANCELLED), oldest first: what a sweep drives. */
  abstract unfinished(limit: number): Promise<string[]>;
  /** The unfinished rollouts that hold any of these instances. */
  abstract holding(instanceIds: readonly string[]): Promise<string[]>;
  /**
   * Takes the rollout's lease for `driverId` until `until` (epoch ms) when nobody holds it or the holder's lease
   * ended before `now`; answers the rollout, or null when another driver holds it (or it does not exist).
   */
  abstract lease(rolloutId: string, driverId: string, now: number, until: number): Promise<StoredRollout | null>;
  /**
   * Saves the rollout and appends `events` to its history if `driverId` still holds its lease (answers false
   * otherwise, writing nothing); a finished rollout frees its instances. With `previous` (the rollout as this driver
   * last read or saved it), only the instances whose state or tracking changed since are written: a step costs what
   * its batch costs, not the fleet.
   */
  abstract save(
    stored: StoredRollout,
    driverId: string,
    events?: readonly RolloutEvent[],
    previous?: StoredRollout,
  ): Promise<boolean>;
  /** The rollout's history events, oldest first (appended by `create` and `save` with what they saved). */
  abstract history(rolloutId: string): Promise<RolloutEvent[]>;
  /** Gives the lease back (only the holder's). */
  abstract release(rolloutId: string, driverId: string): Promise<void>;
  /** The latest operation of each instance (by start), by instance id; an instance with none is absent. */
  abstract latestOperations(instanceIds: readonly string[]): Promise<Map<string, RolloutOperation>>;
  /** These operations, by id; an unknown one is absent. */
  abstract operations(operationIds: readonly string[]): Promise<Map<string, RolloutOperation>>;
}
