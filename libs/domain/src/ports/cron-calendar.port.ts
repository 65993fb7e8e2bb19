/**
 * Reads cron expressions in a time zone. A cron library computes with dates and time zone data, which the pure domain
 * must not touch, so it stays behind this port; the window rules only ask for the next start.
 */
export abstract class CronCalendar {
  /** Why the expression does not parse (the library's message); null when it parses. */
  abstract problem(cron: string): string | null;
  /** Whether the zone is a known IANA time zone. */
  abstract knowsTimeZone(timeZone: string): boolean;
  /** The first time the expression names at or after `from` (epoch ms) in the zone; null when there is none. */
  abstract nextStart(cron: string, timeZone: string, from: number): number | null;
}
