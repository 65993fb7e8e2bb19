import { noProgressTimeoutOf, stuckElements } from './no-progress';

describe(stuckElements.name, () => {
  it('reports elements silent for longer than their own or the global timeout, once per silence', () => {
    const stuck = stuckElements(
      [
        { elementId: 'a', lastProgressAt: 0, timeoutMs: 500, reported: false },
        { elementId: 'b', lastProgressAt: 0, timeoutMs: null, reported: false },
        { elementId: 'c', lastProgressAt: 800, timeoutMs: null, reported: false },
        { elementId: 'd', lastProgressAt: 0, timeoutMs: 100, reported: true },
      ],
      1_000,
      1_000,
    );
    expect(stuck).toEqual([
      { elementId: 'a', silentForMs: 1_000, timeoutMs: 500 },
      { elementId: 'b', silentForMs: 1_000, timeoutMs: 1_000 },
    ]);
  });

  it('reports nothing without a timeout', () => {
    expect(stuckElements([{ elementId: 'a', lastProgressAt: 0, timeoutMs: null, reported: false }], 1e9, 0)).toEqual(
      [],
    );
  });
});

describe(noProgressTimeoutOf.name, () => {
  it('reads the element property, else the global value; 0 means none', () => {
    expect(noProgressTimeoutOf({ noProgressTimeoutMs: '250' }, 0)).toBe(250);
    expect(noProgressTimeoutOf({ noProgressTimeoutMs: -3 }, 900)).toBe(900);
    expect(noProgressTimeoutOf({}, 0)).toBeNull();
  });
});
