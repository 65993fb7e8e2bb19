import { CronCalendar } from '@acm/domain';
import { CronTime, validateCronExpression } from 'cron';

/** How many expressions are kept parsed: windows are few, their expressions read on every order. */
const CACHE_LIMIT = 500;

/**
 * The calendar port on the `cron` library (the one @nestjs/schedule runs on; time zones are the platform's Intl data). A local time a DST change skips runs at the first instant after the gap; one it repeats
 * runs once, at its first occurrence.
 */
export class CronLibraryCalendar extends CronCalendar {
  private readonly parsed = new Map<string, CronTime>();

  override problem(cron: string): string | null {
    const result = validateCronExpression(cron);
    return result.valid ? null : (result.error?.message ?? 'not a cron expression');
  }

  override knowsTimeZone(timeZone: string): boolean {
    if (timeZone.trim() === '') {
      return false;
    }
    try {
      new Intl.DateTimeFormat('en', { timeZone });
      return true;
    } catch {
      return false;
    }
  }

  override nextStart(cron: string, timeZone: string, from: number): number | null {
    const key = `${timeZone} ${cron}`;
    let time = this.parsed.get(key);
    if (time === undefined) {
      time = new CronTime(cron, timeZone);
      if (this.parsed.size >= CACHE_LIMIT) {
        this.parsed.clear();
      }
      this.parsed.set(key, time);
    }
    // The library answers the first time strictly after its start, in whole seconds: a millisecond earlier makes it
    // "at or after".
    const next = time.getNextDateFrom(new Date(from - 1), timeZone);
    return next.isValid ? next.toMillis() : null;
  }
}
