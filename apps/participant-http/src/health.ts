/**
 * The process's HTTP face: ONAP's health route `/onap/policy/clamp/acm/httpparticipant/health`, behind HTTP Basic
 * like every route of ONAP's http participant (Spring Security's `anyRequest().authenticated()`), answering
 * Spring Boot's `{"status":"UP"}`. Everything else is 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { basicCredentialsMatch } from '@acm/input-guards';
import type { BasicCredentials } from '@acm/input-guards';

import { HTTP_CONTEXT_PATH } from './config';

export const HEALTH_PATH = `${HTTP_CONTEXT_PATH}/health`;

export function healthHandler(credentials: BasicCredentials) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const path = (request.url ?? '').split('?')[0];
    if (!basicCredentialsMatch(request.headers.authorization, credentials)) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="Realm"' }).end();
      return;
    }
    if (path !== HEALTH_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"status":404,"error":"Not Found"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"UP"}');
  };
}
