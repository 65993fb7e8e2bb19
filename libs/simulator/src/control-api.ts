/**
 * ONAP's simulator control API (`/onap/policy/simparticipant/v2`, see the simulator OpenAPI document),
 * written as a plain `node:http` request listener so it can be served on its own or mounted in the
 * runtime's Express app. Thin by design: every route delegates to the participant or the config holder.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { PropertyMap } from '@acm/contracts';
import { isUuid } from '@acm/contracts';
import { isOneOf, DEPLOY_STATES, STATE_CHANGE_RESULTS } from '@acm/domain';
import type { Instance, Participant } from '@acm/participant-sdk';
import { excerpt } from '@acm/input-guards';

import {
  HttpError,
  authorized,
  decodedSegment,
  isObject,
  optionalMap,
  optionalString,
  readBody,
  requiredString,
  send,
} from './control-http';
import type { ControlRequest } from './control-http';

export type { ControlRequest } from './control-http';

import { parseDropRequest } from './drop-switch';
import type { DropSwitch } from './drop-switch';
import { parseInstanceFailures } from './instance-failures';
import { parseSimConfig } from './sim-config';
import type { SimConfigHolder } from './simulator-handler';
import { parseObservationRequest } from './sim-observations';
import type { SimObservations } from './sim-observations';

/** ONAP's context path of the simulator. */
export const SIM_CONTEXT_PATH = '/onap/policy/simparticipant';
/** The API version prefix under the context path. */
export const SIM_API_PATH = `${SIM_CONTEXT_PATH}/v2`;
/** ONAP's default simulator credentials. */
export const DEFAULT_SIM_USER = 'participantUser';
export const DEFAULT_SIM_PASSWORD = 'zb!XztG34';

/**
 * A `node:http` request listener that is also Express/Connect middleware. When a `next` callback is given
 * (mounted in an app), requests outside {@link SIM_CONTEXT_PATH} are passed on. Without one (standalone
 * server), the handler answers them itself: `/health`, or else 404.
 */
