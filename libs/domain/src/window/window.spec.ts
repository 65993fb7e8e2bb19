import { DomainError } from '../errors';
import { CronCalendar } from '../ports/cron-calendar.port';
import type { MaintenanceWindow } from './window';
import {
  judgeWindows,
  nextOpening,
  parseWindowDuration,
  parseWindowRequest,
  windowApplies,
  windowsFor,
} from './window';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2026-12-07T00:00:00Z, a Monday. */
const MONDAY = 1_796_601_600_000;

/** A calendar that reads only "M H * * *" (daily, UTC): enough to test the rules without a cron library. */
class DailyCalendar extends CronCalendar {
  override problem(cron: string): string | null {
    return /^\d+ \d+ \* \* \*$/.test(cron) ? null : 'only "M H * * *" is known here';
  }
  override knowsTimeZone(timeZone: string): boolean {
    return timeZone === 'UTC';
  }
  override nextStart(cron: string, _timeZone: string, from: number): number | null {
    const [minute, hour] = cron.split(' ').map(Number);
    const dayStart = Math.floor(from / DAY) * DAY;
    const today = dayStart + hour! * HOUR + minute! * 60_000;
    return today >= from ? today : today + DAY;
  }
}

const calendar = new DailyCalendar();

function window(overrides: Partial<MaintenanceWindow>): MaintenanceWindow {
  return {
    windowId: 'w',
    name: 'nightly',
    cron: '0 2 * * *',
    durationMs: 2 * HOUR,
    timeZone: 'UTC',
    kind: 'allow',
    outside: 'wait',
    scope: { compositionIds: [], metadata: {} },
    createdAt: 0,
    ...overrides,
  };
}

