import type { CompositionDefinition, NodeTemplateState } from '../model';
import type { PrimeAck } from './definition-operation';
import { cancelDefinitionOperation, decideDefinition } from './definition-operation';

const T0 = 1_764_000_000_000;

function state(participantId: string): NodeTemplateState {
  return {
    nodeTemplateStateId: `s-${participantId}`,
    participantId,
    nodeTemplateId: { name: `n-${participantId}`, version: '1.0.0' },
    state: 'PRIMING',
    message: null,
    outProperties: {},
  };
}

const definition: CompositionDefinition = {
  compositionId: 'c-1',
  name: 'c',
  version: '1.0.0',
  serviceTemplate: {},
  state: 'PRIMING',
  stateChangeResult: 'NO_ERROR',
  lastMsg: T0,
  elementStateMap: { 'n-p1': state('p1'), 'n-p2': state('p2') },
  revisionId: 'r-0',
};

function primed(participantId: string): PrimeAck {
  return {
    participantId,
    replicaId: null,
    responseTo: null,
    compositionState: 'PRIMED',
    stateChangeResult: 'NO_ERROR',
    message: null,
    outProperties: new Map(),
  };
}

describe('decideDefinition', () => {
  const context = { defaultTimeoutMs: 5_000, newId: () => 'new-id' };

  it('primes once every participant answered, with the metadata timeout or the default one', () => {
    const ordered = decideDefinition(definition, null, { kind: 'ORDER', order: 'PRIME', timeoutMs: null }, T0, context);
    expect(ordered.operation).toMatchObject({ targetKind: 'DEFINITION', order: 'PRIME', deadlineAt: T0 + 5_000 });
    expect(ordered.effects[0]).toEqual({ kind: 'SEND_PRIME', order: 'PRIME' });
    const custom = decideDefinition(definition, null, { kind: 'ORDER', order: 'PRIME', timeoutMs: 90 }, T0, context);
    expect(custom.operation?.deadlineAt).toBe(T0 + 90);

    const half = decideDefinition(
      definition,
      ordered.operation,
      { kind: 'ACK', ack: primed('p1'), answered: null },
      T0 + 1,
      context,
    );
    expect(half.target.state).toBe('PRIMING');
    expect(half.operations).toEqual([]);
    const done = decideDefinition(
      half.target,
      ordered.operation,
      { kind: 'ACK', ack: primed('p2'), answered: null },
      T0 + 2,
      context,
    );
    expect(done.target).toMatchObject({ state: 'PRIMED', stateChangeResult: 'NO_ERROR', revisionId: 'new-id' });
    expect(done.operation?.state).toBe('COMPLETED');
    expect(done.effects.map((effect) => effect.kind)).toEqual([
      'RECORD_EVENT',
      'SYNC_DEFINITION',
      'RECORD_EVENT',
      'COUNT_FINISHED',
    ]);
  });

  it('ignores an answer from a participant that owns nothing, and one when nothing runs', () => {
    const ordered = decideDefinition(definition, null, { kind: 'ORDER', order: 'PRIME', timeoutMs: null }, T0, context);
    const stranger = decideDefinition(
      definition,
      ordered.operation,
      { kind: 'ACK', ack: primed('p9'), answered: null },
      T0,
      context,
    );
    expect(stranger.effects).toEqual([expect.objectContaining({ kind: 'IGNORE', reason: 'NOT_OWNER' })]);
    const idle = decideDefinition(definition, null, { kind: 'ACK', ack: primed('p1'), answered: null }, T0, context);
    expect(idle.effects).toEqual([expect.objectContaining({ kind: 'IGNORE', reason: 'STALE' })]);
  });

  it('times a prime out once, marking the definition TIMEOUT', () => {
    const ordered = decideDefinition(definition, null, { kind: 'ORDER', order: 'PRIME', timeoutMs: null }, T0, context);
    const flagged = decideDefinition(definition, ordered.operation, { kind: 'TICK' }, T0 + 5_001, context);
    expect(flagged.target.stateChangeResult).toBe('TIMEOUT');
    expect(flagged.operation?.timedOut).toBe(true);
    expect(
      decideDefinition(flagged.target, flagged.operation, { kind: 'TICK' }, T0 + 9_000, context).operations,
    ).toEqual([]);
  });

  it('cancels a running prime, and refuses (not throws) a cancel when none runs', () => {
    const ordered = decideDefinition(definition, null, { kind: 'ORDER', order: 'PRIME', timeoutMs: null }, T0, context);
    const cancelled = cancelDefinitionOperation(definition, ordered.operation, T0 + 10);
    expect(cancelled).toMatchObject({
      target: { state: 'PRIMING', stateChangeResult: 'FAILED' },
      operation: { state: 'CANCELLED', finishedAt: T0 + 10 },
    });
    expect(cancelDefinitionOperation(definition, null, T0 + 10)).toEqual(
      expect.objectContaining({ refused: true, code: 'NOTHING_RUNNING' }),
    );
    expect(
      cancelDefinitionOperation({ ...definition, stateChangeResult: 'FAILED' }, ordered.operation, T0 + 10),
    ).toEqual(expect.objectContaining({ refused: true, code: 'NOTHING_RUNNING' }));
  });
});
