/**
 * Defaults of the participant options, chosen to match ONAP's shipped participants.
 */
import type { ParticipantLogger, ParticipantTimers } from './types';

/**
 * ONAP's `reportingTimeIntervalMs` in every shipped participant: heartbeat (STATUS, or REGISTER while not
 * acknowledged) period.
 *
 * @publicApi Default of `heartbeatMs`.
 */
export const DEFAULT_HEARTBEAT_MS = 120_000;

/**
 * How many handled orders (message ids) a participant remembers to recognise redeliveries.
 *
 * @publicApi Default of `idempotenceCapacity`.
 */
export const DEFAULT_IDEMPOTENCE_CAPACITY = 10_000;

/**
 * The ONAP intermediary protocol level this SDK speaks, sent in PARTICIPANT_REGISTER `intermediaryVersion`.
 *
 * @publicApi Default of `intermediaryVersion`.
 */
export const DEFAULT_INTERMEDIARY_VERSION = '9.1.1';

/**
 * The consumer group of a participant's operation-topic subscription: shared by all replicas of one
 * participant, so each order reaches exactly one replica.
 *
 * @publicApi Lets deployments and tests compute the group the SDK will join.
 */
export function defaultGroupId(participantId: string): string {
  return `participant-${participantId}`;
}

/**
 * Warnings and errors to stderr, the rest dropped.
 *
 * @publicApi Default of `logger`; exported so callers can wrap it.
 */
export const consoleParticipantLogger: ParticipantLogger = (level, message, context) => {
  if (level === 'error' || level === 'warn') {
    console.error(`[participant] ${level.toUpperCase()} ${message}`, context ?? '');
  }
};

/**
 * Node's timers, unref'd so a heartbeat alone never keeps a process alive.
 *
 * @publicApi Default of `timers`.
 */
export const nodeTimers: ParticipantTimers = {
  setInterval(callback, ms) {
    const handle = setInterval(callback, ms);
    handle.unref();
    return handle;
  },
  clearInterval(handle) {
    clearInterval(handle as NodeJS.Timeout);
  },
};
