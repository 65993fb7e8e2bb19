/**
 * Why the runtime itself recorded an event: the rule that fired. `supervision` is a supervision pass whose event
 * no narrower rule names.
 */
export const RUNTIME_RULES = [
  'timeout',
  'resend',
  'retry',
  'no-progress',
  'slots',
  'hand-over',
  'wait-condition',
  'nested-composition',
  'supervision',
  'rollout',
  'healing',
  'approval-expiry',
] as const;
export type RuntimeRule = (typeof RUNTIME_RULES)[number];

/** A REST request: its authenticated principal (the HTTP Basic user; null for a signed signal URL) and request id. */
export interface RequestActor {
  readonly kind: 'request';
  readonly user: string | null;
  /** X-ONAP-RequestID, the caller's or the one the runtime answered with. */
  readonly requestId: string | null;
}

/** A participant's answer (an ACK). */
export interface ParticipantActor {
  readonly kind: 'participant';
  readonly participantId: string;
  readonly replicaId: string | null;
}

/** The runtime itself, by one of its rules (a deadline, a resend, a retry, a free slot, a lost replica, ...). */
export interface RuntimeActor {
  readonly kind: 'runtime';
  readonly rule: RuntimeRule;
}

/** An event recorded before the runtime recorded who caused each event. */
export interface UnrecordedActor {
  readonly kind: 'unrecorded';
}

/** Who caused a history event. */
export type Actor = RequestActor | ParticipantActor | RuntimeActor | UnrecordedActor;

export const ACTOR_KINDS = ['request', 'participant', 'runtime', 'unrecorded'] as const satisfies ReadonlyArray<
  Actor['kind']
>;

export function runtimeActor(rule: RuntimeRule): RuntimeActor {
  return { kind: 'runtime', rule };
}
