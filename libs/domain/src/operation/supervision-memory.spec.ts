import type { InstanceOperation, PhaseMessageRecord } from '../ports/engine.port';
import type { HistoryEventBody, HistoryEventDetails, HistoryEventKind, StoredEvent } from '../history/history-events';
import { runtimeActor } from '../history/actor';
import { freshControl } from '../ports/engine.port';
import { openPhaseMessagesOf, supervisionMemoryOf } from './supervision-memory';

const OPERATION: InstanceOperation = {
  operationId: 'op-1',
  targetId: 'instance-1',
  targetKind: 'INSTANCE',
  order: 'DEPLOY',
  state: 'RUNNING',
  timedOut: false,
  startedAt: 0,
  deadlineAt: 100_000,
  finishedAt: null,
  control: { ...freshControl(0), progressAt: 5_000, retried: 2 },
  phase: 0,
};

let sequence = 0;
function event<K extends HistoryEventKind>(
  operationId: string,
  name: K,
  at: number,
  detail: HistoryEventDetails[K],
): StoredEvent {
  sequence += 1;
  const body = { event: name, detail } as HistoryEventBody;
  return { ...body, subjectId: 'instance-1', operationId, actor: runtimeActor('retry'), at, sequence };
}

describe('supervisionMemoryOf', () => {
  it('takes the elements of the current retry attempt only, of this operation only', () => {
    const memory = supervisionMemoryOf(
      [
        event('op-1', 'RETRY_SCHEDULED', 1_000, { attempt: 1, delayMs: 1, elementIds: ['a'], message: null }),
        event('op-1', 'RETRY_SCHEDULED', 2_000, { attempt: 2, delayMs: 1, elementIds: ['b', 'c'], message: null }),
        event('op-0', 'RETRY_SCHEDULED', 2_000, { attempt: 2, delayMs: 1, elementIds: ['old'], message: null }),
      ],
      OPERATION,
      0,
    );
    expect(memory.retrying).toEqual(['b', 'c']);
  });

  it('remembers no-progress reports made since the last progress of the operation or of its instance', () => {
    const history = [
      event('op-1', 'NO_PROGRESS', 4_000, { phase: 0, elementIds: ['before-progress'], silentForMs: 1 }),
      event('op-1', 'NO_PROGRESS', 6_000, { phase: 0, elementIds: ['x'], silentForMs: 1 }),
      event('op-1', 'NO_PROGRESS', 9_000, { phase: 0, elementIds: ['y'], silentForMs: 1 }),
    ];
    expect([...supervisionMemoryOf(history, OPERATION, 0).reported]).toEqual(['x', 'y']);
    expect([...supervisionMemoryOf(history, OPERATION, 8_000).reported]).toEqual(['y']);
  });
});

describe('openPhaseMessagesOf', () => {
  const records: PhaseMessageRecord[] = [
    {
      messageId: 'm-1',
      elementIds: ['a', 'b'],
      answeredBy: [
        { participantId: 'p-1', replicaId: 'r-1' },
        { participantId: 'p-2', replicaId: 'r-2' },
      ],
    },
    { messageId: 'm-2', elementIds: null, answeredBy: [] },
  ];

  it('keeps every answer without a participant, and only that participant’s replicas with one', () => {
    const all = openPhaseMessagesOf(records);
    expect(all.map((message) => message.answeredBy)).toEqual([['r-1', 'r-2'], []]);
    expect(openPhaseMessagesOf(records, 'p-2')[0]!.answeredBy).toEqual(['r-2']);
  });

  it('reads an unrecorded element list as the whole phase', () => {
    const [first, second] = openPhaseMessagesOf(records);
    expect([...first!.covered!]).toEqual(['a', 'b']);
    expect(second!.covered).toBeNull();
  });
});
