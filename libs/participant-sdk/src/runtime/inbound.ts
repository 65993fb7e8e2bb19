/**
 * Inbound dispatch: decode a record, apply ONAP's accept rule, skip replayed history, pass guarded orders
 * through the revision guard, and hand each message type to its handler. Record handlers never wait for
 * element handlers (see element-runner.ts), so a slow deploy never blocks the partition.
 */
import { acceptsMessage, decodeMessage, isForOthers } from '@acm/contracts';
import type { ParticipantMessage } from '@acm/contracts';
import { describeError } from '@acm/messaging';
import type { IncomingRecord } from '@acm/messaging';

import { isReplayedHistory } from '../replay-window';
import type { ParticipantCore } from './core';
import { inProcessSpan } from './kafka-spans';
import { onDeploy } from './orders/deploy';
import { onMigration } from './orders/migration';
import { onPrepare } from './orders/prepare';
import { onPrime } from './orders/prime';
import { onStateChange } from './orders/state-change';
import { onSync } from './orders/sync';
import { onUpdate } from './orders/update';
import { sendStatus } from './outbound';
import { observableElements, observeAndReport } from './observe';
import { RevisionGuard, isGuarded } from './revision-guard';
import type { GuardedMessage } from './revision-guard';

export class InboundDispatcher {
  readonly guard: RevisionGuard;

  constructor(
    private readonly core: ParticipantCore,
    private readonly replayWindowMs: number,
  ) {
    this.guard = new RevisionGuard(core, (message) => runGuarded(core, message));
  }

  async onRecord(record: IncomingRecord): Promise<void> {
    const core = this.core;
    const me = { participantId: core.participantId, replicaId: core.replicaId };
    // Other participants' ACKs and heartbeats, and this replica's own, are most of the shared topic: dropped on a
    // look at the text, undecoded (acceptsMessage would refuse each of them).
    if (isForOthers(record.value, me)) {
      return;
    }
    const decoded = decodeMessage(record.value);
    if (!decoded.ok) {
      core.logger('warn', 'Skipped an undecodable record', {
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
        code: decoded.code,
        reason: decoded.reason,
      });
      return;
    }
    const message = decoded.message;
    if (!acceptsMessage(message, me)) {
      return;
    }
    if (core.status !== 'started') {
      return;
    }
    if (isReplayedHistory(message, core.startedAtMs, this.replayWindowMs)) {
      core.logger('debug', 'Skipped an order older than this replica', {
        messageType: message.messageType,
        timestamp: 'timestamp' in message ? message.timestamp : undefined,
      });
      return;
    }
    try {
      // A `<topic> process` span, a child of the order's trace context (the runtime's phase span, from `traceparent`):
      // element handlers started from here run in child spans of it. No header, or a malformed one: a trace of its own.
      await inProcessSpan(record, message.messageType, () => this.dispatch(message));
    } catch (error) {
      core.logger('error', 'Failed to handle a message; skipped', {
        messageType: message.messageType,
        error: describeError(error),
      });
    }
  }

  private async dispatch(message: ParticipantMessage): Promise<void> {
    const core = this.core;
    if (isGuarded(message) && (await this.guard.parkIfStale(message))) {
      return;
    }
    switch (message.messageType) {
      case 'PARTICIPANT_REGISTER_ACK':
        core.markRegistered();
        core.logger('info', 'Registration acknowledged', {
          participantId: core.participantId,
          replicaId: core.replicaId,
        });
        await sendStatus(core);
        return;
      case 'PARTICIPANT_STATUS_REQ':
        await sendStatus(core);
        if (core.handler.observe !== undefined) {
          await observeAndReport(core, observableElements(core));
        }
        return;
      case 'PARTICIPANT_SYNC_MSG':
        onSync(core, message);
        await this.guard.releaseParked(false);
        return;
      case 'PARTICIPANT_PRIME':
        await onPrime(core, message);
        return;
      case 'AUTOMATION_COMPOSITION_DEPLOY':
      case 'AUTOMATION_COMPOSITION_STATE_CHANGE':
      case 'PROPERTIES_UPDATE':
      case 'AUTOMATION_COMPOSITION_MIGRATION':
      case 'AUTOMATION_COMPOSITION_PREPARE':
        await runGuarded(core, message);
        return;
      case 'PARTICIPANT_DEREGISTER_ACK':
      case 'PARTICIPANT_REGISTER':
      case 'PARTICIPANT_DEREGISTER':
      case 'PARTICIPANT_STATUS':
      case 'PARTICIPANT_PRIME_ACK':
      case 'AUTOMATION_COMPOSITION_DEPLOY_ACK':
      case 'AUTOMATION_COMPOSITION_STATECHANGE_ACK':
      case 'PARTICIPANT_REQ_SYNC_MSG':
        return;
    }
  }
}

async function runGuarded(core: ParticipantCore, message: GuardedMessage): Promise<void> {
  switch (message.messageType) {
    case 'AUTOMATION_COMPOSITION_DEPLOY':
      return onDeploy(core, message);
    case 'AUTOMATION_COMPOSITION_STATE_CHANGE':
      return onStateChange(core, message);
    case 'PROPERTIES_UPDATE':
      return onUpdate(core, message);
    case 'AUTOMATION_COMPOSITION_MIGRATION':
      return onMigration(core, message);
    case 'AUTOMATION_COMPOSITION_PREPARE':
      return onPrepare(core, message);
  }
}
