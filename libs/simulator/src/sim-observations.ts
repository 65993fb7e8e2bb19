/**
 * What the simulator's `observe` reports, set through the control API (`PUT /observations`): an element made gone,
 * unhealthy or changed (observed properties that differ from the desired ones), and back. Not in ONAP's simulator.
 */
import type { PropertyMap } from '@acm/contracts';
import { isUuid } from '@acm/contracts';
import type { ElementObservation, ObserveContext } from '@acm/participant-sdk';

/** One element's simulated state; absent fields: present, healthy, its desired properties. */
export interface SimObservation {
  readonly present: boolean;
  readonly healthy: boolean;
  readonly reason?: string;
  /** The properties the simulator "finds"; absent: exactly the desired ones (no drift). */
  readonly properties?: PropertyMap;
}

export interface SimObservationRequest extends SimObservation {
  readonly instanceId: string;
  readonly elementId: string;
}

export type SimObservationParse = { ok: true; request: SimObservationRequest } | { ok: false; problems: string[] };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a `PUT /observations` body, naming each bad field. */
export function parseObservationRequest(body: unknown): SimObservationParse {
  if (!isObject(body)) {
    return { ok: false, problems: ['body: must be a JSON object'] };
  }
  const problems: string[] = [];
  for (const field of ['instanceId', 'elementId'] as const) {
    if (typeof body[field] !== 'string' || !isUuid(body[field])) {
      problems.push(`${field}: must be a UUID`);
    }
  }
  for (const field of ['present', 'healthy'] as const) {
    if (body[field] !== undefined && typeof body[field] !== 'boolean') {
      problems.push(`${field}: must be a boolean`);
    }
  }
  if (body['reason'] !== undefined && typeof body['reason'] !== 'string') {
    problems.push('reason: must be a string');
  }
  if (body['properties'] !== undefined && !isObject(body['properties'])) {
    problems.push('properties: must be an object');
  }
  if (problems.length > 0) {
    return { ok: false, problems };
  }
  return {
    ok: true,
    request: {
      instanceId: (body['instanceId'] as string).toLowerCase(),
      elementId: (body['elementId'] as string).toLowerCase(),
      present: body['present'] !== false,
      healthy: body['healthy'] !== false,
      ...(typeof body['reason'] === 'string' ? { reason: body['reason'] } : {}),
      ...(isObject(body['properties']) ? { properties: body['properties'] } : {}),
    },
  };
}

/**
 * The simulated observations. With `observeAll` every deployed element is reported (healthy, as desired, unless set
 * otherwise); without it only the elements the control API set, so a simulator nobody asks to observe sends what
 * ONAP's sends.
 */
export class SimObservations {
  private readonly byElement = new Map<string, SimObservation>();

  constructor(readonly observeAll: boolean) {}

  set(request: SimObservationRequest): void {
    const { instanceId, elementId, ...observation } = request;
    this.byElement.set(`${instanceId}/${elementId}`, observation);
  }

  /** Forgets what was set of one element (back to healthy and as desired). */
  clear(instanceId: string, elementId: string): boolean {
    return this.byElement.delete(`${instanceId.toLowerCase()}/${elementId.toLowerCase()}`);
  }

  list(): SimObservationRequest[] {
    return [...this.byElement].map(([key, observation]) => {
      const [instanceId = '', elementId = ''] = key.split('/');
      return { instanceId, elementId, ...observation };
    });
  }

  /** The `observe` hook's answer for one element; null when this element is not observed. */
  observe(ctx: ObserveContext): ElementObservation | null {
    const set = this.byElement.get(`${ctx.instanceId.toLowerCase()}/${ctx.instanceElement.id.toLowerCase()}`);
    if (set === undefined && !this.observeAll) {
      return null;
    }
    const observation = set ?? { present: true, healthy: true };
    return {
      present: observation.present,
      healthy: observation.healthy,
      ...(observation.reason === undefined ? {} : { reason: observation.reason }),
      properties: observation.properties ?? ctx.instanceElement.properties,
    };
  }
}
