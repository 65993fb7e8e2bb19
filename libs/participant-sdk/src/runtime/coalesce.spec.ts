import { encodeMessage } from '@acm/contracts';
import type { AutomationCompositionDeployAck, ParticipantMessage, ParticipantStatus } from '@acm/contracts';
import type { OutgoingRecord } from '@acm/messaging';

import { OutboundQueue } from '../outbound-queue';
import { CoalescibleMessage } from './coalesce';

const P = '101c62b3-8918-41b9-a747-d21eb79c6c90';
const R = '2cf0f8b4-5c1a-4c8c-9d8e-2f4a3a6b7c01';
const ORDER = '5d8e3c2a-0000-4000-8000-000000000001';
const I1 = 'a1a1a1a1-2222-4333-8444-555566667771';
const I2 = 'a1a1a1a1-2222-4333-8444-555566667772';
const E0 = 'e1e1e1e1-3333-4444-8555-666677778880';
const E1 = 'e1e1e1e1-3333-4444-8555-666677778881';

function ack(instance: string, element: string, overrides: Partial<AutomationCompositionDeployAck> = {}) {
  const message: AutomationCompositionDeployAck = {
    messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
    responseTo: ORDER,
    timestamp: new Date().toISOString(),
    participantId: P,
    automationCompositionId: instance,
    stateChangeResult: 'NO_ERROR',
    message: 'Deployed',
    automationCompositionResultMap: {
      [element]: { deployState: 'DEPLOYED', lockState: 'LOCKED', outProperties: {}, result: true, message: 'Deployed' },
    },
    ...overrides,
  };
  return message;
}

function info(instance: string, element: string): ParticipantStatus {
  return {
    messageType: 'PARTICIPANT_STATUS',
    messageId: `${element.slice(0, 8)}-0000-4000-8000-000000000000`,
    timestamp: new Date().toISOString(),
    participantId: P,
    replicaId: R,
    automationCompositionInfoList: [
      {
        automationCompositionId: instance,
        deployState: 'DEPLOYING',
        elements: [
          { automationCompositionElementId: element, deployState: 'DEPLOYING', outProperties: { at: element } },
        ],
      },
    ],
  };
}

/** A queue whose sends are recorded; every message is queued in one turn, as a participant's would be. */
async function sendInOneTurn(
  messages: { message: ParticipantMessage; headers?: Record<string, string> }[],
): Promise<OutgoingRecord[]> {
  const sent: OutgoingRecord[] = [];
  const queue = new OutboundQueue({
    send: (_topic, records) => {
      sent.push(...records);
      return Promise.resolve();
    },
    logger: () => undefined,
  });
  await Promise.all(
    messages.map(({ message, headers }) => {
      const encoded = encodeMessage(message);
      const record = headers === undefined ? encoded : { ...encoded, headers };
      const coalescible = CoalescibleMessage.of(message, record);
      return coalescible === undefined ? queue.publish('ops', record) : queue.publishCoalescible('ops', coalescible);
    }),
  );
  return sent;
}

function decoded(records: OutgoingRecord[]): Record<string, unknown>[] {
  return records.map((record) => JSON.parse(record.value) as Record<string, unknown>);
}

describe('CoalescibleMessage in the outbound queue', () => {
  it("merges the infos and the ACKs of one instance's elements, infos first, keeping the instance key", async () => {
    const sent = await sendInOneTurn([
      { message: info(I1, E0) },
      { message: info(I1, E1) },
      { message: ack(I1, E0) },
      { message: ack(I1, E1) },
    ]);
    expect(sent.map((record) => record.key)).toEqual([I1, I1]);
    const [status, answer] = decoded(sent);
    expect(status).toMatchObject({
      messageType: 'PARTICIPANT_STATUS',
      automationCompositionInfoList: [
        {
          automationCompositionId: I1,
          elements: [{ automationCompositionElementId: E0 }, { automationCompositionElementId: E1 }],
        },
      ],
    });
    expect(Object.keys(answer!['automationCompositionResultMap'] as object)).toEqual([E0, E1]);
  });

  it("never moves a message ahead of one about the same element: an info after an element's ACK stays after it", async () => {
    const sent = await sendInOneTurn([
      { message: ack(I1, E0) },
      { message: info(I1, E0) },
      { message: info(I1, E1) },
      { message: ack(I1, E1) },
    ]);
    expect(
      decoded(sent).map((message) => [
        message['messageType'],
        Object.keys((message['automationCompositionResultMap'] as object | undefined) ?? {}),
      ]),
    ).toEqual([
      ['AUTOMATION_COMPOSITION_STATECHANGE_ACK', [E0]],
      ['PARTICIPANT_STATUS', []],
      ['AUTOMATION_COMPOSITION_STATECHANGE_ACK', [E1]],
    ]);
    expect(decoded(sent)[1]).toMatchObject({
      automationCompositionInfoList: [
        { elements: [{ automationCompositionElementId: E0 }, { automationCompositionElementId: E1 }] },
      ],
    });
  });

  it('keeps apart other instances, other answers, another stage, and anything behind a message nothing passes', async () => {
    const heartbeat: ParticipantStatus = {
      messageType: 'PARTICIPANT_STATUS',
      messageId: '00000000-0000-4000-8000-000000000009',
      timestamp: new Date().toISOString(),
      participantId: P,
      replicaId: R,
    };
    const sent = await sendInOneTurn([
      { message: ack(I1, E0) },
      { message: ack(I2, E1) },
      { message: ack(I1, E1, { stage: 1 }) },
      { message: info(I1, E0) },
      { message: heartbeat },
      { message: info(I1, E1) },
    ]);
    expect(sent).toHaveLength(6);
  });

  it('carries the trace context of the first message it holds', async () => {
    const first = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    const second = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b8-01' };
    const sent = await sendInOneTurn([
      { message: ack(I1, E0), headers: first },
      { message: ack(I1, E1), headers: second },
    ]);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers).toEqual(first);
  });
});
