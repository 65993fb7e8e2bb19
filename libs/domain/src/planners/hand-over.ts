/** What supervision knows about one participant's share of an open phase message. */
export interface HandOverInput {
  /** The replicas of the participant that answered the message: one of them took its work. */
  readonly answeredBy: readonly string[];
  /** The participant's replicas judged silent: OFF_LINE, or not answering a STATUS request. */
  readonly silent: ReadonlySet<string>;
  /** The participant's replicas that ever answered any message (did any work). */
  readonly workers: ReadonlySet<string>;
}

/**
 * Whether a participant's unfinished elements of an open phase are handed to its other replicas. The
 * message is sent again with its original messageId, so a replica that already took it only repeats its
 * ACKs (the SDK deduplicates by messageId); it is sent only when whoever took it is silent. When nobody
 * answered it yet, the taker is unknown: only a silent replica that did work before may have taken it,
 * so a replica that never did any work (a stray REGISTER) never causes a resend.
 */
export function needsHandOver(input: HandOverInput): boolean {
  if (input.answeredBy.length > 0) {
    return input.answeredBy.every((replicaId) => input.silent.has(replicaId));
  }
  return [...input.silent].some((replicaId) => input.workers.has(replicaId));
}
