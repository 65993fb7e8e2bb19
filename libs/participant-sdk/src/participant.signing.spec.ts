import { DEFAULT_TOPICS } from '@acm/contracts';
import { InMemoryMessageBus, SIGNATURE_HEADERS, verifyRecordSignature } from '@acm/messaging';
import type { IncomingRecord } from '@acm/messaging';
import { Participant } from '@acm/participant-sdk';
import type { RecordSigningKey } from '@acm/messaging';

const P = '101c62b3-8918-41b9-a747-d21eb79c6c91';
const KEY = { principal: 'participant-sim', secret: 'a-secret-of-at-least-32-characters!' };

/** Starts a participant and returns the REGISTER record it sent, as the runtime's group receives it. */
async function registerRecordOf(signing: RecordSigningKey | undefined): Promise<IncomingRecord> {
  const bus = new InMemoryMessageBus({ logger: () => undefined });
  const records: IncomingRecord[] = [];
  let arrived: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (arrived = resolve));
  await bus.subscribe({
    topic: DEFAULT_TOPICS.operation,
    groupId: 'runtime',
    handler: (record) => {
      records.push(record);
      arrived();
      return Promise.resolve();
    },
  });
  const participant = new Participant({
    participantId: P,
    supportedElementTypes: [
      { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' },
    ],
    bus,
    handler: { deploy: () => ({ ok: true }), undeploy: () => ({ ok: true }) },
    logger: () => undefined,
    ...(signing === undefined ? {} : { signing }),
  });
  await participant.start();
  await first;
  await participant.stop();
  await bus.close();
  return records[0]!;
}

describe('Participant signing its records', () => {
  it('signs each record as its principal, so the runtime can verify it with the shared secret', async () => {
    const record = await registerRecordOf(KEY);

    expect(JSON.parse(record.value)).toMatchObject({ messageType: 'PARTICIPANT_REGISTER', participantId: P });
    expect(record.headers[SIGNATURE_HEADERS.principal]).toBe('participant-sim');
    expect(verifyRecordSignature(record, KEY, 60_000)).toMatchObject({ ok: true });
    expect(verifyRecordSignature(record, { ...KEY, secret: 'b'.repeat(32) }, 60_000)).toEqual({
      ok: false,
      fault: 'invalid',
    });
  });

  it('sends no signature headers without a signing key, as ONAP participants do', async () => {
    const record = await registerRecordOf(undefined);

    expect(Object.keys(record.headers).filter((name) => name.startsWith('acm-'))).toEqual([]);
  });

  it('refuses a secret shorter than 32 characters at construction', () => {
    expect(
      () =>
        new Participant({
          participantId: P,
          supportedElementTypes: [],
          bus: new InMemoryMessageBus({ logger: () => undefined }),
          handler: { deploy: () => ({ ok: true }), undeploy: () => ({ ok: true }) },
          signing: { principal: 'p', secret: 'short' },
        }),
    ).toThrow('signing.secret must hold at least 32 characters');
  });
});
