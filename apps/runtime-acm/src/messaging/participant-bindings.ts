import { verifyRecordSignature } from '@acm/messaging';
import type { IncomingRecord, SignatureFault } from '@acm/messaging';
import type { ParticipantBindingMap } from '../config/participant-bindings-setting';

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