describe('maintenance windows', () => {
  describe('an allow window', () => {
    const nightly = window({});

    it('lets orders through from its start to just before its end', () => {
      expect(judgeWindows([nightly], MONDAY + 2 * HOUR, calendar).open).toBe(true);
      expect(judgeWindows([nightly], MONDAY + 4 * HOUR - 1, calendar).open).toBe(true);
    });

    it('holds orders outside it until its next start', () => {
      const verdict = judgeWindows([nightly], MONDAY + 4 * HOUR, calendar);
      expect(verdict).toEqual({
        open: false,
        blockedBy: ['nightly'],
        why: 'outside-allow-windows',
        outside: 'wait',
        nextOpening: MONDAY + DAY + 2 * HOUR,
        windows: ['nightly'],
      });
      expect(judgeWindows([nightly], MONDAY + HOUR, calendar)).toMatchObject({ nextOpening: MONDAY + 2 * HOUR });
    });

    it('refuses when the window says so', () => {
      expect(judgeWindows([window({ outside: 'refuse' })], MONDAY, calendar)).toMatchObject({ outside: 'refuse' });
    });

    it('opens at the earliest of several allow windows', () => {
      const early = window({ name: 'early', cron: '0 5 * * *' });
      expect(nextOpening([nightly, early], MONDAY + 4 * HOUR, calendar)).toBe(MONDAY + 5 * HOUR);
      expect(judgeWindows([nightly, early], MONDAY + 6 * HOUR, calendar).open).toBe(true);
    });
  });

  describe('a deny window', () => {
    const freeze = window({ name: 'freeze', kind: 'deny', cron: '0 9 * * *', durationMs: 8 * HOUR });

    it('holds orders while open and lets them through at its end', () => {
      expect(judgeWindows([freeze], MONDAY + 8 * HOUR, calendar).open).toBe(true);
      expect(judgeWindows([freeze], MONDAY + 10 * HOUR, calendar)).toMatchObject({
        open: false,
        blockedBy: ['freeze'],
        why: 'deny-window-open',
        nextOpening: MONDAY + 17 * HOUR,
      });
    });

    it('wins over an allow window open at the same time, which must still be open at the deny end', () => {
      const day = window({ name: 'day', cron: '0 8 * * *', durationMs: 12 * HOUR });
      expect(judgeWindows([day, freeze], MONDAY + 12 * HOUR, calendar)).toMatchObject({
        open: false,
        blockedBy: ['freeze'],
        nextOpening: MONDAY + 17 * HOUR,
      });
      const morning = window({ name: 'morning', cron: '0 8 * * *', durationMs: 4 * HOUR });
      // The allow window closes before the freeze ends: the next opening is tomorrow's allow window.
      expect(nextOpening([morning, freeze], MONDAY + 10 * HOUR, calendar)).toBe(MONDAY + DAY + 8 * HOUR);
    });

    it('chains overlapping deny windows', () => {
      const second = window({ name: 'second', kind: 'deny', cron: '0 16 * * *', durationMs: 3 * HOUR });
      expect(nextOpening([freeze, second], MONDAY + 10 * HOUR, calendar)).toBe(MONDAY + 19 * HOUR);
    });

    it('answers no opening when a deny window never closes within the horizon', () => {
      const always = window({ name: 'always', kind: 'deny', cron: '0 0 * * *', durationMs: DAY });
      expect(judgeWindows([always], MONDAY + HOUR, calendar)).toMatchObject({ open: false, nextOpening: null });
    });
  });

  it('lets everything through without windows', () => {
    expect(judgeWindows([], MONDAY, calendar)).toEqual({ open: true, windows: [] });
  });

  describe('scope', () => {
    const composition = '11111111-1111-1111-1111-111111111111';
    const other = '22222222-2222-2222-2222-222222222222';
    const scoped = window({ scope: { compositionIds: [composition], metadata: { site: 'prod' } } });

    it('applies to the compositions listed and the metadata given', () => {
      expect(windowApplies(scoped, { compositionId: composition, metadata: { site: 'prod' } })).toBe(true);
      expect(windowApplies(scoped, { compositionId: composition, metadata: { site: 'dev' } })).toBe(false);
      expect(windowApplies(scoped, { compositionId: composition, metadata: null })).toBe(false);
      expect(windowApplies(scoped, { compositionId: other, metadata: { site: 'prod' } })).toBe(false);
      expect(windowsFor([scoped, window({ name: 'all' })], [{ compositionId: other, metadata: null }])).toEqual([
        expect.objectContaining({ name: 'all' }),
      ]);
    });
  });

  describe('requests', () => {
    const valid = { name: 'nightly', cron: '0 2 * * *', duration: '2h', timeZone: 'UTC', kind: 'deny' };

    it('reads a valid request with defaults', () => {
      expect(parseWindowRequest({ ...valid, scope: { metadata: { site: 'prod', tier: 1 } } }, calendar)).toEqual({
        name: 'nightly',
        cron: '0 2 * * *',
        durationMs: 2 * HOUR,
        timeZone: 'UTC',
        kind: 'deny',
        outside: 'wait',
        scope: { compositionIds: [], metadata: { site: 'prod', tier: '1' } },
      });
    });

    it.each([
      [{ ...valid, cron: 'every night' }, /^cron: "every night" does not parse: only/],
      [{ ...valid, timeZone: 'Mars/Olympus' }, /^timeZone: must be an IANA time zone/],
      [{ ...valid, kind: 'maybe' }, /^kind: must be one of allow, deny/],
      [{ ...valid, outside: 'later' }, /^outside: must be one of wait, refuse/],
      [{ ...valid, duration: '2 hours' }, /^duration: must be a number of seconds/],
      [{ ...valid, duration: 10 }, /^duration: must be from 1 minute to 7 days/],
      [{ ...valid, name: '' }, /^name: /],
      [{ ...valid, scope: { compositionIds: ['x'] } }, /^scope.compositionIds\[0\]: must be a uuid/],
      [{ ...valid, scope: { metadata: { site: {} } } }, /^scope.metadata.site: /],
      [[], /^body: /],
    ])('refuses %j naming the field', (body, message) => {
      let thrown: unknown;
      try {
        parseWindowRequest(body, calendar);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DomainError);
      expect((thrown as DomainError).code).toBe('VALIDATION_FAILED');
      expect((thrown as DomainError).message).toMatch(message);
    });

    it('reads durations', () => {
      expect(parseWindowDuration('1h30m')).toBe(90 * 60_000);
      expect(parseWindowDuration('1d')).toBe(DAY);
      expect(parseWindowDuration(3600)).toBe(HOUR);
    });
  });
});
