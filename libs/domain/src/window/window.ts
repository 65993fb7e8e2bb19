import { DomainError } from '../errors';
import type { CronCalendar } from '../ports/cron-calendar.port';

/**
 * Maintenance windows: when orders may change instances. A window opens at each time its cron expression names (in
 * its time zone) and stays open for its duration. An `allow` window lets orders through while it is open; a `deny`
 * window holds them while it is open. Orders to an instance in the scope of allow windows wait (or are refused) until
 * one of them opens; a deny window wins over an allow window. These rules are pure: the time and the calendar that
 * reads cron expressions arrive as arguments.
 */

export const WINDOW_KINDS = ['allow', 'deny'] as const;
export type WindowKind = (typeof WINDOW_KINDS)[number];

/** What an order outside an allowed window does: wait for the next opening, or be refused with it. */
export const WINDOW_OUTSIDE = ['wait', 'refuse'] as const;
export type WindowOutside = (typeof WINDOW_OUTSIDE)[number];

/** The instances a window applies to: every condition given must hold; an empty scope applies to every instance. */
export interface WindowScope {
  /** The instance's composition is one of these; empty: any composition. */
  readonly compositionIds: readonly string[];
  /** The instance's metadata has each key with this value; empty: any metadata. */
  readonly metadata: Readonly<Record<string, string>>;
}

export interface MaintenanceWindow {
  readonly windowId: string;
  readonly name: string;
  readonly cron: string;
  readonly durationMs: number;
  readonly timeZone: string;
  readonly kind: WindowKind;
  readonly outside: WindowOutside;
  readonly scope: WindowScope;
  readonly createdAt: number;
}

export type WindowRequest = Omit<MaintenanceWindow, 'windowId' | 'createdAt'>;

/** What windows are judged against: an instance's composition and metadata. */
export interface WindowTarget {
  readonly compositionId: string;
  readonly metadata: Readonly<Record<string, unknown>> | null;
}

/** The verdict of the windows at a time. */
export type WindowVerdict =
  | { readonly open: true; readonly windows: readonly string[] }
  | {
      readonly open: false;
      /** The names of the windows that hold the order: the deny windows open, or the allow windows all closed. */
      readonly blockedBy: readonly string[];
      readonly why: 'deny-window-open' | 'outside-allow-windows';
      /** `refuse` when any window holding the order refuses, `wait` otherwise. */
      readonly outside: WindowOutside;
      /** When the order may next go (epoch ms); null when no opening is found within a year. */
      readonly nextOpening: number | null;
      /** The names of every window in scope. */
      readonly windows: readonly string[];
    };

/** How far ahead a next opening is looked for. */
export const WINDOW_HORIZON_MS = 366 * 86_400_000;
/**
 * How many window edges a next-opening search visits at most: a deny window whose occurrences overlap (every minute
 * for an hour) gives no answer rather than a long search; real windows open a few times a day at most.
 */
const MAX_EDGES = 400;
/** Longest window: a week. */
const MAX_DURATION_MS = 7 * 86_400_000;

// ---------------------------------------------------------------- request validation

