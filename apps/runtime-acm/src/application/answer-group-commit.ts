import type { ParticipantStatus } from '@acm/contracts';
import { OperationSessions } from '@acm/domain';
import { Injectable } from '@nestjs/common';
import { OperationEngine, batchKeys } from '../engine/operation-engine';
import type { EngineInput } from '../engine/operation-engine';
import { ParticipantProtocolService, carriesReport } from './participant-protocol.service';

/** A run of a batch's messages applied together: ACKs through the engine, STATUS reports through the protocol. */
export type AnswerRun =
  | { readonly kind: 'ACKS'; readonly inputs: EngineInput[] }
  | { readonly kind: 'REPORTS'; readonly reports: ParticipantStatus[] };

interface Waiting {
  readonly runs: readonly AnswerRun[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Applies the ACKs and STATUS reports of the inbox's batches, a group commit: one transaction for the runs handed
 * over, in order, and the reports' heartbeats beside it (one statement per replica), outside it. Batches of
 * different partitions arrive concurrently: while one transaction is open, the runs that arrive wait and then go
 * together in the next one, so a transaction covers every batch that is ready. Their instances are locked in id
 * order in one statement (one operation session for the group), so groups never deadlock one another; a group that
 * fails fails each of its batches, which the bus then retries as it would have alone.
 */
@Injectable()
export class AnswerGroupCommit {
  private readonly waiting: Waiting[] = [];
  private applying = false;

  constructor(
    private readonly sessions: OperationSessions,
    private readonly engine: OperationEngine,
    private readonly participants: ParticipantProtocolService,
  ) {}

  /** Resolves once the runs committed (with whatever group they joined); rejects when that group failed. */
  apply(runs: readonly AnswerRun[]): Promise<void> {
    if (runs.length === 0) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ runs, resolve, reject });
      if (!this.applying) {
        this.applying = true;
        void this.applyWaiting();
      }
    });
  }

  private async applyWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const group = this.waiting.splice(0);
      try {
        await this.applyGroup(group.flatMap((member) => member.runs));
        group.forEach((member) => member.resolve());
      } catch (error) {
        group.forEach((member) => member.reject(error));
      }
    }
    this.applying = false;
  }

  private async applyGroup(runs: readonly AnswerRun[]): Promise<void> {
    // The heartbeats run beside the transaction, not before it: a participant sends its element information just
    // ahead of its ACK, and waiting for the heartbeat's round trip would delay the ACK's phase by as much.
    const beating = this.participants.heartbeats(runs.flatMap((run) => (run.kind === 'REPORTS' ? run.reports : [])));
    // One session for all runs: the ACKs' instances are locked and loaded once, and the writes of every run
    // (element information included) go out together, as set statements, before the commit.
    const keys = batchKeys(runs.flatMap((run) => (run.kind === 'ACKS' ? run.inputs : [])));
    const applying = this.sessions.transaction(keys, async (session, { store }) => {
      for (const run of runs) {
        if (run.kind === 'ACKS') {
          await this.engine.applyIn(session, run.inputs);
        } else {
          for (const report of run.reports.filter(carriesReport)) {
            await this.participants.reportIn(store, report);
          }
        }
      }
    });
    await Promise.all([beating, applying]);
    await this.participants.recordObservations(runs.flatMap((run) => (run.kind === 'REPORTS' ? run.reports : [])));
  }
}
