/**
 * The runtime's REST API as the benchmarks use it: commission, prime, instantiate, order, read history.
 * Every helper checks the status it expects and throws otherwise.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpClient, HttpResult } from './http-client';
import { REPO_ROOT } from './processes';
import { API } from './stack';

export interface InstanceElementBody {
  id: string;
  definition: { name: string; version: string };
  description?: string;
  properties?: Record<string, unknown>;
}

export interface InstanceBody {
  name: string;
  version: string;
  compositionId: string;
  description?: string;
  elements: Record<string, InstanceElementBody>;
}

export interface InstanceView {
  deployState: string;
  lockState: string;
  stateChangeResult: string;
  phase?: number;
}

export interface HistoryOperation {
  operationId: string;
  order: string;
  state: string;
  startedAt: string;
  finishedAt?: string;
  durationMs?: number;
}

export function repoFile(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

/** A service template with another top-level name, so each commissioning is distinct. */
export function renamedTemplate(yaml: string, name: string): string {
  return yaml.replace(/^name: .*$/m, `name: ${name}`);
}

/** An instance body from a fixture: fresh element UUIDs, the given name, the composition filled in. */
export function freshInstance(template: InstanceBody, compositionId: string, name: string): InstanceBody {
  const elements: Record<string, InstanceElementBody> = {};
  for (const element of Object.values(template.elements)) {
    const id = randomUUID();
    elements[id] = { ...element, id };
  }
  return { ...template, name, compositionId, elements };
}

export function readInstanceTemplate(path: string): InstanceBody {
  return JSON.parse(repoFile(path)) as InstanceBody;
}

function expectStatus<T>(what: string, result: HttpResult<T>, ...statuses: number[]): HttpResult<T> {
  if (!statuses.includes(result.status)) {
    throw new Error(`${what}: HTTP ${result.status} ${JSON.stringify(result.body).slice(0, 300)}`);
  }
  return result;
}

export async function commission(api: HttpClient, yaml: string): Promise<string> {
  const result = expectStatus(
    'commission',
    await api.post<{ compositionId: string }>(`${API}/compositions`, yaml, 'application/yaml', 'commission'),
    201,
  );
  return result.body.compositionId;
}

export async function primeOrder(api: HttpClient, compositionId: string, order: 'PRIME' | 'DEPRIME'): Promise<void> {
  expectStatus(
    order,
    await api.put(`${API}/compositions/${compositionId}`, { primeOrder: order }, order.toLowerCase()),
    202,
  );
}

export async function definitionState(api: HttpClient, compositionId: string): Promise<string> {
  const result = expectStatus(
    'get composition',
    await api.get<{ state: string }>(`${API}/compositions/${compositionId}`, 'poll composition'),
    200,
  );
  return result.body.state;
}

export async function instantiate(api: HttpClient, body: InstanceBody): Promise<string> {
  const result = expectStatus(
    'instantiate',
    await api.post<{ instanceId: string }>(
      `${API}/compositions/${body.compositionId}/instances`,
      JSON.stringify(body),
      'application/json',
      'instantiate',
    ),
    201,
  );
  return result.body.instanceId;
}

export async function order(
  api: HttpClient,
  compositionId: string,
  instanceId: string,
  body: Record<string, string>,
  label = 'order',
): Promise<void> {
  expectStatus(label, await api.put(`${API}/compositions/${compositionId}/instances/${instanceId}`, body, label), 202);
}

export async function getInstance(
  api: HttpClient,
  compositionId: string,
  instanceId: string,
  label = 'get instance',
): Promise<HttpResult<InstanceView>> {
  return api.get<InstanceView>(`${API}/compositions/${compositionId}/instances/${instanceId}`, label);
}

export interface HistoryEvent {
  event: string;
  operationId: string | null;
  detail: Record<string, unknown>;
  at: string;
}

export interface History {
  operations: HistoryOperation[];
  events: HistoryEvent[];
}

export async function instanceHistory(api: HttpClient, compositionId: string, instanceId: string): Promise<History> {
  const result = expectStatus(
    'history',
    await api.get<History>(`${API}/compositions/${compositionId}/instances/${instanceId}/history`, 'history'),
    200,
  );
  return result.body;
}

/** The duration the runtime recorded for the newest finished operation of `orderName`, or null. */
export function recordedDuration(operations: readonly HistoryOperation[], orderName: string): HistoryOperation | null {
  return operations.find((operation) => operation.order === orderName && operation.durationMs !== undefined) ?? null;
}

/** Commissions a template and primes it, waiting (bounded) for PRIMED. */
export async function commissionAndPrime(api: HttpClient, yaml: string, timeoutMs = 60_000): Promise<string> {
  const compositionId = await commission(api, yaml);
  await primeOrder(api, compositionId, 'PRIME');
  const deadline = Date.now() + timeoutMs;
  while ((await definitionState(api, compositionId)) !== 'PRIMED') {
    if (Date.now() > deadline) {
      throw new Error(`composition ${compositionId} not PRIMED within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return compositionId;
}
