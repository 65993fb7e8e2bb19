import type { ParticipantReplica } from '../model';
import { decideInstance, silentAfterProbe } from './instance-operation';
import { P1, P2, T0, contextOf, element, instanceOf, sends, template } from './testing/instance-fixtures';

describe(silentAfterProbe.name, () => {
  const replica = (state: ParticipantReplica['participantState'], lastMsg: number): ParticipantReplica => ({
    replicaId: 'r-1',
    participantState: state,
    lastMsg,
  });

  it('holds a replica silent when it is OFF_LINE or has not been heard from since the probe', () => {
    expect(silentAfterProbe(replica('ON_LINE', T0 + 1), T0)).toBe(false);
    expect(silentAfterProbe(replica('ON_LINE', T0), T0)).toBe(false);
    expect(silentAfterProbe(replica('ON_LINE', T0 - 1), T0)).toBe(true);
    expect(silentAfterProbe(replica('OFF_LINE', T0 + 1), T0)).toBe(true);
  });
});

describe('REPLICA_LOST', () => {
  const context = contextOf([template('a', 0), template('b', 0)]);
  const started = decideInstance(
    instanceOf([element('e-a', 'a', P1), element('e-b', 'b', P2)]),
    null,
    { kind: 'ORDER', order: 'DEPLOY' },
    T0,
    context,
  );

  it('after a restart resends every open message of that participant, its elements only', () => {
    const step = decideInstance(
      started.target,
      started.operation,
      {
        kind: 'REPLICA_LOST',
        participantId: P2,
        lost: { kind: 'ALL' },
        messages: [{ messageId: 'm-1', answeredBy: ['r-1'], covered: null }],
      },
      T0 + 100,
      context,
    );
    expect(
      sends(step).map((send) => [send.resentMessageId, Object.keys(send.instance.elements), send.dispatched]),
    ).toEqual([['m-1', ['e-b'], ['e-b']]]);
  });

  it('changes nothing for a participant with no unfinished work, or with no running operation', () => {
    const lost = { kind: 'REPLICA_LOST' as const, participantId: 'p-9', lost: { kind: 'ALL' as const }, messages: [] };
    expect(decideInstance(started.target, started.operation, lost, T0, context).effects).toEqual([]);
    expect(decideInstance(started.target, null, { ...lost, participantId: P1 }, T0, context).effects).toEqual([]);
  });
});
