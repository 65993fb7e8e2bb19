import { RefusalBudget } from './refusal-budget';

describe('RefusalBudget', () => {
  it('records up to the limit per source and minute, then counts the rest for the next one recorded', () => {
    const budget = new RefusalBudget(2);
    expect(budget.admit('a', 0)).toEqual({ record: true, unrecorded: 0 });
    expect(budget.admit('a', 1)).toEqual({ record: true, unrecorded: 0 });
    expect(budget.admit('a', 2)).toEqual({ record: false });
    expect(budget.admit('a', 3)).toEqual({ record: false });
    expect(budget.admit('b', 4)).toEqual({ record: true, unrecorded: 0 });
    expect(budget.admit('a', 59_999)).toEqual({ record: false });
    expect(budget.admit('a', 60_000)).toEqual({ record: true, unrecorded: 3 });
    expect(budget.admit('a', 60_001)).toEqual({ record: true, unrecorded: 0 });
    expect(budget.admit('a', 60_002)).toEqual({ record: false });
  });

  it('forgets the oldest source past its bound of sources', () => {
    const budget = new RefusalBudget(1, 2);
    budget.admit('a', 0);
    expect(budget.admit('a', 1)).toEqual({ record: false });
    budget.admit('b', 2);
    budget.admit('c', 3);
    expect(budget.admit('a', 4)).toEqual({ record: true, unrecorded: 0 });
  });
});
