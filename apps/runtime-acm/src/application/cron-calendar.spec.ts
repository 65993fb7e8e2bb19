import { judgeWindows, parseWindowRequest } from '@acm/domain';
import type { MaintenanceWindow } from '@acm/domain';
import { CronLibraryCalendar } from './cron-calendar';

const calendar = new CronLibraryCalendar();
const at = (iso: string): number => Date.parse(iso);

function window(overrides: Partial<MaintenanceWindow>): MaintenanceWindow {
  return {
    windowId: 'w',
    name: 'nightly',
    cron: '0 2 * * *',
    durationMs: 3_600_000,
    timeZone: 'Europe/Paris',
    kind: 'allow',
    outside: 'wait',
    scope: { compositionIds: [], metadata: {} },
    createdAt: 0,
    ...overrides,
  };
}

describe('the cron library calendar', () => {
  it('reads an expression in its time zone, at or after the time given', () => {
    // 02:00 in Paris in winter is 01:00 UTC.
    expect(calendar.nextStart('0 2 * * *', 'Europe/Paris', at('2026-12-07T12:00:00Z'))).toBe(
      at('2026-12-08T01:00:00Z'),
    );
    expect(calendar.nextStart('0 2 * * *', 'Europe/Paris', at('2026-12-08T01:00:00Z'))).toBe(
      at('2026-12-08T01:00:00Z'),
    );
    expect(calendar.nextStart('0 2 * * *', 'America/New_York', at('2026-12-07T12:00:00Z'))).toBe(
      at('2026-12-08T07:00:00Z'),
    );
  });

  it('follows daylight saving time: summer and winter offsets, a skipped hour runs after the gap', () => {
    expect(calendar.nextStart('0 2 * * *', 'Europe/Paris', at('2026-07-01T12:00:00Z'))).toBe(
      at('2026-07-02T00:00:00Z'),
    );
    // 29 March 2026: 02:00 does not exist in Paris (clocks go from 02:00 to 03:00): it runs at 03:00 CEST.
    expect(calendar.nextStart('0 2 * * *', 'Europe/Paris', at('2026-03-28T12:00:00Z'))).toBe(
      at('2026-03-29T01:00:00Z'),
    );
    // 25 October 2026: 02:00 happens twice; the window opens once, at the first.
    const first = calendar.nextStart('0 2 * * *', 'Europe/Paris', at('2026-10-24T12:00:00Z'));
    expect(first).toBe(at('2026-10-25T00:00:00Z'));
    expect(calendar.nextStart('0 2 * * *', 'Europe/Paris', first! + 1)).toBe(at('2026-10-26T01:00:00Z'));
  });

  it("answers the library's reason for an expression that does not parse, and knows time zones", () => {
    expect(calendar.problem('0 2 * * SAT')).toBeNull();
    expect(calendar.problem('61 * * * *')).toMatch(/out of range/);
    expect(calendar.knowsTimeZone('Asia/Kolkata')).toBe(true);
    expect(calendar.knowsTimeZone('Mars/Olympus')).toBe(false);
    expect(calendar.knowsTimeZone('')).toBe(false);
  });

  it('drives the window rules: a window in Paris across the spring change', () => {
    const nightly = window({});
    expect(judgeWindows([nightly], at('2026-03-28T01:30:00Z'), calendar).open).toBe(true);
    expect(judgeWindows([nightly], at('2026-03-28T12:00:00Z'), calendar)).toMatchObject({
      open: false,
      nextOpening: at('2026-03-29T01:00:00Z'),
    });
  });

  it('refuses through the rules a cron the library refuses, naming the field and its message', () => {
    expect(() =>
      parseWindowRequest({ name: 'n', cron: '0 25 * * *', duration: '1h', timeZone: 'UTC' }, calendar),
    ).toThrow(/^cron: "0 25 \* \* \*" does not parse: Field value \(25\) is out of range/);
    expect(() =>
      parseWindowRequest({ name: 'n', cron: '0 2 * * *', duration: '1h', timeZone: 'Nowhere' }, calendar),
    ).toThrow(/^timeZone: /);
  });
});
