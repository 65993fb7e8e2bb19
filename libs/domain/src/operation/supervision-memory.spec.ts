import type { InstanceOperation, PhaseMessageRecord, StoredEvent } from '../ports/engine.port';
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
function event(operationId: string, name: string, at: number, detail: Record<string, unknown>): StoredEvent {
  sequence += 1;
  return { subjectId: 'instance-1', operationId, event: name, detail, at, sequence };
}

describe('supervisionMemoryOf', () => {
  it('takes the elements of the current retry attempt only, of this operation only', () => {
    const memory = supervisionMemoryOf(
      [
        event('op-1', 'RETRY_SCHEDULED', 1_000, { attempt: 1, elementIds: ['a'] }),
        event('op-1', 'RETRY_SCHEDULED', 2_000, { attempt: 2, elementIds: ['b', 7, 'c'] }),
        event('op-0', 'RETRY_SCHEDULED', 2_000, { attempt: 2, elementIds: ['old'] }),
      ],
      OPERATION,
      0,
    );
    expect(memory.retrying).toEqual(['b', 'c']);
  });

  it('remembers no-progress reports made since the last progress of the operation or of its instance', () => {
    const history = [
      event('op-1', 'NO_PROGRESS', 4_000, { elementIds: ['before-progress'] }),
      event('op-1', 'NO_PROGRESS', 6_000, { elementIds: ['x'] }),
      event('op-1', 'NO_PROGRESS', 9_000, { elementIds: ['y'] }),
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
