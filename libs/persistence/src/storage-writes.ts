import type { StoreFailure } from './database-unavailable';
import { describeStoreFailure } from './database-unavailable';

/**
 * Whether the database can write: the failure (SQLSTATE class 53: disk full, out of memory, no connection slot) that
 * stopped the last write, until a write succeeds again. Readiness reads it, a metric counts the failures. An outage
 * or a silent server is not one of these: the readiness ping sees those by itself.
 */
export class StorageWrites {
  private failing: StoreFailure | null = null;
  private readonly listeners: Array<(failure: StoreFailure) => void> = [];
  private readonly recoveryListeners: Array<() => void> = [];

  /** Called with each write that failed for lack of a resource. */
  onFailure(listener: (failure: StoreFailure) => void): void {
    this.listeners.push(listener);
  }

  /** Called when a write succeeds after one failed. */
  onRecovered(listener: () => void): void {
    this.recoveryListeners.push(listener);
  }

  /** What stops writes now, or null when the last write succeeded (or none failed). */
  get current(): StoreFailure | null {
    return this.failing;
  }

  /**
   * Runs one write and remembers how it went; `wrote` tells from its result whether it wrote anything (a pass that
   * found nothing to do proves nothing about the disk).
   */
  async track<T>(write: () => Promise<T>, wrote: (result: T) => boolean = () => true): Promise<T> {
    let result: T;
    try {
      result = await write();
    } catch (error) {
      const failure = describeStoreFailure(error);
      if (failure?.sqlstate?.startsWith('53') === true) {
        this.failing = failure;
        for (const listener of this.listeners) {
          listener(failure);
        }
      }
      throw error;
    }
    if (this.failing !== null && wrote(result)) {
      this.failing = null;
      for (const listener of this.recoveryListeners) {
        listener();
      }
    }
    return result;
  }
}
