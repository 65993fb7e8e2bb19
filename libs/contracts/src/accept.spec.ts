import { EXAMPLE_IDS, acceptsMessage, exampleObject } from '@acm/contracts';
import type { ContractExampleName, ParticipantMessage } from '@acm/contracts';

const me = { participantId: EXAMPLE_IDS.participant, replicaId: EXAMPLE_IDS.replica };
const myOtherReplica = 'aaaaaaaa-0000-4000-8000-000000000001';
const otherParticipant = EXAMPLE_IDS.participant2;
const otherReplica = 'aaaaaaaa-0000-4000-8000-000000000002';

/** An example with its routing fields replaced (undefined = absent). */
function message(
  example: ContractExampleName,
  routing: { participantId?: string; replicaId?: string; participantIdList?: string[] },
): ParticipantMessage {
  const base = exampleObject(example);
  delete base['participantId'];
  delete base['replicaId'];
  delete base['participantIdList'];
  return { ...base, ...routing } as unknown as ParticipantMessage;
}

describe('acceptsMessage (ONAP participant accept rule)', () => {
  describe('runtime-to-participant messages', () => {
    it.each<[string, { participantId?: string; replicaId?: string; participantIdList?: string[] }, boolean]>([
      ['broadcast: no participantId, no list', {}, true],
      ['broadcast with an empty list', { participantIdList: [] }, true],
      ['broadcast to a list that names me', { participantIdList: [otherParticipant, me.participantId] }, true],
      ['broadcast to a list that lacks me', { participantIdList: [otherParticipant] }, false],
      ['to all my replicas', { participantId: me.participantId }, true],
      [
        'to all my replicas, list names me',
        { participantId: me.participantId, participantIdList: [me.participantId] },
        true,
      ],
      [
        'to all my replicas, but the list lacks me (list wins)',
        { participantId: me.participantId, participantIdList: [otherParticipant] },
        false,
      ],
      ['to this replica of mine', { participantId: me.participantId, replicaId: me.replicaId }, true],
      ['to another replica of mine', { participantId: me.participantId, replicaId: myOtherReplica }, false],
      ['to another participant', { participantId: otherParticipant }, false],
      ['to a replica of another participant', { participantId: otherParticipant, replicaId: otherReplica }, false],
      [
        "ONAP quirk: another participant's id with my replica id",
        { participantId: otherParticipant, replicaId: me.replicaId },
        true,
      ],
      [
        'ids compared case-insensitively',
        { participantId: me.participantId.toUpperCase(), replicaId: me.replicaId.toUpperCase() },
        true,
      ],
    ])('%s → %s', (_label, routing, expected) => {
      for (const example of ['PRIME', 'DEPLOY', 'SYNC_DONE', 'STATUS_REQ'] as const) {
        expect(acceptsMessage(message(example, routing), me)).toBe(expected);
      }
    });
  });

  describe('acks to participants (no list rule)', () => {
    it.each<[string, ContractExampleName, { participantId?: string; replicaId?: string }, boolean]>([
      ['deregister ack broadcast', 'DEREGISTER_ACK', {}, true],
      [
        'register ack for this replica',
        'REGISTER_ACK',
        { participantId: me.participantId, replicaId: me.replicaId },
        true,
      ],
      ['register ack for all my replicas', 'REGISTER_ACK', { participantId: me.participantId }, true],
      [
        'register ack for another replica of mine',
        'REGISTER_ACK',
        { participantId: me.participantId, replicaId: myOtherReplica },
        false,
      ],
      ['register ack for another participant', 'REGISTER_ACK', { participantId: otherParticipant }, false],
    ])('%s → %s', (_label, example, routing, expected) => {
      expect(acceptsMessage(message(example, routing), me)).toBe(expected);
    });
  });

  it('lets the replicas listed in excludeReplicas ignore a SYNC', () => {
    const sync = (excludeReplicas: string[]): ParticipantMessage =>
      ({ ...exampleObject('SYNC_DONE'), excludeReplicas }) as unknown as ParticipantMessage;
    expect(acceptsMessage(sync([me.replicaId]), me)).toBe(false);
    expect(acceptsMessage(sync([myOtherReplica]), me)).toBe(true);
    expect(acceptsMessage(sync([]), me)).toBe(true);
  });

  it.each<ContractExampleName>(['REGISTER', 'STATUS', 'PRIME_ACK', 'ACK', 'DEPLOY_ACK', 'REQ_SYNC', 'DEREGISTER'])(
    'never accepts participant-originated %s, even my own',
    (example) => {
      expect(acceptsMessage(message(example, { participantId: me.participantId, replicaId: me.replicaId }), me)).toBe(
        false,
      );
      expect(acceptsMessage(message(example, {}), me)).toBe(false);
    },
  );
});
