import type { AutomationComposition } from '../model';
import type { SyncInstanceEffect } from '../operation/effects';
import type { InstanceOperation } from '../ports/engine.port';
import { freshControl } from '../ports/engine.port';
import { timeoutSyncMessage } from './timeout-sync';

const running: InstanceOperation = {
  operationId: 'op-1',
  targetId: 'instance-1',
  targetKind: 'INSTANCE',
  order: 'DEPLOY',
  state: 'RUNNING',
  timedOut: true,
  startedAt: 0,
  deadlineAt: 1_000,
  finishedAt: null,
  control: freshControl(0),
  phase: 1,
};

function syncOf(stateChangeResult: AutomationComposition['stateChangeResult'], deleted = false): SyncInstanceEffect {
  return {
    kind: 'SYNC_INSTANCE',
    instance: { stateChangeResult } as AutomationComposition,
    deleted,
    composition: 'OWN',
    alsoCompositions: [],
  };
}

describe('timeoutSyncMessage', () => {
  it('records the TIMEOUT SYNC under the timed-out operation and its open phase, setting no element going', () => {
    expect(timeoutSyncMessage(syncOf('TIMEOUT'), running, 'sync-1')).toEqual({
      messageId: 'sync-1',
      operationId: 'op-1',
      phase: 1,
      elementIds: [],
    });
  });

  it.each([
    ['a SYNC of a completed instance', syncOf('NO_ERROR'), running],
    ['a SYNC of a failed instance', syncOf('FAILED'), running],
    ['a SYNC of a deleted instance', syncOf('TIMEOUT', true), running],
    ['an operation that has not timed out', syncOf('TIMEOUT'), { ...running, timedOut: false }],
    ['an operation that is no longer running', syncOf('TIMEOUT'), { ...running, state: 'CANCELLED' as const }],
    ['no operation', syncOf('TIMEOUT'), null],
  ])('records nothing for %s', (_case, effect, operation) => {
    expect(timeoutSyncMessage(effect, operation, 'sync-1')).toBeNull();
  });
});
