import { orderNameOf } from './instance-orders';
import type { InstanceOrder } from './instance-orders';

const IDS = { compositionId: 'c', instanceId: 'i', override: null } as const;
const state = (deployOrder: string, lockOrder: string, subOrder = 'NONE'): InstanceOrder =>
  ({ kind: 'STATE', ...IDS, update: { deployOrder, lockOrder, subOrder }, supersede: false }) as InstanceOrder;
const update = (extra: Record<string, unknown>): InstanceOrder =>
  ({
    kind: 'UPDATE',
    ...IDS,
    request: { instanceId: 'i', compositionId: 'c', name: 'n', version: '1.0.0', elements: [], ...extra },
  }) as unknown as InstanceOrder;

describe('orderNameOf', () => {
  it('names an order as the approval rules and windows do', () => {
    expect(orderNameOf(state('DEPLOY', 'NONE'))).toBe('DEPLOY');
    expect(orderNameOf(state('NONE', 'UNLOCK'))).toBe('UNLOCK');
    expect(orderNameOf({ kind: 'DELETE', ...IDS })).toBe('DELETE');
    expect(orderNameOf(update({}))).toBe('UPDATE');
    expect(orderNameOf(update({ compositionTargetId: 't' }))).toBe('MIGRATE');
  });

  it('names none for what changes no element: prepare, review, a precheck', () => {
    expect(orderNameOf(state('NONE', 'NONE', 'PREPARE'))).toBeNull();
    expect(orderNameOf(update({ compositionTargetId: 't', precheck: true }))).toBeNull();
  });
});
