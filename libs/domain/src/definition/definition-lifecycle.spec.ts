import { DomainError } from '../errors';
import { AC_TYPE_STATES, STATE_CHANGE_RESULTS } from '../states';
import type { DefinitionOrder } from './definition-lifecycle';
import { DEFINITION_ORDER_EFFECT, assertDefinitionEditable, resolvePrimeOrder } from './definition-lifecycle';

/** ONAP's AcTypeStateResolver rows, transcribed by hand. */
const ONAP_ROWS = new Set(
  `
PRIME COMMISSIONED/NO_ERROR
PRIME PRIMED/NO_ERROR
PRIME PRIMING/FAILED
PRIME PRIMING/TIMEOUT
PRIME DEPRIMING/FAILED
PRIME DEPRIMING/TIMEOUT
DEPRIME PRIMED/NO_ERROR
DEPRIME COMMISSIONED/NO_ERROR
DEPRIME PRIMING/FAILED
DEPRIME PRIMING/TIMEOUT
DEPRIME DEPRIMING/FAILED
DEPRIME DEPRIMING/TIMEOUT
`
    .trim()
    .split('\n'),
);

const cases = (['PRIME', 'DEPRIME'] as DefinitionOrder[]).flatMap((order) =>
  AC_TYPE_STATES.flatMap((state) =>
    STATE_CHANGE_RESULTS.map((stateChangeResult) => ({ order, state, stateChangeResult })),
  ),
);

describe('definition order table', () => {
  it.each(cases.map((c) => [`${c.order} ${c.state}/${c.stateChangeResult}`, c] as const))('%s', (text, c) => {
    const attempt = (): DefinitionOrder => resolvePrimeOrder(c.order, c);
    if (ONAP_ROWS.has(text)) {
      expect(attempt()).toBe(c.order);
    } else {
      expect(attempt).toThrow(DomainError);
      expect(attempt).toThrow(
        `Not valid order ${c.order}; AcTypeState: ${c.state}; StateChangeResult: ${c.stateChangeResult}`,
      );
    }
  });

  it('refuses NONE', () => {
    expect(() => resolvePrimeOrder('NONE', { state: 'COMMISSIONED', stateChangeResult: 'NO_ERROR' })).toThrow(
      /primeOrder must be PRIME or DEPRIME/,
    );
  });

  it('maps each order to its transitional and final state', () => {
    expect(DEFINITION_ORDER_EFFECT).toEqual({
      PRIME: { during: 'PRIMING', done: 'PRIMED' },
      DEPRIME: { during: 'DEPRIMING', done: 'COMMISSIONED' },
    });
  });

  it.each(AC_TYPE_STATES.filter((state) => state !== 'COMMISSIONED'))('refuses to delete a %s definition', (state) => {
    expect(() => assertDefinitionEditable({ state, stateChangeResult: 'NO_ERROR' }, 'delete')).toThrow(
      `Composition definition in state ${state} cannot be deleted`,
    );
  });

  it('lets a COMMISSIONED definition be updated', () => {
    expect(() =>
      assertDefinitionEditable({ state: 'COMMISSIONED', stateChangeResult: 'NO_ERROR' }, 'update'),
    ).not.toThrow();
  });
});
