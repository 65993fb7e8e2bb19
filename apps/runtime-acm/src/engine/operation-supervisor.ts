import type {
  AutomationComposition,
  CompositionDefinition,
  DefinitionInput,
  InstanceInput,
  InstanceOperation,
  LostReplicas,
  Operation,
  OperationSession,
  ParticipantReplica,
  SupervisionQueries,
  Versioned,
} from '@acm/domain';
import {
  Clock,
  OperationSessions,
  deadlineDueAt,
  hasUnfinishedWorkOf,
  isOverdue,
  isWatched,
  needsSupervision,
  openPhaseMessagesOf,
  silentAfterProbe,
  supervisionMemoryOf,
} from '@acm/domain';
import { Injectable } from '@nestjs/common';
import { OperationSteps } from './operation-steps';
import { asInstanceOperation } from './running-operation';

/** A supervision pass locks nothing up front: it locks each target it decides, in turn, as it comes to it. */
const NOTHING_UP_FRONT = { instanceIds: [], messageIds: [] } as const;

/**
 * The engine's shell for what no participant answer drives: deadlines, resends and retries that fall due, work a
 * lost replica or a lost broker took with it. Each pass decides under the target's lock, as an ACK does, so several
 * replicas may run passes at once and only one acts.
 */
@Injectable()
export class OperationSupervisor {
  constructor(
    private readonly sessions: OperationSessions,
    private readonly clock: Clock,
    private readonly steps: OperationSteps,
  ) {}

  /**
   * Flags operations past their deadline as TIMEOUT. Each target is locked before its operation, in the order an
   * ACK takes them, so a timeout never deadlocks with an ACK; the operation is read again under that lock, so of
   * several replicas only one flags it.
   */
  async timeOutOverdue(limit = 100): Promise<number> {
    return this.sessions.transaction(NOTHING_UP_FRONT, async (session, { queries }) => {
      const now = this.clock.now();
      let flagged = 0;
      for (const candidate of await queries.overdue(now, limit)) {
        const instance = candidate.targetKind === 'INSTANCE' ? await session.lockInstance(candidate.targetId) : null;
        const definition =
          candidate.targetKind === 'DEFINITION' ? await session.lockDefinition(candidate.targetId) : null;
        const operation = await session.operation(candidate.operationId);
        const composition = instance ? await session.definition(instance.value.compositionId) : null;
        if (operation?.targetKind === 'INSTANCE' && instance && composition) {
          const target = { found: instance, definition: composition.value, running: operation, order: null };
          flagged += (await this.steps.instance(session, target, { kind: 'TICK' })).operations.length;
        } else if (operation?.targetKind === 'DEFINITION' && definition) {
          const step = await this.steps.definition(session, definition.value, definition, operation, { kind: 'TICK' });
          flagged += step.operations.length;
        } else if (operation && this.steps.timeOutAlone(session, operation)) {
          flagged += 1;
        }
      }
      return flagged;
    });
  }

  /** Replicas of a participant are silent: the open phase messages they may have taken are handed over. */
  async handOverLostWork(participantId: string, isSilent: (replica: ParticipantReplica) => boolean): Promise<number> {
    return this.sessions.transaction(NOTHING_UP_FRONT, async (session, { queries }) => {
      const participant = await queries.participant(participantId);
      const silent = new Set(
        Object.values(participant?.replicas ?? {})
          .filter(isSilent)
          .map((replica) => replica.replicaId),
      );
      if (silent.size === 0) {
        return 0;
      }
      const workers = await queries.workers([...silent]);
      return this.handOver(session, queries, participantId, { kind: 'SILENT', silent, workers });
    });
  }

  /** The embedded default restarted: every open phase message of these participants goes out again. */
  async resendAfterRestart(participantIds: readonly string[]): Promise<number> {
    let resent = 0;
    for (const participantId of participantIds) {
      resent += await this.sessions.transaction(NOTHING_UP_FRONT, (session, { queries }) =>
        this.handOver(session, queries, participantId, { kind: 'ALL' }),
      );
    }
    return resent;
  }

  /**
   * The broker came back as a new, empty cluster: orders it held that no participant had read yet, and the ACKs
   * it held that this runtime had not applied, are gone. Every open phase message of every participant goes out
   * again under its original messageId: a replica that already ran an element repeats its ACK, one that never saw
   * the order runs it.
   */
  async resendAfterBrokerLoss(): Promise<number> {
    const participantIds = await this.sessions.transaction(NOTHING_UP_FRONT, (_session, { queries }) =>
      queries.participantIds(),
    );
    return this.resendAfterRestart(participantIds);
  }

