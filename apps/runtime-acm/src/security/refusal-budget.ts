/** Refusals recorded per source address and minute; the rest are counted and reported with the next one recorded. */
export const REFUSALS_PER_MINUTE = 30;

/** Sources remembered at most; past it the oldest windows are forgotten (their uncounted refusals with them). */
export const REFUSAL_SOURCES = 10_000;

const MINUTE_MS = 60_000;

interface Window {
  startedAt: number;
  recorded: number;
  /** Refusals left unrecorded since the last one recorded. */
  unrecorded: number;
}

/**
 * Bounds what refused requests write to the ledger: a client that guesses passwords in a loop (or a misconfigured
 * script) must not fill the database. Per source, one window of a minute from its first refusal; the time is given.
 */
export class RefusalBudget {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly perMinute: number = REFUSALS_PER_MINUTE,
    private readonly maxSources: number = REFUSAL_SOURCES,
  ) {}

  /** Whether to record this refusal and, if so, how many of the same source were left unrecorded before it. */
  admit(source: string, now: number): { record: true; unrecorded: number } | { record: false } {
    let window = this.windows.get(source);
    if (window !== undefined && now - window.startedAt >= MINUTE_MS) {
      window = { startedAt: now, recorded: 0, unrecorded: window.unrecorded };
      this.windows.set(source, window);
    }
    if (window === undefined) {
      if (this.windows.size >= this.maxSources) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) {
          this.windows.delete(oldest);
        }
      }
      window = { startedAt: now, recorded: 0, unrecorded: 0 };
      this.windows.set(source, window);
    }
    if (window.recorded >= this.perMinute) {
      window.unrecorded += 1;
      return { record: false };
    }
    window.recorded += 1;
    const unrecorded = window.unrecorded;
    window.unrecorded = 0;
    return { record: true, unrecorded };
  }
}
