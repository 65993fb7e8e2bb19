/**
 * The records of the transport floor (bench/floor.ts): ONAP-shaped messages of the 3-phase × 2-element deploy,
 * built and read with the product's own codec, so the floor pays what the runtime and the SDK pay to put a message
 * on the wire and take it off, and nothing else (no database, no engine, no participant logic).
 */
import { randomUUID } from 'node:crypto';
import type { AutomationCompositionDeploy, AutomationCompositionDeployAck, ParticipantStatus } from '@acm/contracts';
import { encodeMessage } from '@acm/contracts';
import type { MessageBus, OutgoingRecord } from '@acm/messaging';

export const FLOOR_PHASES = 3;
export const FLOOR_ELEMENTS_PER_PHASE = 2;
export const FLOOR_ELEMENTS = FLOOR_PHASES * FLOOR_ELEMENTS_PER_PHASE;

const DEFINITION = { name: 'onap.policy.clamp.ac.element.Sim_Floor', version: '1.2.3' };

export interface FloorInstance {
  compositionId: string;
  instanceId: string;
  participantId: string;
  elementIds: readonly string[];
}

export function floorInstance(compositionId: string, participantId: string): FloorInstance {
  return {
    compositionId,
    instanceId: randomUUID(),
    participantId,
    elementIds: Array.from({ length: FLOOR_ELEMENTS }, () => randomUUID()),
  };
}

const phaseOf = (elementIndex: number): number => Math.floor(elementIndex / FLOOR_ELEMENTS_PER_PHASE);

/** One phase's order as ONAP's runtime sends it: every element of the participant, each with its start phase. */
export function deployOrder(instance: FloorInstance, startPhase: number): OutgoingRecord {
  const message: AutomationCompositionDeploy = {
    messageType: 'AUTOMATION_COMPOSITION_DEPLOY',
    messageId: randomUUID(),
    timestamp: new Date().toISOString(),
    compositionId: instance.compositionId,
    automationCompositionId: instance.instanceId,
    revisionIdComposition: instance.compositionId,
    revisionIdInstance: instance.instanceId,
    participantIdList: [instance.participantId],
    startPhase,
    firstStartPhase: startPhase === 0,
    participantUpdatesList: [
      {
        participantId: instance.participantId,
        acElementList: instance.elementIds.map((id) => ({
          id,
          definition: DEFINITION,
          orderedState: 'DEPLOY',
          migrationState: 'DEFAULT',
          properties: { deployTimeoutMs: 200_000 },
        })),
      },
    ],
    participantDtoList: [
      {
        participantId: instance.participantId,
        elementDtos: instance.elementIds.map((elementId, index) => ({
          compositionElement: {
            compositionId: instance.compositionId,
            elementDefinitionId: DEFINITION,
            inProperties: { startPhase: phaseOf(index) },
            outProperties: {},
            state: 'PRESENT',
          },
          instanceElementTarget: {
            instanceId: instance.instanceId,
            elementId,
            inProperties: { deployTimeoutMs: 200_000 },
            outProperties: {},
            state: 'PRESENT',
          },
        })),
      },
    ],
  };
  return encodeMessage(message);
}

/**
 * What the simulator sends for each element of the ordered phase: its `DEPLOYING` info (a PARTICIPANT_STATUS) and
 * then its ACK, in the order the SDK queues them.
 */
export function phaseAnswers(order: AutomationCompositionDeploy, replicaId: string): OutgoingRecord[] {
  const participantId = order.participantIdList?.[0] ?? '';
  const records: OutgoingRecord[] = [];
  for (const dto of order.participantDtoList?.[0]?.elementDtos ?? []) {
    const elementId = dto.instanceElementTarget?.elementId;
    if (elementId === undefined || dto.compositionElement?.inProperties?.['startPhase'] !== order.startPhase) {
      continue;
    }
    const status: ParticipantStatus = {
      messageType: 'PARTICIPANT_STATUS',
      messageId: randomUUID(),
      timestamp: new Date().toISOString(),
      participantId,
      replicaId,
      automationCompositionInfoList: [
        {
          automationCompositionId: order.automationCompositionId,
          deployState: 'DEPLOYING',
          lockState: 'NONE',
          elements: [
            {
              automationCompositionElementId: elementId,
              deployState: 'DEPLOYING',
              lockState: 'NONE',
              operationalState: 'ENABLED',
              useState: 'IDLE',
              outProperties: { InternalState: 'DEPLOYING' },
            },
          ],
        },
      ],
    };
    const ack: AutomationCompositionDeployAck = {
      messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
      responseTo: order.messageId,
      timestamp: new Date().toISOString(),
      participantId,
      replicaId,
      automationCompositionId: order.automationCompositionId,
      stateChangeResult: 'NO_ERROR',
      message: 'Deployed',
      outPropertiesUpdated: false,
      automationCompositionResultMap: {
        [elementId]: { deployState: 'DEPLOYED', lockState: 'LOCKED', result: true, message: 'Deployed' },
      },
    };
    records.push(encodeMessage(status), encodeMessage(ack));
  }
  return records;
}

/**
 * Sends what was queued while the previous request was in flight as one request, as the runtime's outbox relay
 * and the SDK's outbound queue do: the floor then makes no more produce requests than the product.
 */
export class CoalescingSender {
  private queued: Array<{ records: readonly OutgoingRecord[]; resolve: () => void; reject: (error: Error) => void }> =
    [];
  private sending = false;

  constructor(
    private readonly bus: MessageBus,
    private readonly topic: string,
  ) {}

  send(records: readonly OutgoingRecord[]): Promise<void> {
    const sent = new Promise<void>((resolve, reject) => this.queued.push({ records, resolve, reject }));
    if (!this.sending) {
      void this.drain();
    }
    return sent;
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      while (this.queued.length > 0) {
        const batch = this.queued;
        this.queued = [];
        try {
          await this.bus.publish(
            this.topic,
            batch.flatMap((item) => item.records),
          );
          batch.forEach((item) => item.resolve());
        } catch (error) {
          const reason = error instanceof Error ? error : new Error(String(error));
          batch.forEach((item) => item.reject(reason));
        }
      }
    } finally {
      this.sending = false;
    }
  }
}