  /** Probes a new replica's registration started: replicas not heard from since are silent, their work handed over. */
  async handOverAfterProbes(minimumAgeMs: number): Promise<number> {
    const probes = await this.sessions.transaction(NOTHING_UP_FRONT, (_session, { queries }) =>
      queries.takeProbes(this.clock.now() - minimumAgeMs),
    );
    let resent = 0;
    for (const { participantId, probedAt } of probes) {
      resent += await this.handOverLostWork(participantId, (replica) => silentAfterProbe(replica, probedAt));
    }
    return resent;
  }

  /**
   * One supervision pass over the running instance operations: due retries, resends of silent phases,
   * no-progress reports. Each operation is decided under its instance's lock, as an ACK is.
   */
  async superviseRunning(limit = 100): Promise<number> {
    const { primes, candidates } = await this.sessions.read(async (queries) => {
      const running = await queries.running(limit);
      return {
        primes: running.filter((operation) => operation.targetKind === 'DEFINITION' && isWatched(operation)),
        candidates: await this.dueOf(queries, running),
      };
    });
    let acted = 0;
    for (const prime of primes) {
      acted += await this.sessions.transaction(NOTHING_UP_FRONT, (session) =>
        this.supervisePrime(session, prime.targetId),
      );
    }
    for (const candidate of candidates) {
      acted += await this.sessions.transaction(NOTHING_UP_FRONT, async (session) => {
        const found = await session.lockInstance(candidate.targetId);
        const operation = asInstanceOperation(await session.operation(candidate.operationId));
        const definition = found ? await session.definition(found.value.compositionId) : null;
        if (!found || !definition || operation?.state !== 'RUNNING') {
          return 0;
        }
        return this.superviseInstance(session, found, definition.value, operation, false);
      });
    }
    return acted;
  }

  /**
   * The supervision timer's pass: every running operation whose due time (`control.dueAt`) has come is decided
   * now, each in a transaction of its own under its target's lock, as the scan would decide it (a timeout, a due
   * retry, a resend, a no-progress report); one that falls due only later, or that another replica just decided, is
   * found not due under the lock and only gets its new due time. Resolves with the earliest due time left.
   */
  async fireDue(limit = 100): Promise<{ readonly decided: number; readonly next: Operation | null }> {
    const now = this.clock.now();
    const listed = await this.sessions.read((queries) => queries.due(limit));
    const due = listed.filter((operation) => operation.control.dueAt !== null && operation.control.dueAt <= now);
    for (const candidate of due) {
      await this.sessions.transaction(NOTHING_UP_FRONT, (session) => this.decideDue(session, candidate));
    }
    const [next] = await this.sessions.read((queries) => queries.due(1));
    return { decided: due.length, next: next ?? null };
  }

  /** The earliest due time of the running operations, for the timer to arm (at start and on every scan). */
  async nextDue(): Promise<Operation | null> {
    const [next] = await this.sessions.read((queries) => queries.due(1));
    return next ?? null;
  }

  /** One due operation, decided under its target's lock, read again there: the timeout rule, else supervision. */
  private async decideDue(session: OperationSession, candidate: Operation): Promise<void> {
    const now = this.clock.now();
    if (candidate.targetKind === 'DEFINITION') {
      const found = await session.lockDefinition(candidate.targetId);
      const operation = await session.operation(candidate.operationId);
      if (operation?.targetKind !== 'DEFINITION' || operation.state !== 'RUNNING') {
        return;
      }
      if (!found) {
        this.forgetDue(session, operation);
      } else if (isOverdue(operation, now)) {
        await this.steps.definition(session, found.value, found, operation, { kind: 'TICK' });
      } else {
        await this.supervisePrime(session, found.value.compositionId);
      }
      return;
    }
    const found = await session.lockInstance(candidate.targetId);
    const operation = asInstanceOperation(await session.operation(candidate.operationId));
    const definition = found ? await session.definition(found.value.compositionId) : null;
    if (operation?.state !== 'RUNNING') {
      return;
    }
    if (!found || !definition) {
      if (!this.steps.timeOutAlone(session, operation)) {
        this.forgetDue(session, operation);
      }
    } else if (isOverdue(operation, now)) {
      const target = { found, definition: definition.value, running: operation, order: null };
      await this.steps.instance(session, target, { kind: 'TICK' });
    } else {
      await this.superviseInstance(session, found, definition.value, operation, true);
    }
  }

  /** An operation whose target is gone has nothing left to supervise but its deadline. */
  private forgetDue(session: OperationSession, operation: Operation): void {
    const dueAt = deadlineDueAt(operation);
    if (dueAt !== operation.control.dueAt) {
      session.saveOperations([{ operation: { ...operation, control: { ...operation.control, dueAt } }, isNew: false }]);
    }
  }

