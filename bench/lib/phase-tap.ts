/**
 * Splits a phase's way out and back by the records themselves. A consumer of its own group reads the operation
 * topic beside the runtime and the simulator and keeps, per phase message, the time its producer stamped on it
 * (kafkajs stamps a record as it encodes the produce request) and the stamp of the first ACK that answers it. With
 * the runtime's own events (taken when each transaction starts) a phase then reads as: PHASE_STARTED → the order
 * is on the wire (the deciding transaction, its commit and the outbox relay), → the participant's first ACK is on
 * the wire (one hop, the participant's work), → the runtime starts applying it (one hop, the runtime's consumer).
 * Both clocks are this machine's.
 */
import type { KafkaMessageBus, Subscription } from '@acm/messaging';

import { harnessBus } from './harness-bus';

interface TappedOrder {
  readonly sentAt: number;
  firstAckSentAt: number | null;
}

export class PhaseTap {
  /** Phase messages by instance and phase (`instanceId/phase`), and by messageId for the answers. */
  private readonly byPhase = new Map<string, TappedOrder>();
  private readonly byMessage = new Map<string, TappedOrder>();
  private readonly bus: KafkaMessageBus;
  private subscription: Subscription | undefined;

  constructor(
    brokers: string[],
    private readonly topic: string,
    private readonly groupId: string,
  ) {
    this.bus = harnessBus(brokers, 'acm-bench-tap', 'tap');
  }

  async start(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      topic: this.topic,
      groupId: this.groupId,
      handler: (record) => {
        this.take(record.value, Number(record.timestamp));
        return Promise.resolve();
      },
    });
  }

  private take(value: string, stamped: number): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(value) as Record<string, unknown>;
    } catch {
      return;
    }
    const type = message['messageType'];
    if (type === 'AUTOMATION_COMPOSITION_DEPLOY' && typeof message['messageId'] === 'string') {
      const order: TappedOrder = { sentAt: stamped, firstAckSentAt: null };
      this.byPhase.set(`${String(message['automationCompositionId'])}/${String(message['startPhase'])}`, order);
      this.byMessage.set(message['messageId'], order);
    } else if (type === 'AUTOMATION_COMPOSITION_STATECHANGE_ACK' && typeof message['responseTo'] === 'string') {
      const order = this.byMessage.get(message['responseTo']);
      if (order !== undefined && order.firstAckSentAt === null) {
        order.firstAckSentAt = stamped;
      }
    }
  }

  /** The phase message of `instanceId` for `phase` and its first answer's stamp, once both were read. */
  phase(instanceId: string, phase: number): { sentAt: number; firstAckSentAt: number } | undefined {
    const order = this.byPhase.get(`${instanceId}/${phase}`);
    return order === undefined || order.firstAckSentAt === null
      ? undefined
      : { sentAt: order.sentAt, firstAckSentAt: order.firstAckSentAt };
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    await this.bus.close();
  }
}
