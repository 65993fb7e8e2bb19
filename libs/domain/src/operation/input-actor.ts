import type { Actor, RequestActor } from '../history/actor';
import { runtimeActor } from '../history/actor';
import type { DefinitionInput } from './definition-operation';
import type { InstanceInput } from './instance-operation';

/**
 * Who caused a step, by its input: an order, a cancel, a pause, a resume or a signal is a request (`request`: the
 * caller's principal and request id, both null when the engine is called with no request, as tests do); an ACK is
 * its participant's (the runtime's own for a wait condition); everything else is one of the runtime's rules.
 */
export function actorOfInput(input: InstanceInput | DefinitionInput, request: RequestActor | null): Actor {
  switch (input.kind) {
    case 'ORDER':
      return 'heal' in input && input.heal !== undefined ? runtimeActor('healing') : requestedBy(request);
    case 'CANCEL':
    case 'PAUSE':
    case 'RESUME':
    case 'SIGNAL':
      return requestedBy(request);
    case 'ACK':
      return input.ack.participantId === null
        ? runtimeActor('wait-condition')
        : { kind: 'participant', participantId: input.ack.participantId, replicaId: input.ack.replicaId };
    case 'TICK':
      return runtimeActor('timeout');
    case 'SUPERVISE':
      return runtimeActor('supervision');
    case 'SLOTS':
      return runtimeActor('slots');
    case 'REPLICA_LOST':
      return runtimeActor('hand-over');
    case 'CHILD_ENDED':
      return runtimeActor('nested-composition');
  }
}

/** The actor of what a request did: the request's own, or one with no principal or id when none is known. */
export function requestedBy(request: RequestActor | null): RequestActor {
  return request ?? { kind: 'request', user: null, requestId: null };
}
