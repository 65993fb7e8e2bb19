/**
 * Admission of participant registrations. Anyone who can write to the operation topic can register, so new
 * participants and new replicas are bounded and rate-limited; a replica the runtime already knows always passes,
 * so heartbeats and re-registrations of a running fleet are never refused.
 */

export interface RegistrationLimits {
  /** Participants the runtime records at most (those with at least one ON_LINE replica). */
  readonly maxParticipants: number;
  /** ON_LINE replicas one participant may have at most. */
  readonly maxReplicasPerParticipant: number;
  /** New registrations (a new participant or a new replica) admitted per window. */
  readonly registrationsPerWindow: number;
  /** Length of the rate window, in milliseconds. */
  readonly windowMs: number;
}

/** The fixed window the rate is counted in. */
export interface RegistrationWindow {
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly admitted: number;
  readonly refused: number;
}

export type RegistrationRefusal = 'RATE_LIMITED' | 'TOO_MANY_PARTICIPANTS' | 'TOO_MANY_REPLICAS';

export interface RegistrationRequest {
  /** The participant has a row already (it registered before, possibly with other replicas). */
  readonly participantKnown: boolean;
  /** This very replica has a row already: a heartbeat or a repeated REGISTER. */
  readonly replicaKnown: boolean;
  /** Participants with at least one ON_LINE replica, this one included when it has one. */
  readonly participantsOnline: number;
  /** ON_LINE replicas of this participant. */
  readonly replicasOnline: number;
}

export interface RegistrationDecision {
  /** null when admitted. */
  readonly refusal: RegistrationRefusal | null;
  readonly window: RegistrationWindow;
  /** True for the first refusal of the window: the caller logs that one only, however many a flood sends. */
  readonly firstRefusalInWindow: boolean;
}

export const NO_REGISTRATION_WINDOW: RegistrationWindow = {
  startedAt: Number.NEGATIVE_INFINITY,
  admitted: 0,
  refused: 0,
};

/** Decides one registration at `now`; pure, the caller keeps the returned window for the next call. */
export function decideRegistration(
  limits: RegistrationLimits,
  previous: RegistrationWindow,
  request: RegistrationRequest,
  now: number,
): RegistrationDecision {
  const expired = now - previous.startedAt >= limits.windowMs;
  const window = expired ? { startedAt: now, admitted: 0, refused: 0 } : previous;
  if (request.replicaKnown) {
    return { refusal: null, window, firstRefusalInWindow: false };
  }
  const refusal = refusalOf(limits, window, request);
  if (refusal === null) {
    return { refusal, window: { ...window, admitted: window.admitted + 1 }, firstRefusalInWindow: false };
  }
  return {
    refusal,
    window: { ...window, refused: window.refused + 1 },
    firstRefusalInWindow: window.refused === 0,
  };
}

function refusalOf(
  limits: RegistrationLimits,
  window: RegistrationWindow,
  request: RegistrationRequest,
): RegistrationRefusal | null {
  if (!request.participantKnown && request.participantsOnline >= limits.maxParticipants) {
    return 'TOO_MANY_PARTICIPANTS';
  }
  if (request.replicasOnline >= limits.maxReplicasPerParticipant) {
    return 'TOO_MANY_REPLICAS';
  }
  if (window.admitted >= limits.registrationsPerWindow) {
    return 'RATE_LIMITED';
  }
  return null;
}
