/**
 * B3: ONAP's S3P stability flow (policy/clamp testsuites, stability.jmx) against this runtime.
 * Concurrent users, each looping: commission, prime + poll PRIMED, instantiate, deploy + poll DEPLOYED,
 * GET participants and compositions pages, undeploy + poll, delete instance + poll gone, deprime + poll,
 * delete the definition. Every REST call is timed client-side (the sleeps between polls are not).
 * Where ONAP's plan sleeps 300 ms before each next phase, this one polls every POLL_MS.
 */
import {
  commission,
  definitionState,
  freshInstance,
  getInstance,
  instantiate,
  order,
  primeOrder,
  readInstanceTemplate,
  renamedTemplate,
  repoFile,
} from './lib/acm';
import { HttpClient } from './lib/http-client';
import type { RequestRecord } from './lib/http-client';
import type { Stack } from './lib/stack';
import { API, PASSWORD, USER } from './lib/stack';
import type { Summary } from './lib/stats';
import { round, summarize } from './lib/stats';
import { log, sleep } from './lib/util';

const SINGLE_YAML = 'tosca/examples/sim-single-element.yaml';
const SINGLE_INSTANCE = 'tosca/examples/instances/sim-single-element.json';
export const POLL_MS = 50;
const POLL_TIMEOUT_MS = 30_000;
const DELETE_ATTEMPTS = 3;

export interface B3Result {
  users: number;
  loopsPerUser: number;
  pollIntervalMs: number;
  requests: number;
  /** Requests answered with an unexpected status (or no answer). */
  errors: number;
  /** Loops that stopped early (an unexpected status or a state not reached within 30 s). */
  failedLoops: number;
  completedLoops: number;
  wallS: number;
  requestsPerS: number;
  /** Every request, polls included. */
  responseMs: Summary;
  /** Every request but the state polls (the orders, creates, deletes and list pages). */
  nonPollResponseMs: Summary;
  byRequest: Record<string, Summary>;
  firstErrors: string[];
}

class User {
  readonly api: HttpClient;
  errors = 0;
  completed = 0;
  readonly errorMessages: string[] = [];

  constructor(
    readonly index: number,
    baseUrl: string,
    records: RequestRecord[],
  ) {
    this.api = new HttpClient(baseUrl, USER, PASSWORD, 4);
    this.api.records = records;
  }

  /** Keeps the first few problems for the report. */
  note(message: string): void {
    if (this.errorMessages.length < 3) {
      this.errorMessages.push(`user ${this.index}: ${message}`);
    }
  }

  /** Polls (bounded) until `done` holds; each poll is a timed request, the sleep between is not. */
  private async poll(what: string, done: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + POLL_TIMEOUT_MS;
    while (!(await done())) {
      if (Date.now() > deadline) {
        throw new Error(`${what} not reached within ${POLL_TIMEOUT_MS} ms`);
      }
      await sleep(POLL_MS);
    }
  }

  private async instanceIs(compositionId: string, instanceId: string, deployState: string): Promise<boolean> {
    const result = await getInstance(this.api, compositionId, instanceId, 'poll instance');
    if (result.status !== 200) {
      throw new Error(`poll instance: HTTP ${result.status}`);
    }
    return result.body.deployState === deployState && result.body.phase === undefined;
  }

