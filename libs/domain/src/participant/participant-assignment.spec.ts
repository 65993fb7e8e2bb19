import { DomainError } from '../errors';
import type { Participant } from '../model';
import { assertParticipantsOnline, assignParticipants } from './participant-assignment';

function participant(id: string, types: Array<[string, string]>, online: boolean[]): Participant {
  return {
    participantId: id,
    participantSupportedElementTypes: Object.fromEntries(
      types.map(([typeName, typeVersion], index) => [
        `${id}-t${index}`,
        { id: `${id}-t${index}`, typeName, typeVersion },
      ]),
    ),
    replicas: Object.fromEntries(
      online.map((up, index) => [
        `${id}-r${index}`,
        { replicaId: `${id}-r${index}`, participantState: up ? 'ON_LINE' : 'OFF_LINE', lastMsg: 0 },
      ]),
    ),
  };
}

describe(assignParticipants.name, () => {
  const participants = [participant('p1', [['Sim', '1.0.0']], [true]), participant('p2', [['Http', '1.0.0']], [true])];

  it('maps each element to the owner of its type and version', () => {
    const assignment = assignParticipants(
      [
        { name: 'a', type: 'Sim', typeVersion: '1.0.0' },
        { name: 'b', type: 'Http', typeVersion: '1.0.0' },
      ],
      participants,
    );
    expect([...assignment]).toEqual([
      ['a', 'p1'],
      ['b', 'p2'],
    ]);
  });

  it('names every unsupported type', () => {
    const attempt = (): unknown =>
      assignParticipants(
        [
          { name: 'a', type: 'Sim', typeVersion: '2.0.0' },
          { name: 'b', type: 'Other', typeVersion: '1.0.0' },
        ],
        participants,
      );
    expect(attempt).toThrow(DomainError);
    expect(attempt).toThrow(
      /Element Type Sim 2.0.0 not supported \(node template a\)\nElement Type Other 1.0.0 not supported/,
    );
  });
});

describe(assertParticipantsOnline.name, () => {
  it('passes when each participant has an ON_LINE replica', () => {
    const known = new Map([['p1', participant('p1', [], [false, true])]]);
    expect(() => assertParticipantsOnline(['p1'], known)).not.toThrow();
  });

  it.each([
    ['no ON_LINE replica', new Map([['p1', participant('p1', [], [false])]])],
    ['no replica at all', new Map([['p1', participant('p1', [], [])]])],
    ['unknown participant', new Map<string, Participant>()],
  ])('refuses with PARTICIPANT_OFFLINE on %s', (_case, known) => {
    let caught: unknown;
    try {
      assertParticipantsOnline(['p1'], known);
    } catch (error) {
      caught = error;
    }
    expect((caught as DomainError).code).toBe('PARTICIPANT_OFFLINE');
    expect((caught as DomainError).message).toContain('Participant: p1 is OFFLINE');
  });
});
