import { randomUUID } from 'node:crypto';
import type request from 'supertest';
import type { ReceivedCall } from './webhook-receiver';

/**
 * What the observation e2e specs share (runtime and simulator as processes, `simulatorStack`): the routes, the
 * patience of one observe interval, and the reads of an instance, its history and a webhook call.
 */

export const API = '/onap/policy/clamp/acm/v2';
export const SIM_API = '/onap/policy/simparticipant/v2';
/** The fixtures' `observe_interval`, seconds: the floor. */
export const OBSERVE_INTERVAL_S = 5;
/**
 * Polls of 20 ms (each also waits for a GET) granted to see a change the simulator was just told about: one observe
 * interval, plus 5 s for the SDK's schedule tick, Kafka and the runtime's transaction on a loaded machine.
 */
export const ONE_INTERVAL_POLLS = ((OBSERVE_INTERVAL_S + 5) * 1000) / 20;

export interface ObservedInstance {
  deployState: string;
  lockState: string;
  elements: Record<string, { definition: { name: string }; properties: Record<string, unknown> }>;
  observedHealth?: {
    health: string;
    elements: Record<string, { health: string; reason: string | null; drift: string[] }>;
  };
}

export interface HistoryEvent {
  sequence: number;
  event: string;
  operationId: string | null;
  detail: Record<string, unknown>;
  actor: Record<string, unknown>;
}

export async function instanceOf(
  api: () => request.Agent,
  compositionId: string,
  instanceId: string,
): Promise<ObservedInstance> {
  return (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
    .body as ObservedInstance;
}

export async function historyOf(
  api: () => request.Agent,
  compositionId: string,
  instanceId: string,
): Promise<HistoryEvent[]> {
  return (
    (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)).body as {
      events: HistoryEvent[];
    }
  ).events;
}

/** Creates an instance from a body whose `COMPOSITIONIDPLACEHOLDER` names the definition; resolves with its id. */
export async function createdInstance(api: () => request.Agent, compositionId: string, body: string): Promise<string> {
  const created = await api()
    .post(`${API}/compositions/${compositionId}/instances`)
    .send(body.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId))
    .set('Content-Type', 'application/json')
    .expect(201);
  return (created.body as { instanceId: string }).instanceId;
}

/** An instance body with one element per node template name, each with a fresh id (so one body serves many). */
export function instanceBody(name: string, templates: readonly string[]): string {
  const elements = templates.map((template) => {
    const id = randomUUID();
    return [id, { id, definition: { name: template, version: '1.0.0' }, properties: {} }] as const;
  });
  return JSON.stringify({
    name,
    version: '1.0.0',
    compositionId: 'COMPOSITIONIDPLACEHOLDER',
    elements: Object.fromEntries(elements),
  });
}

/** Orders DEPLOY of an instance. */
export async function deployOrdered(
  api: () => request.Agent,
  compositionId: string,
  instanceId: string,
): Promise<void> {
  await api()
    .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
    .send({ deployOrder: 'DEPLOY' })
    .expect(202);
}

/** The history kind a CloudEvents delivery carries (`org.acm-runtime.history.<KIND>`). */
export function kindOf(call: ReceivedCall): string {
  return String(call.body['type']).split('.').pop() ?? '';
}

/** The instance a CloudEvents delivery concerns (`data.instanceId`); '' for a definition's event. */
export function instanceOfCall(call: ReceivedCall): string {
  const data = call.body['data'] as Record<string, unknown> | undefined;
  return typeof data?.['instanceId'] === 'string' ? data['instanceId'] : '';
}
