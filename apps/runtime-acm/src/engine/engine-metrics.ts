import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { RuntimeMetrics } from '../metrics/runtime-metrics';

/** Engine and protocol metrics, on the runtime's registry. */
@Injectable()
export class EngineMetrics {
  readonly operationsFinished: Counter<'order' | 'result'>;
  readonly operationSeconds: Histogram<'order'>;
  readonly messagesIgnored: Counter<'reason'>;
  readonly messagesReceived: Counter<'type'>;
  readonly messagesRejected: Counter<'code'>;
  readonly messagesSent: Counter<'topic'>;
  readonly registrationsRefused: Counter<'reason'>;
  readonly resends: Counter<'order'>;
  readonly retries: Counter<'order'>;
  readonly cancels: Counter<'target' | 'rollback'>;
  readonly pauses: Counter<'action'>;
  readonly stuck: Counter;
  readonly signals: Counter<'status' | 'effect'>;
  readonly recordsRefused: Counter<'reason' | 'type'>;

  constructor(runtime: RuntimeMetrics) {
    const registers = [runtime.registry];
    this.operationsFinished = new Counter({
      name: 'acm_operations_finished_total',
      help: 'Operations that completed, failed or timed out, by order',
      labelNames: ['order', 'result'],
      registers,
    });
    this.operationSeconds = new Histogram({
      name: 'acm_operation_duration_seconds',
      help: 'Time from an order to its completion',
      labelNames: ['order'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.messagesIgnored = new Counter({
      name: 'acm_participant_messages_ignored_total',
      help: 'Valid participant messages that changed nothing (stale, foreign, unknown target), by reason',
      labelNames: ['reason'],
      registers,
    });
    this.messagesReceived = new Counter({
      name: 'acm_participant_messages_received_total',
      help: 'Participant messages received, by type',
      labelNames: ['type'],
      registers,
    });
    this.messagesRejected = new Counter({
      name: 'acm_participant_messages_rejected_total',
      help: 'Records on the participant topic that could not be decoded, or could never be applied (APPLY_FAILED), by code',
      labelNames: ['code'],
      registers,
    });
    this.messagesSent = new Counter({
      name: 'acm_participant_messages_sent_total',
      help: 'Messages the outbox relay published, by topic',
      labelNames: ['topic'],
      registers,
    });
    this.registrationsRefused = new Counter({
      name: 'acm_participant_registrations_refused_total',
      help: 'REGISTER or first STATUS of a new participant or replica refused by the registration limits, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.resends = new Counter({
      name: 'acm_silent_phase_resends_total',
      help: 'Open phases sent again after maxWaitMs without an answer, by order',
      labelNames: ['order'],
      registers,
    });
    this.retries = new Counter({
      name: 'acm_element_retries_total',
      help: 'Retries of failed elements scheduled by a retry policy, by order',
      labelNames: ['order'],
      registers,
    });
    this.cancels = new Counter({
      name: 'acm_operation_cancels_total',
      help: 'Running operations cancelled, by target kind and whether a rollback followed',
      labelNames: ['target', 'rollback'],
      registers,
    });
    this.pauses = new Counter({
      name: 'acm_operation_pauses_total',
      help: 'Operations paused and resumed, by action',
      labelNames: ['action'],
      registers,
    });
    this.stuck = new Counter({
      name: 'acm_elements_no_progress_total',
      help: 'Elements reported with no ACK or progress for their noProgressTimeoutMs (not failed)',
      registers,
    });
    this.signals = new Counter({
      name: 'acm_signals_total',
      help: 'Signals received by wait conditions, by status and effect (counted, completed, failed, duplicate)',
      labelNames: ['status', 'effect'],
      registers,
    });
    this.recordsRefused = new Counter({
      name: 'acm_participant_records_refused_total',
      help:
        'Records for a participant bound in PARTICIPANT_BINDINGS refused: signature missing, invalid, from another ' +
        'principal, stale or replayed; by reason and message type',
      labelNames: ['reason', 'type'],
      registers,
    });
  }
}
