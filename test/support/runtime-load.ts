/**
 * Drives a runtime process through REST under load, for the e2e and fault suites of the embedded default
 * and of shutdown: a spawned runtime whose output is kept, and a client that counts every 5xx and every
 * 404 of an instance known to exist.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { RUNTIME_SCRIPT } from './processes';
import { PASSWORD, REPO_ROOT, USER, readRepoFile } from './runtime-harness';

export const SIM_PARTICIPANT_ID = '101c62b3-8918-41b9-a747-d21eb79c6c90';
const API = '/onap/policy/clamp/acm/v2';

/** The built runtime as `npm start` runs it, with its stdout and stderr kept in memory. */
export class RuntimeUnderTest {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private output = '';

  constructor(private readonly env: Record<string, string>) {}

  get log(): string {
    return this.output;
  }

  start(): void {
    const child = spawn(process.execPath, [join(REPO_ROOT, RUNTIME_SCRIPT)], {
      env: { PATH: process.env['PATH'] ?? '', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer): void => {
      this.output += chunk.toString();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.child = child;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal`; resolves with the milliseconds until the process ended, or rejects after `deadlineMs`. */
  async signal(signal: NodeJS.Signals, deadlineMs: number): Promise<number> {
    const started = performance.now();
    if (!this.running) {
      return 0;
    }
    this.child?.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${signal}: still running after ${deadlineMs} ms`)), deadlineMs);
    });
    try {
      await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
    return performance.now() - started;
  }

  /** Ends the process whatever its state (test clean-up). */
  async kill(): Promise<void> {
    if (this.running) {
      this.child?.kill('SIGKILL');
      await this.exited;
    }
  }
}

export interface LoadCounts {
  requests: number;
  serverErrors: number;
  falseNotFound: number;
  /** Up to 20 distinct 5xx bodies, for the failure message. */
  errorSamples: string[];
}

/** Polls `probe` until it returns a value, every `everyMs`, for at most `deadlineMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  deadlineMs: number,
  everyMs = 100,
): Promise<T> {
  const end = performance.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    if (performance.now() > end) {
      throw new Error(`Timed out after ${deadlineMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

interface Reply {
  status: number;
  body: unknown;
}

/** The ACM REST API of one runtime, counting what a user must never see. */
export class AcmClient {
  readonly counts: LoadCounts = { requests: 0, serverErrors: 0, falseNotFound: 0, errorSamples: [] };
  private readonly authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

  constructor(private readonly port: number) {}

  /** One request; a refused connection (the process is down) is status 0, never counted as an answer. */
  async call(method: string, path: string, body?: string | object, contentType = 'application/json'): Promise<Reply> {
    let response: Response;
    try {
      response = await fetch(`http://127.0.0.1:${this.port}${API}${path}`, {
        method,
        headers: { authorization: this.authorization, 'content-type': contentType, accept: 'application/json' },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
    } catch {
      return { status: 0, body: undefined };
    }
    const text = await response.text();
    this.counts.requests += 1;
    if (response.status >= 500) {
      this.counts.serverErrors += 1;
      const sample = `${method} ${path} → ${response.status} ${text.slice(0, 200)}`;
      if (this.counts.errorSamples.length < 20 && !this.counts.errorSamples.includes(sample)) {
        this.counts.errorSamples.push(sample);
      }
    }
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // a non-JSON body stays text
    }
    return { status: response.status, body: parsed };
  }

  async waitUntilServing(deadlineMs: number): Promise<void> {
    await waitFor(
      'the runtime to answer',
      async () => ((await this.call('GET', '/participants')).status === 200 ? true : undefined),
      deadlineMs,
    );
  }

  /** Commissions and primes a composition of the repository's tosca/examples; returns its id. */
  async commissionAndPrime(definitionPath: string, deadlineMs: number): Promise<string> {
    const created = await this.call('POST', '/compositions', readRepoFile(definitionPath), 'application/yaml');
    if (created.status !== 201) {
      throw new Error(`commission: ${created.status} ${JSON.stringify(created.body)}`);
    }
    const compositionId = (created.body as { compositionId: string }).compositionId;
    const primed = await this.call('PUT', `/compositions/${compositionId}`, { primeOrder: 'PRIME' });
    if (primed.status !== 202) {
      throw new Error(`prime: ${primed.status} ${JSON.stringify(primed.body)}`);
    }
    await waitFor(
      'the composition to be PRIMED',
      async () => {
        const definition = await this.call('GET', `/compositions/${compositionId}`);
        return (definition.body as { state?: string } | undefined)?.state === 'PRIMED' ? true : undefined;
      },
      deadlineMs,
    );
    return compositionId;
  }

  /** Creates `count` instances of a one-element example body, each with its own name and element id. */
  async createInstances(compositionId: string, instancePath: string, count: number): Promise<string[]> {
    const template = JSON.parse(readRepoFile(instancePath)) as {
      name: string;
      compositionId: string;
      elements: Record<string, { id: string }>;
    };
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const elements = Object.fromEntries(
        Object.values(template.elements).map((element) => {
          const id = randomUUID();
          return [id, { ...element, id }];
        }),
      );
      const body = { ...template, compositionId, name: `${template.name}-${index}-${randomUUID()}`, elements };
      const created = await this.call('POST', `/compositions/${compositionId}/instances`, body);
      if (created.status !== 201) {
        throw new Error(`instantiate: ${created.status} ${JSON.stringify(created.body)}`);
      }
      ids.push((created.body as { instanceId: string }).instanceId);
    }
    return ids;
  }

