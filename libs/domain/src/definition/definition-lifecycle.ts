import { DomainError } from '../errors';
import type { AcTypeState, PrimeOrder, StateChangeResult } from '../states';

/** The state of a composition definition that decides which prime order is allowed. */
export interface DefinitionStateKey {
  readonly state: AcTypeState;
  readonly stateChangeResult: StateChangeResult;
}

export type DefinitionOrder = Exclude<PrimeOrder, 'NONE'>;

const AFTER_FAILURE: readonly DefinitionStateKey[] = [
  { state: 'PRIMING', stateChangeResult: 'FAILED' },
  { state: 'PRIMING', stateChangeResult: 'TIMEOUT' },
  { state: 'DEPRIMING', stateChangeResult: 'FAILED' },
  { state: 'DEPRIMING', stateChangeResult: 'TIMEOUT' },
];

/**
 * ONAP's AcTypeStateResolver, row for row: where each prime order may start.
 * PRIMED/NO_ERROR accepts PRIME again (re-prime) and COMMISSIONED/NO_ERROR accepts DEPRIME (a no-op
 * clean-up on participants), as in ONAP.
 */
export const DEFINITION_ORDER_TABLE: Readonly<Record<DefinitionOrder, readonly DefinitionStateKey[]>> = {
  PRIME: [
    { state: 'COMMISSIONED', stateChangeResult: 'NO_ERROR' },
    { state: 'PRIMED', stateChangeResult: 'NO_ERROR' },
    ...AFTER_FAILURE,
  ],
  DEPRIME: [
    { state: 'PRIMED', stateChangeResult: 'NO_ERROR' },
    { state: 'COMMISSIONED', stateChangeResult: 'NO_ERROR' },
    ...AFTER_FAILURE,
  ],
};

/** The state a definition enters while the order runs, and the state it reaches when every participant answered. */
export const DEFINITION_ORDER_EFFECT: Readonly<Record<DefinitionOrder, { during: AcTypeState; done: AcTypeState }>> = {
  PRIME: { during: 'PRIMING', done: 'PRIMED' },
  DEPRIME: { during: 'DEPRIMING', done: 'COMMISSIONED' },
};

function describeKey(key: DefinitionStateKey): string {
  return `${key.state}/${key.stateChangeResult}`;
}

/** Accepts a prime order or refuses it with the state that refused it and the states that would accept it. */
export function resolvePrimeOrder(order: PrimeOrder, current: DefinitionStateKey): DefinitionOrder {
  if (order === 'NONE') {
    throw new DomainError('ORDER_NOT_ALLOWED', 'Not valid order NONE: primeOrder must be PRIME or DEPRIME', {
      order,
    });
  }
  const allowed = DEFINITION_ORDER_TABLE[order];
  const matches = allowed.some(
    (key) => key.state === current.state && key.stateChangeResult === current.stateChangeResult,
  );
  if (!matches) {
    throw new DomainError(
      'ORDER_NOT_ALLOWED',
      `Not valid order ${order}; AcTypeState: ${current.state}; StateChangeResult: ${current.stateChangeResult}. ` +
        `${order} is allowed from ${allowed.map(describeKey).join(', ')}`,
      { order, state: current.state, stateChangeResult: current.stateChangeResult },
    );
  }
  return order;
}

/** Only a definition at rest may be changed or deleted: a running prime would otherwise act on a vanished template. */
export function assertDefinitionEditable(current: DefinitionStateKey, action: 'update' | 'delete'): void {
  if (current.state !== 'COMMISSIONED') {
    throw new DomainError(
      'ORDER_NOT_ALLOWED',
      `Composition definition in state ${current.state} cannot be ${action === 'update' ? 'updated' : 'deleted'}: ` +
        `it must be COMMISSIONED (deprime it first)`,
      { action, state: current.state },
    );
  }
}

export function isDefinitionTransitional(state: AcTypeState): boolean {
  return state === 'PRIMING' || state === 'DEPRIMING';
}
