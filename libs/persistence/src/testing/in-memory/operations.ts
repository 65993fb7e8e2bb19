import type { MessageAnswer, MessageRecord, Operation, OperationRepository, PhaseMessageRecord } from '@acm/domain';
import type { Database, Session } from './database';
import { ConstraintViolation, compareText } from './database';

export class InMemoryOperationRepository implements OperationRepository {
  constructor(private readonly session: Session) {}

  private get db(): Database {
    return this.session.db;
  }

  insert(operation: Operation): Promise<void> {
    return this.session.run((tx) => {
      if (this.db.get(tx, 'operation', operation.operationId) !== null) {
        throw new ConstraintViolation(`duplicate key: operation ${operation.operationId}`);
      }
      const running = this.db
        .scan(tx, 'operation')
        .some(([, row]) => row.targetId === operation.targetId && row.state === 'RUNNING');
      if (operation.state === 'RUNNING' && running) {
        throw new ConstraintViolation(`duplicate key: a running operation of ${operation.targetId} exists`);
      }
      this.db.put(tx, 'operation', operation.operationId, operation);
    });
  }

  update(operation: Operation): Promise<void> {
    return this.session.run(async (tx) => {
      await this.db.locks.acquire(`operation:${operation.operationId}`, tx);
      const current = this.db.get(tx, 'operation', operation.operationId);
      if (current === null) {
        return;
      }
      // Only the mutable columns, as the SQL UPDATE writes them.
      this.db.put(tx, 'operation', operation.operationId, {
        ...current,
        state: operation.state,
        timedOut: operation.timedOut,
        phase: operation.phase,
        deadlineAt: operation.deadlineAt,
        finishedAt: operation.finishedAt,
        control: operation.control,
      });
    });
  }

  find(operationId: string): Promise<Operation | null> {
    return this.session.run((tx) => this.db.get(tx, 'operation', operationId));
  }

  findRunning(targetId: string): Promise<Operation | null> {
    return this.session.run(
      (tx) =>
        this.db
          .scan(tx, 'operation')
          .map(([, row]) => row)
          .find((row) => row.targetId === targetId && row.state === 'RUNNING') ?? null,
    );
  }

  async findManyRunning(targetIds: readonly string[]): Promise<Map<string, Operation>> {
    const found = new Map<string, Operation>();
    for (const targetId of new Set(targetIds)) {
      const running = await this.findRunning(targetId);
      if (running !== null) {
        found.set(targetId, running);
      }
    }
    return found;
  }

  async saveMany(operations: ReadonlyArray<{ readonly operation: Operation; readonly isNew: boolean }>): Promise<void> {
    for (const { operation } of operations.filter((entry) => !entry.isNew)) {
      await this.update(operation);
    }
    for (const { operation } of operations.filter((entry) => entry.isNew)) {
      await this.insert(operation);
    }
  }

  async recordMessages(messages: readonly MessageRecord[]): Promise<void> {
    for (const { messageId, operationId, phase, elementIds } of messages) {
      await this.recordMessage(messageId, operationId, phase, elementIds);
    }
  }

  async findManyByMessage(
    messageIds: readonly string[],
  ): Promise<Map<string, { operation: Operation; phase: number | null }>> {
    const found = new Map<string, { operation: Operation; phase: number | null }>();
    for (const messageId of new Set(messageIds)) {
      const answered = await this.findByMessage(messageId);
      if (answered !== null) {
        found.set(messageId, answered);
      }
    }
    return found;
  }

  async recordAnswers(answers: readonly MessageAnswer[]): Promise<void> {
    for (const { messageId, participantId, replicaId } of answers) {
      await this.recordAnswer(messageId, participantId, replicaId);
    }
  }

  recordMessage(
    messageId: string,
    operationId: string,
    phase: number | null,
    elementIds: readonly string[] | null = null,
  ): Promise<void> {
    return this.session.run((tx) => {
      if (this.db.get(tx, 'message', messageId) !== null) {
        throw new ConstraintViolation(`duplicate key: message ${messageId}`);
      }
      if (this.db.get(tx, 'operation', operationId) === null) {
        throw new ConstraintViolation(`message ${messageId} refers to a missing operation ${operationId}`);
      }
      this.db.put(tx, 'message', messageId, {
        operationId,
        phase,
        elementIds: elementIds === null ? null : [...elementIds],
      });
    });
  }