function invalid(message: string, details: Readonly<Record<string, unknown>> = {}): DomainError {
  return new DomainError('VALIDATION_FAILED', message, details);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** A duration as "2h", "90m", "1h30m", "1d" or a number of seconds, in milliseconds. */
export function parseWindowDuration(value: unknown): number {
  let ms: number | null = null;
  if (typeof value === 'number' && Number.isInteger(value)) {
    ms = value * 1000;
  } else if (typeof value === 'string' && value !== '') {
    const match = DURATION.exec(value.trim());
    if (match !== null) {
      const [days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
      ms = (((days! * 24 + hours!) * 60 + minutes!) * 60 + seconds!) * 1000;
    }
  }
  if (ms === null) {
    throw invalid(
      `duration: must be a number of seconds or a duration like "2h", "90m" or "1h30m", got ${JSON.stringify(value)}`,
    );
  }
  if (ms < 60_000 || ms > MAX_DURATION_MS) {
    throw invalid(`duration: must be from 1 minute to 7 days, got ${JSON.stringify(value)}`);
  }
  return ms;
}

function parseScope(value: unknown): WindowScope {
  if (value === undefined || value === null) {
    return { compositionIds: [], metadata: {} };
  }
  if (!isRecord(value)) {
    throw invalid('scope: must be an object with compositionIds and/or metadata');
  }
  const ids = value['compositionIds'] ?? [];
  if (!Array.isArray(ids)) {
    throw invalid('scope.compositionIds: must be a list of composition ids');
  }
  const compositionIds = ids.map((id: unknown, index) => {
    if (typeof id !== 'string' || !UUID.test(id)) {
      throw invalid(`scope.compositionIds[${index}]: must be a uuid, got ${JSON.stringify(id)}`);
    }
    return id.toLowerCase();
  });
  const rawMetadata = value['metadata'] ?? {};
  if (!isRecord(rawMetadata)) {
    throw invalid('scope.metadata: must be an object of metadata keys and the values they must have');
  }
  const metadata: Record<string, string> = {};
  for (const [key, item] of Object.entries(rawMetadata)) {
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
      throw invalid(`scope.metadata.${key}: must be a string, number or boolean, got ${JSON.stringify(item)}`);
    }
    metadata[key] = String(item);
  }
  return { compositionIds, metadata };
}

/** Reads a window request body; every refusal names the field, a cron that does not parse with the calendar's reason. */
export function parseWindowRequest(body: unknown, calendar: CronCalendar): WindowRequest {
  if (!isRecord(body)) {
    throw invalid('body: must be an object with name, cron, duration, timeZone and kind');
  }
  const name = body['name'];
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) {
    throw invalid(`name: must be a name of 1 to 200 characters, got ${JSON.stringify(name)}`);
  }
  const cron = body['cron'];
  if (typeof cron !== 'string' || cron.trim() === '') {
    throw invalid(`cron: must be a cron expression such as "0 2 * * SAT", got ${JSON.stringify(cron)}`);
  }
  const problem = calendar.problem(cron.trim());
  if (problem !== null) {
    throw invalid(`cron: ${JSON.stringify(cron)} does not parse: ${problem}`, { field: 'cron' });
  }
  const timeZone = body['timeZone'] ?? 'UTC';
  if (typeof timeZone !== 'string' || !calendar.knowsTimeZone(timeZone)) {
    throw invalid(`timeZone: must be an IANA time zone such as "Europe/Paris", got ${JSON.stringify(timeZone)}`, {
      field: 'timeZone',
    });
  }
  const kind = body['kind'] ?? 'allow';
  if (!(WINDOW_KINDS as readonly unknown[]).includes(kind)) {
    throw invalid(`kind: must be one of ${WINDOW_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  }
  const outside = body['outside'] ?? 'wait';
  if (!(WINDOW_OUTSIDE as readonly unknown[]).includes(outside)) {
    throw invalid(`outside: must be one of ${WINDOW_OUTSIDE.join(', ')}, got ${JSON.stringify(outside)}`);
  }
  return {
    name: name.trim(),
    cron: cron.trim(),
    durationMs: parseWindowDuration(body['duration']),
    timeZone,
    kind: kind as WindowKind,
    outside: outside as WindowOutside,
    scope: parseScope(body['scope']),
  };
}

// ---------------------------------------------------------------- arithmetic

/** Whether a window applies to the target: its composition listed (or none listed) and each metadata key matching. */
export function windowApplies(window: MaintenanceWindow, target: WindowTarget): boolean {
  const { compositionIds, metadata } = window.scope;
  if (compositionIds.length > 0 && !compositionIds.includes(target.compositionId.toLowerCase())) {
    return false;
  }
  return Object.entries(metadata).every(([key, value]) => {
    const actual = target.metadata?.[key];
    return (
      (typeof actual === 'string' || typeof actual === 'number' || typeof actual === 'boolean') &&
      String(actual) === value
    );
  });
}

/** The windows that apply to any of the targets. */
export function windowsFor(
  windows: readonly MaintenanceWindow[],
  targets: readonly WindowTarget[],
): MaintenanceWindow[] {
  return windows.filter((window) => targets.some((target) => windowApplies(window, target)));
}

/** The start of an occurrence of the window open at `at` (the earliest such), or null when it is closed. */
export function openedAt(window: MaintenanceWindow, at: number, calendar: CronCalendar): number | null {
  const start = calendar.nextStart(window.cron, window.timeZone, at - window.durationMs + 1);
  return start !== null && start <= at ? start : null;
}

interface Blocked {
  readonly denying: MaintenanceWindow[];
  /** The deny windows' latest end among the occurrences open now; the earliest time worth looking again. */
  readonly retryAt: number | null;
}

function blockedAt(windows: readonly MaintenanceWindow[], at: number, calendar: CronCalendar): Blocked | 'open' {
  const deny = windows.filter((window) => window.kind === 'deny');
  const allow = windows.filter((window) => window.kind === 'allow');
  const denying: MaintenanceWindow[] = [];
  let retryAt: number | null = null;
  for (const window of deny) {
    const start = openedAt(window, at, calendar);
    if (start !== null) {
      denying.push(window);
      retryAt = Math.max(retryAt ?? 0, start + window.durationMs);
    }
  }
  if (denying.length > 0) {
    return { denying, retryAt };
  }
  if (allow.length === 0 || allow.some((window) => openedAt(window, at, calendar) !== null)) {
    return 'open';
  }
  let next: number | null = null;
  for (const window of allow) {
    const start = calendar.nextStart(window.cron, window.timeZone, at + 1);
    if (start !== null) {
      next = next === null ? start : Math.min(next, start);
    }
  }
  return { denying: [], retryAt: next };
}

/** The first time at or after `from` when the windows let an order through; null when none within the horizon. */
export function nextOpening(
  windows: readonly MaintenanceWindow[],
  from: number,
  calendar: CronCalendar,
): number | null {
  let at = from;
  for (let edge = 0; edge < MAX_EDGES && at <= from + WINDOW_HORIZON_MS; edge += 1) {
    const blocked = blockedAt(windows, at, calendar);
    if (blocked === 'open') {
      return at;
    }
    if (blocked.retryAt === null || blocked.retryAt <= at) {
      return null;
    }
    at = blocked.retryAt;
  }
  return null;
}

/** The windows' verdict at `at` for an order: let through, or held by which windows until when. */
export function judgeWindows(windows: readonly MaintenanceWindow[], at: number, calendar: CronCalendar): WindowVerdict {
  const names = windows.map((window) => window.name);
  const blocked = blockedAt(windows, at, calendar);
  if (blocked === 'open') {
    return { open: true, windows: names };
  }
  const holding = blocked.denying.length > 0 ? blocked.denying : windows.filter((window) => window.kind === 'allow');
  return {
    open: false,
    blockedBy: holding.map((window) => window.name),
    why: blocked.denying.length > 0 ? 'deny-window-open' : 'outside-allow-windows',
    outside: holding.some((window) => window.outside === 'refuse') ? 'refuse' : 'wait',
    nextOpening: nextOpening(windows, at, calendar),
    windows: names,
  };
}

/** A sentence for a held order: which windows hold it (the time of the next opening is the caller's to format). */
export function describeHold(verdict: Extract<WindowVerdict, { open: false }>): string {
  const names = verdict.blockedBy.map((name) => JSON.stringify(name)).join(', ');
  return verdict.why === 'deny-window-open'
    ? `deny window ${names} is open`
    : `outside the allow window${verdict.blockedBy.length === 1 ? '' : 's'} ${names}`;
}