  /** The instance as GET shows it; a 404 of an instance that exists is counted as a false 404. */
  async instance(
    compositionId: string,
    instanceId: string,
  ): Promise<{ deployState?: string; phase?: number; stateChangeResult?: string } | undefined> {
    const reply = await this.call('GET', `/compositions/${compositionId}/instances/${instanceId}`);
    if (reply.status === 404) {
      this.counts.falseNotFound += 1;
    }
    return reply.status === 200 ? (reply.body as { deployState?: string; phase?: number }) : undefined;
  }

  /** Orders `deployOrder`; a 409 (an order of this instance still settling) is asked again. */
  async order(compositionId: string, instanceId: string, deployOrder: string, deadlineMs: number): Promise<void> {
    await waitFor(
      `${deployOrder} of ${instanceId} to be accepted`,
      async () => {
        const reply = await this.call('PUT', `/compositions/${compositionId}/instances/${instanceId}`, { deployOrder });
        if (reply.status === 202) {
          return true;
        }
        if (reply.status === 409 || reply.status === 0) {
          return undefined;
        }
        throw new Error(`${deployOrder} of ${instanceId}: ${reply.status} ${JSON.stringify(reply.body)}`);
      },
      deadlineMs,
      50,
    );
  }

  /** Waits until the instance settled in `deployState` with no phase running and no error. */
  async settled(compositionId: string, instanceId: string, deployState: string, deadlineMs: number): Promise<void> {
    await waitFor(
      `${instanceId} to be ${deployState}`,
      async () => {
        const current = await this.instance(compositionId, instanceId);
        return current?.deployState === deployState && current.phase === undefined ? true : undefined;
      },
      deadlineMs,
    );
  }

  /**
   * The built-in simulator's handler runs per (order, target), from its control API mounted by the runtime
   * (it covers the current process's life only).
   */
  async simulatorInvocations(): Promise<Array<{ messageId: string; targetId: string; invocations: number }>> {
    const response = await fetch(`http://127.0.0.1:${this.port}/onap/policy/simparticipant/v2/invocations`, {
      headers: { authorization: this.authorization },
    });
    if (response.status !== 200) {
      throw new Error(`simulator invocations: ${response.status}`);
    }
    return (await response.json()) as Array<{ messageId: string; targetId: string; invocations: number }>;
  }

  /** The replica states of one participant, as GET /participants lists them. */
  async replicaStates(participantId: string): Promise<string[]> {
    const reply = await this.call('GET', '/participants');
    const list = Array.isArray(reply.body)
      ? (reply.body as Array<{
          participant?: { participantId: string; replicas?: Record<string, { participantState: string }> };
        }>)
      : [];
    const participant = list.find((entry) => entry.participant?.participantId === participantId)?.participant;
    return Object.values(participant?.replicas ?? {}).map((replica) => replica.participantState);
  }

  /** Keeps `count` readers busy on the list endpoints until `stop` resolves. */
  async poll(compositionId: string, count: number, stop: Promise<void>): Promise<void> {
    let stopping = false;
    void stop.then(() => (stopping = true));
    await Promise.all(
      Array.from({ length: count }, async () => {
        while (!stopping) {
          await this.call('GET', `/compositions/${compositionId}/instances`);
          await this.call('GET', '/participants');
        }
      }),
    );
  }
}