  /**
   * One supervision step of a locked instance's running operation; the history is read only when something may be
   * due. `always`: take the step even then (the timer's pass), so the operation's due time is written again.
   */
  private async superviseInstance(
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    definition: CompositionDefinition,
    operation: InstanceOperation,
    always: boolean,
  ): Promise<number> {
    const target = { found, definition, running: operation, order: operation.order };
    const now = this.clock.now();
    if (!needsSupervision(found.value, operation, now, this.steps.supervisionContext(found.value, definition))) {
      if (always) {
        await this.steps.instance(session, target, {
          kind: 'SUPERVISE',
          messages: [],
          retrying: [],
          reported: new Set(),
        });
      }
      return 0;
    }
    const messages = openPhaseMessagesOf(await session.phaseMessages(operation.operationId, operation.phase));
    const history = await session.history(found.value.instanceId, 10000);
    const { retrying, reported } = supervisionMemoryOf(history, operation, found.value.lastMsg);
    const input: InstanceInput = { kind: 'SUPERVISE', messages, retrying, reported };
    const step = await this.steps.instance(session, target, input);
    return step.effects.length > 0 ? 1 : 0;
  }

  /** A prime or deprime silent for maxWaitMs goes out again to the participants that have not answered. */
  private async supervisePrime(session: OperationSession, compositionId: string): Promise<number> {
    const found = await session.lockDefinition(compositionId);
    const running = found ? await session.running(compositionId) : null;
    if (!found || running?.targetKind !== 'DEFINITION' || running.state !== 'RUNNING') {
      return 0;
    }
    const [message] = await session.phaseMessages(running.operationId, null);
    const input: DefinitionInput = {
      kind: 'SUPERVISE',
      messageId: message?.messageId ?? null,
      resend: this.steps.resendSettings(found.value),
    };
    const step = await this.steps.definition(session, found.value, found, running, input);
    return step.effects.length > 0 ? 1 : 0;
  }

  /**
   * The running instance operations that may need supervision now, judged on one unlocked read of their instances
   * (two statements) and each definition once, so a tick costs no transaction per operation that has nothing due.
   * A pass still decides under the instance's lock; one this read finds not due is looked at again next tick.
   */
  private async dueOf(queries: SupervisionQueries, running: readonly Operation[]): Promise<InstanceOperation[]> {
    const candidates = running.flatMap((operation) => {
      const instanceOperation = asInstanceOperation(operation);
      return instanceOperation && isWatched(instanceOperation) ? [instanceOperation] : [];
    });
    if (candidates.length === 0) {
      return [];
    }
    const instances = new Map(
      (await queries.instances({ instanceIds: candidates.map((operation) => operation.targetId) })).map((instance) => [
        instance.instanceId,
        instance,
      ]),
    );
    const definitions = new Map<string, CompositionDefinition | null>();
    const now = this.clock.now();
    const due: InstanceOperation[] = [];
    for (const operation of candidates) {
      const instance = instances.get(operation.targetId);
      if (instance === undefined) {
        continue;
      }
      if (!definitions.has(instance.compositionId)) {
        definitions.set(instance.compositionId, (await queries.definition(instance.compositionId))?.value ?? null);
      }
      const definition = definitions.get(instance.compositionId) ?? null;
      if (
        definition &&
        needsSupervision(instance, operation, now, this.steps.supervisionContext(instance, definition))
      ) {
        due.push(operation);
      }
    }
    return due;
  }

  /** Sends again, for one participant, the open phase messages its lost replicas may have taken. */
  private async handOver(
    session: OperationSession,
    queries: SupervisionQueries,
    participantId: string,
    lost: LostReplicas,
  ): Promise<number> {
    let resent = 0;
    for (const listed of await queries.instances({ participantId })) {
      const operation = hasUnfinishedWorkOf(listed, participantId)
        ? asInstanceOperation(await session.running(listed.instanceId))
        : null;
      const found = operation ? await session.lockInstance(listed.instanceId) : null;
      const definition = found ? await session.definition(found.value.compositionId) : null;
      if (!operation || !found || !definition) {
        continue;
      }
      const messages = openPhaseMessagesOf(
        await session.phaseMessages(operation.operationId, operation.phase),
        participantId,
      );
      const target = { found, definition: definition.value, running: operation, order: operation.order };
      const step = await this.steps.instance(session, target, { kind: 'REPLICA_LOST', participantId, lost, messages });
      resent += step.effects.filter((effect) => effect.kind === 'SEND_PHASE').length;
    }
    return resent;
  }
}
