/**
 * A bounded least-recently-used map (insertion-ordered `Map` underneath): the participant remembers
 * which orders it has handled without growing forever.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new Error(`LruMap capacity must be a positive integer, got ${capacity}`);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, marked most recently used; undefined when absent or evicted. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** The value without touching its recency. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Every entry, least recently used first, without touching recency. */
  entriesInOrder(): IterableIterator<[K, V]> {
    return this.entries.entries();
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Stores the value as most recently used, evicting the least recently used beyond capacity. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) {
        break;
      }
      this.entries.delete(oldest.value);
    }
  }
}