  findByMessage(messageId: string): Promise<{ operation: Operation; phase: number | null } | null> {
    return this.session.run((tx) => {
      const message = this.db.get(tx, 'message', messageId);
      const operation = message === null ? null : this.db.get(tx, 'operation', message.operationId);
      return message === null || operation === null ? null : { operation, phase: message.phase };
    });
  }

  recordAnswer(messageId: string, participantId: string, replicaId: string): Promise<void> {
    return this.session.run((tx) => {
      if (this.db.get(tx, 'message', messageId) === null) {
        throw new ConstraintViolation(`answer refers to a missing message ${messageId}`);
      }
      // One row per (message, participant, replica); a repeated answer changes nothing (ON CONFLICT DO NOTHING).
      this.db.put(tx, 'answer', `${messageId}|${participantId}|${replicaId}`, { messageId, participantId, replicaId });
    });
  }

  phaseMessages(operationId: string, phase: number | null): Promise<PhaseMessageRecord[]> {
    return this.session.run((tx) => {
      const answers = this.db.scan(tx, 'answer').map(([, row]) => row);
      return this.db
        .scan(tx, 'message')
        .filter(([, row]) => row.operationId === operationId && row.phase === phase)
        .map(([messageId, row]) => ({
          messageId,
          elementIds: row.elementIds,
          answeredBy: answers
            .filter((answer) => answer.messageId === messageId)
            .map(({ participantId, replicaId }) => ({ participantId, replicaId })),
        }));
    });
  }

  workers(replicaIds: readonly string[]): Promise<Set<string>> {
    return this.session.run((tx) => {
      const wanted = new Set(replicaIds);
      return new Set(
        this.db
          .scan(tx, 'answer')
          .map(([, row]) => row.replicaId)
          .filter((replicaId) => wanted.has(replicaId)),
      );
    });
  }

  recordProbe(participantId: string, at: number): Promise<void> {
    return this.session.run(async (tx) => {
      await this.db.locks.acquire(`probe:${participantId}`, tx);
      const current = this.db.get(tx, 'probe', participantId);
      this.db.put(tx, 'probe', participantId, { participantId, probedAt: Math.max(current?.probedAt ?? at, at) });
    });
  }

  takeProbes(before: number): Promise<Array<{ participantId: string; probedAt: number }>> {
    return this.session.run((tx) => {
      const taken = this.db
        .scan(tx, 'probe')
        .map(([, row]) => row)
        .filter((row) => row.probedAt < before);
      for (const probe of taken) {
        this.db.remove(tx, 'probe', probe.participantId);
      }
      return taken.map(({ participantId, probedAt }) => ({ participantId, probedAt }));
    });
  }

  findOverdue(now: number, limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter(
          (row) => row.state === 'RUNNING' && !row.timedOut && row.deadlineAt < now && row.control.pausedAt === null,
        )
        .sort((a, b) => a.deadlineAt - b.deadlineAt)
        .slice(0, limit),
    );
  }

  listRunning(limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter((row) => row.state === 'RUNNING')
        .sort((a, b) => a.control.progressAt - b.control.progressAt || (a.operationId < b.operationId ? -1 : 1))
        .slice(0, limit),
    );
  }

  listDue(limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter((row) => row.state === 'RUNNING' && row.control.dueAt !== null)
        .sort((a, b) => a.control.dueAt! - b.control.dueAt! || compareText(a.operationId, b.operationId))
        .slice(0, limit),
    );
  }

  lockSlots(): Promise<void> {
    return this.session.run((tx) => this.db.locks.acquire('slots', tx));
  }

  slotsInUse(): Promise<number> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .filter(([, row]) => row.state === 'RUNNING')
        .reduce((sum, [, row]) => sum + row.control.inFlight, 0),
    );
  }

  listSlotWaiting(limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter((row) => row.state === 'RUNNING' && row.control.slotWait !== null && row.control.pausedAt === null)
        .sort((a, b) => a.startedAt - b.startedAt || compareText(a.operationId, b.operationId))
        .slice(0, limit),
    );
  }

  history(targetId: string, limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter((row) => row.targetId === targetId)
        .sort((a, b) => b.startedAt - a.startedAt)
        .slice(0, limit),
    );
  }
}
