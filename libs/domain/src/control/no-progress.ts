/**
 * The no-progress deadline beside the hard one: an element with no ACK or STATUS progress for
 * `noProgressTimeoutMs` is reported (event, metric, a field in GET), never failed, so an operator sees what is
 * stuck long before the hard timeout.
 */
export const NO_PROGRESS_PROPERTY = 'noProgressTimeoutMs';

export interface ElementProgress {
  readonly elementId: string;
  /** Epoch ms of its last ACK, STATUS progress or dispatch. */
  readonly lastProgressAt: number;
  /** Its own `noProgressTimeoutMs`, if it sets one. */
  readonly timeoutMs: number | null;
  /** Whether it was already reported since its last progress (it is reported once per silence). */
  readonly reported: boolean;
}

export interface StuckElement {
  readonly elementId: string;
  readonly silentForMs: number;
  readonly timeoutMs: number;
}

/** The element's own timeout, else the global one; 0 or an invalid value means no such deadline. */
export function noProgressTimeoutOf(properties: Readonly<Record<string, unknown>>, globalMs: number): number | null {
  const raw = properties[NO_PROGRESS_PROPERTY];
  const value = typeof raw === 'number' || typeof raw === 'string' ? Number(raw) : Number.NaN;
  if (Number.isSafeInteger(value) && value > 0) {
    return value;
  }
  return globalMs > 0 ? globalMs : null;
}

/** Elements silent for longer than their no-progress timeout and not yet reported. */
export function stuckElements(elements: readonly ElementProgress[], now: number, globalMs: number): StuckElement[] {
  const stuck: StuckElement[] = [];
  for (const element of elements) {
    const timeoutMs = element.timeoutMs ?? (globalMs > 0 ? globalMs : null);
    if (timeoutMs === null || element.reported) {
      continue;
    }
    const silentForMs = now - element.lastProgressAt;
    if (silentForMs >= timeoutMs) {
      stuck.push({ elementId: element.elementId, silentForMs, timeoutMs });
    }
  }
  return stuck;
}
