/**
 * The HTTP participant on any MessageBus: ONAP's participant id, element type and consumer group by default, the
 * handler of `http-element-handler.ts`. `main.ts` runs it on Kafka beside its health route.
 */
import type { ParticipantTopics, Uuid } from '@acm/contracts';
import type { MessageBus, RecordSigningKey } from '@acm/messaging';
import { Participant, nodeTimers } from '@acm/participant-sdk';
import type { ParticipantLogger, ParticipantTimers } from '@acm/participant-sdk';

import {
  HTTP_ELEMENT_TYPE,
  HTTP_PARTICIPANT_GROUP,
  HTTP_PARTICIPANT_ID,
  createHttpElementHandler,
} from './http-element-handler';
import type { SecretSources } from './rest-sequence';

export interface HttpParticipantOptions {
  readonly bus: MessageBus;
  readonly logger: ParticipantLogger;
  /** Default ONAP's `101c62b3-8918-41b9-a747-d21eb79c6c01`. */
  readonly participantId?: Uuid;
  /** Default ONAP's `policy-clamp-ac-http-ppnt`. */
  readonly groupId?: string;
  readonly topics?: ParticipantTopics;
  readonly heartbeatMs?: number;
  readonly secrets: SecretSources;
  readonly signing?: RecordSigningKey;
  /** Heartbeats and retry waits; default Node's timers. */
  readonly timers?: ParticipantTimers;
}

export function createHttpParticipant(options: HttpParticipantOptions): Participant {
  const timers = options.timers ?? nodeTimers;
  return new Participant({
    participantId: options.participantId ?? HTTP_PARTICIPANT_ID,
    groupId: options.groupId ?? HTTP_PARTICIPANT_GROUP,
    supportedElementTypes: [{ ...HTTP_ELEMENT_TYPE }],
    bus: options.bus,
    logger: options.logger,
    timers,
    handler: createHttpElementHandler({ logger: options.logger, timers, secrets: options.secrets }),
    ...(options.topics === undefined ? {} : { topics: options.topics }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.signing === undefined ? {} : { signing: options.signing }),
  });
}
