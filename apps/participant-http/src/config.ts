/**
 * The HTTP participant process's configuration, read once from environment variables (docs/participant-http.md).
 * The defaults are ONAP's http participant's (application.yaml of participant-impl-http): its participant id,
 * consumer group, port 6969, the health route's Basic credentials. An invalid value stops the start-up with a
 * message that names the variable.
 */
import type { Environment, ParticipantEnvironment } from '@acm/participant-sdk';
import { envInteger, envText, readParticipantEnvironment } from '@acm/participant-sdk';

import { HTTP_PARTICIPANT_GROUP, HTTP_PARTICIPANT_ID } from './http-element-handler';

/** ONAP's `spring.security.user` of the http participant (`HTTP_USER` / `HTTP_PASSWORD`). */
export const DEFAULT_HTTP_USER = 'participantUser';
export const DEFAULT_HTTP_PASSWORD = 'zb!XztG34';
/** ONAP's servlet context path; the health route is `<context>/health`. */
export const HTTP_CONTEXT_PATH = '/onap/policy/clamp/acm/httpparticipant';
export const HTTP_SERVICE_NAME = 'acm-participant-http';

/** The settings every participant reads (id, Kafka, topics, tracing, heartbeat, signing), and the http participant's. */
export interface HttpParticipantConfig extends ParticipantEnvironment {
  readonly port: number;
  readonly host: string;
  readonly groupId: string;
  readonly user: string;
  readonly password: string;
  /** HTTP_SECRETS_DIR: the only directory `httpHeadersFrom` and `tls` files are read from. */
  readonly secretsDir?: string;
}

export function loadHttpParticipantConfig(env: Environment = process.env): HttpParticipantConfig {
  const common = readParticipantEnvironment(env, {
    participantId: HTTP_PARTICIPANT_ID,
    serviceName: HTTP_SERVICE_NAME,
  });
  const secretsDir = envText(env, 'HTTP_SECRETS_DIR');
  return {
    ...common,
    port: envInteger(env, 'HTTP_PORT', 0, 65535) ?? 6969,
    host: envText(env, 'HTTP_HOST') ?? '0.0.0.0',
    groupId: envText(env, 'PARTICIPANT_GROUP_ID') ?? HTTP_PARTICIPANT_GROUP,
    user: envText(env, 'HTTP_USER') ?? DEFAULT_HTTP_USER,
    password: env['HTTP_PASSWORD'] ?? DEFAULT_HTTP_PASSWORD,
    ...(secretsDir === undefined ? {} : { secretsDir }),
  };
}
