import type { CompositionDefinition, Versioned } from '@acm/domain';

export interface CachedDefinition {
  readonly key: string;
  readonly value: Versioned<CompositionDefinition>;
}

/**
 * The definitions `readContext` read, keyed by the identity of the row version they were read from (`xmin`, the
 * transaction that wrote that version, and `row_version`). Every write of a definition makes a new row version with
 * another key, and `readContext` compares the key in the database in the same statement that reads the rest, so a
 * cached definition is served only when it is the stored row exactly: never stale, whatever another replica
 * changed (a deprime, a new state). It spares reading and parsing the service template of every order and batch.
 */
export class DefinitionCache {
  private readonly entries = new Map<string, CachedDefinition>();

  constructor(private readonly capacity = 256) {}

  /** The cached entries of the ids asked for, as they are now (a statement is matched against these). */
  held(compositionIds: readonly string[]): Map<string, CachedDefinition> {
    const held = new Map<string, CachedDefinition>();
    for (const id of compositionIds) {
      const entry = this.entries.get(id);
      if (entry !== undefined) {
        held.set(id, entry);
      }
    }
    return held;
  }

  set(compositionId: string, key: string, value: Versioned<CompositionDefinition>): void {
    this.entries.delete(compositionId);
    this.entries.set(compositionId, { key, value });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) {
        this.entries.delete(oldest);
      }
    }
  }
}
