/**
 * When the supervision scan runs next. Deadlines, retries, resends and no-progress reports fire on time by their own
 * timer (`supervision-due.ts`); the scan is the safety net beside it, and it also marks silent participant replicas
 * OFF_LINE and sends what a crash left in the outbox. While an operation is in flight it runs every heartbeat. With
 * none, what is left for it is the silent replicas and work another replica starts: it then sleeps a fifth of the
 * time a replica may stay silent (so one is marked OFF_LINE at most that much late), at most IDLE_SCAN_HEARTBEATS
 * heartbeats and a minute, never less than one heartbeat. A commit of this runtime that starts work wakes it back to
 * the heartbeat at once; work another replica starts is seen at this one's next scan (that replica supervises it
 * meanwhile).
 */

/** The longest an idle scan sleeps, whatever the settings. */
export const IDLE_SCAN_CAP_MS = 60_000;

/** The longest an idle scan sleeps, in heartbeats: a short HEART_BEAT (a test's, a demo's) keeps a short idle scan. */
export const IDLE_SCAN_HEARTBEATS = 6;

export interface ScanSettings {
  /** HEART_BEAT: the scan period while work is in flight. */
  readonly heartBeatMs: number;
  /** MAX_STATUS_WAIT: a replica silent for longer is OFF_LINE. */
  readonly maxStatusWaitMs: number;
}

/** The scan period with nothing in flight. */
export function idleScanPeriodMs(settings: ScanSettings): number {
  const longest = Math.min(IDLE_SCAN_CAP_MS, IDLE_SCAN_HEARTBEATS * settings.heartBeatMs);
  return Math.max(settings.heartBeatMs, Math.min(longest, Math.floor(settings.maxStatusWaitMs / 5)));
}

/** The wait before the next scan, given whether an operation is in flight (unknown counts as in flight). */
export function nextScanDelayMs(settings: ScanSettings, workInFlight: boolean): number {
  return workInFlight ? settings.heartBeatMs : idleScanPeriodMs(settings);
}