  async loop(iteration: number, runId: string, yaml: string): Promise<void> {
    const api = this.api;
    const name = `u${this.index}.l${iteration}`;
    const compositionId = await commission(api, renamedTemplate(yaml, `bench.s3p.${runId}.${name}`));
    await primeOrder(api, compositionId, 'PRIME');
    await this.poll('PRIMED', async () => (await definitionState(api, compositionId)) === 'PRIMED');

    const body = freshInstance(readInstanceTemplate(SINGLE_INSTANCE), compositionId, `bench-s3p-${runId}-${name}`);
    const instanceId = await instantiate(api, body);
    await order(api, compositionId, instanceId, { deployOrder: 'DEPLOY' }, 'deploy');
    await this.poll('DEPLOYED', () => this.instanceIs(compositionId, instanceId, 'DEPLOYED'));

    const participants = await api.get(`${API}/participants?page=0&size=10`, 'list participants');
    const compositions = await api.get(`${API}/compositions?page=0&size=10`, 'list compositions');
    if (participants.status !== 200 || compositions.status !== 200) {
      throw new Error(`list pages: HTTP ${participants.status} / ${compositions.status}`);
    }

    await order(api, compositionId, instanceId, { deployOrder: 'UNDEPLOY' }, 'undeploy');
    await this.poll('UNDEPLOYED', () => this.instanceIs(compositionId, instanceId, 'UNDEPLOYED'));

    // A 409 (CONCURRENT_MODIFICATION) is counted as an error like any other; the user then tries again
    // (at most DELETE_ATTEMPTS times) so the rest of the loop still runs and cleans up.
    for (let attempt = 1; ; attempt += 1) {
      const deleted = await api.delete(
        `${API}/compositions/${compositionId}/instances/${instanceId}`,
        'delete instance',
      );
      if (deleted.status === 202 || deleted.status === 200) {
        break;
      }
      this.note(`delete instance: HTTP ${deleted.status} ${JSON.stringify(deleted.body).slice(0, 300)}`);
      if (deleted.status !== 409 || attempt >= DELETE_ATTEMPTS) {
        throw new Error(`delete instance: HTTP ${deleted.status}`);
      }
      await sleep(POLL_MS);
    }
    await this.poll('instance gone', async () => {
      const result = await getInstance(api, compositionId, instanceId, 'poll deleted instance');
      if (result.status !== 200 && result.status !== 404) {
        throw new Error(`poll deleted instance: HTTP ${result.status}`);
      }
      return result.status === 404;
    });

    await primeOrder(api, compositionId, 'DEPRIME');
    await this.poll('COMMISSIONED', async () => (await definitionState(api, compositionId)) === 'COMMISSIONED');
    const removed = await api.delete(`${API}/compositions/${compositionId}`, 'delete composition');
    if (removed.status !== 200) {
      throw new Error(`delete composition: HTTP ${removed.status} ${JSON.stringify(removed.body).slice(0, 300)}`);
    }
  }

  async run(loops: number, runId: string, yaml: string): Promise<void> {
    for (let iteration = 0; iteration < loops; iteration += 1) {
      try {
        await this.loop(iteration, runId, yaml);
        this.completed += 1;
      } catch (error) {
        this.errors += 1;
        this.note(`loop ${iteration}: ${String(error)}`);
      }
    }
    this.api.close();
  }
}

const POLL_LABELS = new Set(['poll instance', 'poll deleted instance', 'poll composition']);

/** A request answered with something the flow did not expect (the only expected 4xx: 404 once deleted). */
function isError(record: RequestRecord): boolean {
  if (record.status === 0 || record.status >= 500) {
    return true;
  }
  return record.status >= 400 && !(record.label === 'poll deleted instance' && record.status === 404);
}

export async function runB3(stack: Stack, runId: string, users: number, loops: number): Promise<B3Result> {
  const yaml = repoFile(SINGLE_YAML);
  const records: RequestRecord[] = [];
  const baseUrl = stack.apiBaseUrl;
  const team = Array.from({ length: users }, (_, index) => new User(index, baseUrl, records));
  log(`B3: ${users} users × ${loops} loops of the S3P flow`);
  const start = performance.now();
  await Promise.all(team.map((user) => user.run(loops, runId, yaml)));
  const wallS = (performance.now() - start) / 1000;

  const labels = [...new Set(records.map((record) => record.label))];
  const byRequest: Record<string, Summary> = {};
  for (const label of labels) {
    byRequest[label] = summarize(records.filter((record) => record.label === label).map((record) => record.ms));
  }
  return {
    users,
    loopsPerUser: loops,
    pollIntervalMs: POLL_MS,
    requests: records.length,
    errors: records.filter(isError).length,
    failedLoops: team.reduce((sum, user) => sum + user.errors, 0),
    completedLoops: team.reduce((sum, user) => sum + user.completed, 0),
    wallS: round(wallS, 1),
    requestsPerS: round(records.length / wallS, 1),
    responseMs: summarize(records.map((record) => record.ms)),
    nonPollResponseMs: summarize(records.filter((record) => !POLL_LABELS.has(record.label)).map((record) => record.ms)),
    byRequest,
    firstErrors: team.flatMap((user) => user.errorMessages).slice(0, 5),
  };
}