export type ControlHandler = (
  request: ControlRequest,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

export interface ControlApiOptions {
  participant: Participant;
  settings: SimConfigHolder;
  drops: DropSwitch;
  /** What the element handler's `observe` reports; absent: the `/observations` routes answer 404. */
  observations?: SimObservations;
  /** HTTP Basic credentials; `false` disables authentication (e.g. when the embedding app already checks it). */
  auth: { user: string; password: string } | false;
}

/** An instance as ONAP's AutomationComposition JSON (elements keyed by id). */
function automationComposition(instance: Instance, participantId: string): Record<string, unknown> {
  return {
    instanceId: instance.instanceId,
    compositionId: instance.compositionId,
    compositionTargetId: instance.compositionTargetId,
    deployState: instance.deployState,
    lockState: instance.lockState,
    stateChangeResult: instance.stateChangeResult,
    revisionId: instance.revisionId,
    elements: Object.fromEntries(
      instance.elements.map((element) => [
        element.id,
        {
          id: element.id,
          definition: element.definition,
          participantId,
          deployState: element.deployState,
          lockState: element.lockState,
          migrationState: element.migrationState,
          operationalState: element.operationalState,
          useState: element.useState,
          properties: element.properties,
          outProperties: element.outProperties,
        },
      ]),
    ),
  };
}

function csv(value: string | null): string[] | undefined {
  return value === null
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
}

/**
 * The control API as a request listener. It answers every path under {@link SIM_API_PATH}, plus
 * `GET <context>/health` and, when standalone, `GET /health`. Health needs no authentication, so it can
 * serve probes. See {@link ControlHandler} for how other paths are treated.
 */
export function createControlApi(options: ControlApiOptions): ControlHandler {
  const { participant, settings, drops } = options;

  const route = async (
    method: string,
    path: string,
    url: URL,
    request: IncomingMessage,
  ): Promise<[number, unknown?]> => {
    if (path === '/parameters' && method === 'GET') {
      return [200, settings.config];
    }
    if (path === '/parameters' && method === 'PUT') {
      const parsed = parseSimConfig(await readBody(request), settings.startup);
      if (!parsed.ok) {
        throw new HttpError(400, parsed.problems.join('; '));
      }
      settings.config = parsed.config;
      return [200];
    }
    if (path === '/invocations' && method === 'GET') {
      // Not in ONAP's simulator: how often each handler ran per order, to prove redeliveries ran nothing twice.
      return [200, participant.handlerInvocationLog()];
    }
    if (path === '/drop' && method === 'GET') {
      // Not in ONAP's simulator: what the drop switch still drops and what it dropped.
      return [200, drops.state()];
    }
    if (path === '/drop' && method === 'PUT') {
      const parsed = parseDropRequest(await readBody(request));
      if (!parsed.ok) {
        throw new HttpError(400, parsed.problems.join('; '));
      }
      drops.arm(parsed.request);
      return [200, drops.state()];
    }
    if (path === '/failures' && method === 'GET') {
      // Not in ONAP's simulator: the instances set to fail given operations whatever the success flags say.
      return [200, settings.failures];
    }
    if (path === '/failures' && method === 'PUT') {
      const parsed = parseInstanceFailures(await readBody(request));
      if (!parsed.ok) {
        throw new HttpError(400, parsed.problems.join('; '));
      }
      settings.failures = parsed.failures;
      return [200, settings.failures];
    }
    if (path === '/observations' && options.observations !== undefined) {
      // Not in ONAP's simulator: make an element gone, unhealthy or changed for `observe`, and back.
      const observations = options.observations;
      if (method === 'GET') {
        return [200, observations.list()];
      }
      if (method === 'PUT') {
        const parsed = parseObservationRequest(await readBody(request));
        if (!parsed.ok) {
          throw new HttpError(400, parsed.problems.join('; '));
        }
        observations.set(parsed.request);
        return [200, observations.list()];
      }
      if (method === 'DELETE') {
        const instanceId = url.searchParams.get('instanceId') ?? '';
        const elementId = url.searchParams.get('elementId') ?? '';
        if (!observations.clear(instanceId, elementId)) {
          throw new HttpError(404, `No observation set for element ${excerpt(elementId)} of ${excerpt(instanceId)}`);
        }
        return [200, observations.list()];
      }
    }
    if (path === '/instances' && method === 'GET') {
      const ids = csv(url.searchParams.get('instanceIds'))?.map((id) => id.toLowerCase());
      const deployStates = csv(url.searchParams.get('deployState'));
      const results = csv(url.searchParams.get('stateChangeResult'));
      for (const state of deployStates ?? []) {
        if (!isOneOf(DEPLOY_STATES, state)) {
          throw new HttpError(400, `deployState: unknown value ${state}`);
        }
      }
      for (const result of results ?? []) {
        if (!isOneOf(STATE_CHANGE_RESULTS, result)) {
          throw new HttpError(400, `stateChangeResult: unknown value ${result}`);
        }
      }
      const list = participant
        .getInstances()
        .filter((instance) => ids === undefined || ids.length === 0 || ids.includes(instance.instanceId))
        .filter((instance) => deployStates === undefined || deployStates.includes(instance.deployState))
        .filter((instance) => results === undefined || results.includes(instance.stateChangeResult))
        .map((instance) => automationComposition(instance, participant.participantId));
      return [200, { automationCompositionList: list }];
    }
    const instanceMatch = /^\/instances\/([^/]+)$/.exec(path);
    if (instanceMatch !== null && method === 'GET') {
      const instanceId = decodedSegment('instanceId', instanceMatch[1] ?? '');
      if (!isUuid(instanceId)) {
        throw new HttpError(400, `instanceId: must be a UUID, got ${excerpt(instanceId)}`);
      }
      const instance = participant.getInstance(instanceId.toLowerCase());
      // ONAP's simulator answers 200 with no body for an instance it does not hold; its test suites rely on
      // that to check that a deleted or fully migrated-away instance is gone.
      return instance === undefined ? [200] : [200, automationComposition(instance, participant.participantId)];
    }
    if (path === '/datas' && method === 'GET') {
      const list = participant.getInstances().flatMap((instance) =>
        instance.elements.map((element) => ({
          compositionId: instance.compositionId,
          automationCompositionId: instance.instanceId,
          automationCompositionElementId: element.id,
          intProperties: element.properties,
          outProperties: element.outProperties,
          useState: element.useState,
          operationalState: element.operationalState,
        })),
      );
      return [200, { list }];
    }
    if (path === '/datas' && method === 'PUT') {
      const body = await readBody(request);
      if (!isObject(body)) {
        throw new HttpError(400, 'body: must be a JSON object');
      }
      const instanceId = requiredString(body, 'automationCompositionId');
      const elementId = requiredString(body, 'automationCompositionElementId');
      const info: { outProperties?: PropertyMap; useState?: string; operationalState?: string } = {};
      const outProperties = optionalMap(body, 'outProperties');
      const useState = optionalString(body, 'useState');
      const operationalState = optionalString(body, 'operationalState');
      // ONAP replaces the element's outProperties, useState and operationalState with the body's (absent = empty).
      info.outProperties = outProperties ?? {};
      if (useState !== undefined) {
        info.useState = useState;
      }
      if (operationalState !== undefined) {
        info.operationalState = operationalState;
      }
      if (!(await participant.sendElementInfo(instanceId, elementId, info))) {
        throw new HttpError(404, `Element ${elementId} of instance ${instanceId} is not known to this simulator`);
      }
      return [200];
    }
    if (path === '/compositiondatas' && method === 'GET') {
      const list = participant.getCompositions().flatMap((composition) =>
        composition.elements.map((element) => ({
          compositionId: composition.compositionId,
          compositionDefinitionElementId: element.definition,
          intProperties: element.inProperties,
          outProperties: element.outProperties,
        })),
      );
      return [200, { list }];
    }
    if (path === '/compositiondatas' && method === 'PUT') {
      const body = await readBody(request);
      if (!isObject(body)) {
        throw new HttpError(400, 'body: must be a JSON object');
      }
      const compositionId = requiredString(body, 'compositionId');
      const definition = body['compositionDefinitionElementId'];
      if (
        !isObject(definition) ||
        typeof definition['name'] !== 'string' ||
        typeof definition['version'] !== 'string'
      ) {
        throw new HttpError(400, 'compositionDefinitionElementId: must be {name, version}');
      }
      const sent = await participant.sendCompositionInfo(
        compositionId,
        { name: definition['name'], version: definition['version'] },
        optionalMap(body, 'outProperties') ?? {},
      );
      if (!sent) {
        throw new HttpError(
          404,
          `Element definition ${definition['name']} ${definition['version']} of composition ${compositionId} is not known to this simulator`,
        );
      }
      return [200];
    }
    const known =
      [
        '/parameters',
        '/invocations',
        '/drop',
        '/failures',
        '/instances',
        '/datas',
        '/compositiondatas',
        '/observations',
      ].includes(path) || instanceMatch !== null;
    throw new HttpError(known ? 405 : 404, known ? `Method ${method} not allowed on ${path}` : `No such path ${path}`);
  };

  return (request, response, next) => {
    const url = new URL(request.originalUrl ?? request.url ?? '/', 'http://simulator');
    const method = (request.method ?? 'GET').toUpperCase();
    if (next !== undefined && url.pathname !== SIM_CONTEXT_PATH && !url.pathname.startsWith(`${SIM_CONTEXT_PATH}/`)) {
      next();
      return;
    }
    const requestId = request.headers['x-onap-requestid'];
    response.setHeader('X-onap-RequestId', typeof requestId === 'string' ? requestId : randomUUID());
    response.setHeader('X-LatestVersion', '1.0.0');
    response.setHeader('X-MinorVersion', '0');
    response.setHeader('X-PatchVersion', '0');

    if (
      method === 'GET' &&
      (url.pathname === `${SIM_CONTEXT_PATH}/health` || (next === undefined && url.pathname === '/health'))
    ) {
      send(response, 200, {
        status: 'UP',
        participantId: participant.participantId,
        registered: participant.isRegistered,
      });
      return;
    }
    if (!url.pathname.startsWith(`${SIM_API_PATH}/`)) {
      send(response, 404, { errorDetails: `No such path ${url.pathname}` });
      return;
    }
    if (options.auth !== false && !authorized(request, options.auth)) {
      response.setHeader('WWW-Authenticate', 'Basic realm="simparticipant"');
      send(response, 401, {
        errorDetails: request.headers.authorization
          ? 'Unauthorized: wrong user name or password'
          : 'Unauthorized: HTTP Basic credentials are required',
      });
      return;
    }
    route(method, url.pathname.slice(SIM_API_PATH.length), url, request)
      .then(([status, body]) => send(response, status, body))
      .catch((error: unknown) => {
        if (error instanceof HttpError) {
          send(response, error.status, { errorDetails: error.message });
        } else {
          send(response, 500, { errorDetails: error instanceof Error ? error.message : String(error) });
        }
      });
  };
}
