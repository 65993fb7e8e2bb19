import type { RegistrationLimits, RegistrationRequest, RegistrationWindow } from './registration-limit';
import { NO_REGISTRATION_WINDOW, decideRegistration } from './registration-limit';

const LIMITS: RegistrationLimits = {
  maxParticipants: 3,
  maxReplicasPerParticipant: 2,
  registrationsPerWindow: 2,
  windowMs: 1000,
};
const NEW_PARTICIPANT: RegistrationRequest = {
  participantKnown: false,
  replicaKnown: false,
  participantsOnline: 0,
  replicasOnline: 0,
};

/** Runs requests one after another at the given times, threading the window through. */
function run(requests: Array<[number, RegistrationRequest]>): Array<{ refusal: string | null; first: boolean }> {
  let window: RegistrationWindow = NO_REGISTRATION_WINDOW;
  return requests.map(([now, request]) => {
    const decision = decideRegistration(LIMITS, window, request, now);
    window = decision.window;
    return { refusal: decision.refusal, first: decision.firstRefusalInWindow };
  });
}

describe('decideRegistration', () => {
  it('admits new registrations up to the rate of a window, then refuses until the next window', () => {
    expect(
      run([
        [0, NEW_PARTICIPANT],
        [10, NEW_PARTICIPANT],
        [20, NEW_PARTICIPANT],
        [999, NEW_PARTICIPANT],
        [1000, NEW_PARTICIPANT],
      ]),
    ).toEqual([
      { refusal: null, first: false },
      { refusal: null, first: false },
      { refusal: 'RATE_LIMITED', first: true },
      { refusal: 'RATE_LIMITED', first: false },
      { refusal: null, first: false },
    ]);
  });

  it('always admits a replica it knows, and does not count it against the rate', () => {
    const known = { ...NEW_PARTICIPANT, participantKnown: true, replicaKnown: true, replicasOnline: 5 };
    expect(run([0, 1, 2, 3].map((at): [number, RegistrationRequest] => [at, known])).map((d) => d.refusal)).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(
      run([
        [0, known],
        [1, known],
        [2, NEW_PARTICIPANT],
        [3, NEW_PARTICIPANT],
      ]).map((d) => d.refusal),
    ).toEqual([null, null, null, null]);
  });

  it('bounds the participants online: a new one is refused, a known one gets a new replica', () => {
    const full = { ...NEW_PARTICIPANT, participantsOnline: 3 };
    expect(run([[0, full]])).toEqual([{ refusal: 'TOO_MANY_PARTICIPANTS', first: true }]);
    expect(run([[0, { ...full, participantKnown: true }]])).toEqual([{ refusal: null, first: false }]);
  });

  it('bounds the replicas online of one participant', () => {
    const request = { ...NEW_PARTICIPANT, participantKnown: true, participantsOnline: 1, replicasOnline: 2 };
    expect(run([[0, request]])).toEqual([{ refusal: 'TOO_MANY_REPLICAS', first: true }]);
    expect(run([[0, { ...request, replicasOnline: 1 }]])).toEqual([{ refusal: null, first: false }]);
  });

  it('marks only the first refusal of each window, whatever the reason', () => {
    const full = { ...NEW_PARTICIPANT, participantsOnline: 3 };
    expect(
      run([
        [0, full],
        [1, full],
        [2, NEW_PARTICIPANT],
        [1500, full],
      ]).map((d) => d.first),
    ).toEqual([true, false, false, true]);
  });
});
