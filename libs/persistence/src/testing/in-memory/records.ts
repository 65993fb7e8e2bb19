import type {
  EventRepository,
  OperationEvent,
  OutboxRecord,
  OutboxRepository,
  RollbackRepository,
  RollbackSnapshot,
  StoredEvent,
} from '@acm/domain';
import type { Session } from './database';
import { copy, ConstraintViolation } from './database';

export class InMemoryRollbackRepository implements RollbackRepository {
  constructor(private readonly session: Session) {}

  save(snapshot: RollbackSnapshot): Promise<void> {
    return this.session.run((tx) => {
      if (this.session.db.get(tx, 'instance', snapshot.instanceId) === null) {
        throw new ConstraintViolation(`rollback snapshot refers to a missing instance ${snapshot.instanceId}`);
      }
      this.session.db.put(tx, 'rollback', snapshot.instanceId, snapshot);
    });
  }

  find(instanceId: string): Promise<RollbackSnapshot | null> {
    return this.session.run((tx) => this.session.db.get(tx, 'rollback', instanceId));
  }
}

export class InMemoryOutboxRepository implements OutboxRepository {
  constructor(private readonly session: Session) {}

  add(records: readonly OutboxRecord[]): Promise<void> {
    return this.session.run((tx) => {
      tx.outbox.push(...records.map((record) => ({ id: this.session.db.outboxId(), ...copy(record) })));
    });
  }
}

export class InMemoryEventRepository implements EventRepository {
  constructor(private readonly session: Session) {}

  append(events: readonly OperationEvent[]): Promise<void> {
    return this.session.run((tx) => {
      // Sequences are taken at insert time, as bigserial does; rows become visible to others at commit.
      tx.events.push(...events.map((event) => ({ ...copy(event), sequence: this.session.db.eventSequence() })));
    });
  }

  list(subjectId: string, limit: number): Promise<StoredEvent[]> {
    return this.session.run((tx) =>
      [...this.session.db.events, ...tx.events]
        .filter((event) => event.subjectId === subjectId)
        .sort((a, b) => a.sequence - b.sequence)
        .slice(0, limit)
        .map(copy),
    );
  }
}
