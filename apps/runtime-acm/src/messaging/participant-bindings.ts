import { readFileSync } from 'node:fs';
import { MIN_SIGNING_SECRET_LENGTH, verifyRecordSignature } from '@acm/messaging';
import type { IncomingRecord, RecordSigningKey, SignatureFault } from '@acm/messaging';

/** participantId (lower case) → the principal that alone may speak for it, and the secret it signs with. */
export type ParticipantBindingMap = ReadonlyMap<string, RecordSigningKey>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Reads `PARTICIPANT_BINDINGS`: inline JSON when it starts with `{`, else the path of a JSON file, holding
 * `{ "<participantId>": { "principal": "<name>", "secret": "<at least 32 characters>" }, ... }`. Unset or empty: null
 * (no participant is bound: ONAP's behaviour). Every problem is named; the secret never appears in a message.
 */
export function readParticipantBindings(
  setting: string | undefined,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { bindings: ParticipantBindingMap | null; problems: string[] } {
  const text = setting?.trim() ?? '';
  if (text === '') {
    return { bindings: null, problems: [] };
  }
  const where = text.startsWith('{') ? 'PARTICIPANT_BINDINGS' : `PARTICIPANT_BINDINGS (${text})`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.startsWith('{') ? text : readFile(text)) as unknown;
  } catch (error) {
    return { bindings: null, problems: [`${where}: not readable JSON (${(error as Error).message})`] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { bindings: null, problems: [`${where}: must be a JSON object of participantId → binding`] };
  }
  const problems: string[] = [];
  const bindings = new Map<string, RecordSigningKey>();
  for (const [participantId, binding] of Object.entries(parsed)) {
    const id = participantId.toLowerCase();
    const at = `${where}["${participantId.slice(0, 64)}"]`;
    if (!UUID.test(id)) {
      problems.push(`${at}: the key must be a participantId (a UUID)`);
      continue;
    }
    const principal = (binding as { principal?: unknown } | null)?.principal;
    const secret = (binding as { secret?: unknown } | null)?.secret;
    if (typeof principal !== 'string' || principal.trim() === '' || principal.length > 255) {
      problems.push(`${at}.principal: must be a principal name of 1 to 255 characters`);
    }
    if (typeof secret !== 'string' || secret.length < MIN_SIGNING_SECRET_LENGTH) {
      problems.push(`${at}.secret: must be a string of at least ${MIN_SIGNING_SECRET_LENGTH} characters`);
    }
    if (typeof principal === 'string' && typeof secret === 'string') {
      bindings.set(id, { principal, secret });
    }
  }
  return { bindings: problems.length === 0 ? bindings : null, problems };
}

/** Why a record for a bound participant is refused. */
export type BindingRefusal = SignatureFault | 'replayed';

export type BindingVerdict = { ok: true } | { ok: false; reason: BindingRefusal; principal: string };

/** How many signatures are remembered at most (the oldest are forgotten first; the window forgets them too). */
const REMEMBERED_SIGNATURES = 100_000;

/**
 * Checks records that claim a bound participantId: signed by the bound principal with its secret, signed within
 * `windowMs` of the record's time, and not seen before at another position of the topic (a replay). A record seen
 * again at the same position is Kafka redelivering it (a rebalance, a retried batch) and passes. Records of a
 * participantId that is not bound pass unchecked.
 */
export class ParticipantBindings {
  /** signature → the topic position it was first seen at, and its signing time; in insertion order. */
  private readonly seen = new Map<string, { position: string; signedAtMs: number }>();

  constructor(
    private readonly bindings: ParticipantBindingMap,
    private readonly windowMs: number,
  ) {}

  check(record: IncomingRecord, participantId: string): BindingVerdict {
    const binding = this.bindings.get(participantId.toLowerCase());
    if (binding === undefined) {
      return { ok: true };
    }
    const verified = verifyRecordSignature(record, binding, this.windowMs);
    if (!verified.ok) {
      return { ok: false, reason: verified.fault, principal: binding.principal };
    }
    const position = `${record.topic}/${record.partition}@${record.offset}`;
    const earlier = this.seen.get(verified.signature);
    if (earlier !== undefined) {
      return earlier.position === position
        ? { ok: true }
        : { ok: false, reason: 'replayed', principal: binding.principal };
    }
    this.remember(verified.signature, position, verified.signedAtMs);
    return { ok: true };
  }

  private remember(signature: string, position: string, signedAtMs: number): void {
    this.seen.set(signature, { position, signedAtMs });
    // A signature older than the window cannot pass the time check again, so it need not be remembered; the
    // capacity bounds the memory when records arrive faster than the window forgets them.
    for (const [oldest, entry] of this.seen) {
      if (this.seen.size <= REMEMBERED_SIGNATURES && entry.signedAtMs >= signedAtMs - 2 * this.windowMs) {
        break;
      }
      this.seen.delete(oldest);
    }
  }
}
