import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { HistoryRetention } from '../apps/runtime-acm/src/supervision/history-retention';
import { SupervisionScheduler } from '../apps/runtime-acm/src/supervision/supervision.scheduler';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  commissionAndPrime,
  createInstanceFrom,
  instanceOf,
  orderInstance,
  readRepoFile,
} from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { testDatabaseUrl } from './support/services';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const DAY = 24 * 3600 * 1000;

interface Row {
  operation_id: string;
  target_id: string;
  order_name: string;
  state: string;
  messages: string;
  answers: string;
  events: string;
}

interface ExportLine {
  record: 'operation' | 'event';
  subjectId: string;
  operationId: string | null;
  startedAt?: string;
  sequence?: number;
  state?: string;
}

/**
 * Retention on the real PostgreSQL: operations run through the engine, supervision passes prune with short counts
 * (RETENTION_KEEP_LAST=1, RETENTION_MAX_OPERATIONS=2), and the rows left are read from the tables.
 */
describe('history retention and export (PostgreSQL, in-process bus, scripted participant)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let db: Client;
  let compositionId: string;
  const instanceYaml = readRepoFile('tosca/examples/instances/sim-single-element.json');
  /** Instance ids by role. */
  const ids: Record<'busy' | 'running' | 'quiet' | 'deleted', string> = {
    busy: '',
    running: '',
    quiet: '',
    deleted: '',
  };

  beforeAll(async () => {
    // An hour-long supervision period: the test runs each pass itself.
    ({ runtime, participant } = await startWithScriptedParticipant({
      HEART_BEAT: '3600000',
      RETENTION_KEEP_LAST: '1',
      RETENTION_MAX_OPERATIONS: '2',
      RETENTION_BATCH_SIZE: '2',
      // No resend: the UNDEPLOY held unanswered stays in flight however long the test takes.
      MAX_WAIT_MS: '0',
    }));
    compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
    db = new Client({ connectionString: testDatabaseUrl() });
    await db.connect();
    await db.query(`SET search_path TO "${runtime.schema}"`);
  }, 120_000);

  afterAll(async () => {
    await db.end();
    await participant.stop();
    await runtime.close();
  });

  const path = (instanceId: string): string => `${BASE}/compositions/${compositionId}/instances/${instanceId}`;

  async function settled(instanceId: string, deployState: string): Promise<void> {
    await eventually(`${instanceId} ${deployState}`, async () => {
      const current = await instanceOf<{ deployState: string; stateChangeResult: string }>(
        runtime,
        compositionId,
        instanceId,
      );
      return current.deployState === deployState && current.stateChangeResult === 'NO_ERROR' ? true : undefined;
    });
  }

  async function run(instanceId: string, order: 'DEPLOY' | 'UNDEPLOY'): Promise<void> {
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: order });
    await settled(instanceId, order === 'DEPLOY' ? 'DEPLOYED' : 'UNDEPLOYED');
  }

  async function rows(): Promise<Row[]> {
    return (
      await db.query<Row>(
        `SELECT o.operation_id, o.target_id, o.order_name, o.state,
           (SELECT count(*) FROM acm_operation_message m WHERE m.operation_id = o.operation_id) AS messages,
           (SELECT count(*) FROM acm_message_answer a JOIN acm_operation_message m USING (message_id)
             WHERE m.operation_id = o.operation_id) AS answers,
           (SELECT count(*) FROM acm_event e WHERE e.operation_id = o.operation_id) AS events
         FROM acm_operation o ORDER BY o.started_at, o.operation_id`,
      )
    ).rows;
  }

  const orders = (all: Row[], targetId: string): string[] =>
    all.filter((row) => row.target_id === targetId).map((row) => `${row.order_name}:${row.state}`);

  async function superviseTwice(): Promise<void> {
    // A replica starts its walk at a random id: two passes cover every subject (fewer than a pass's hundred).
    for (let pass = 0; pass < 2; pass++) {
      await runtime.app.get(SupervisionScheduler).tick();
      await runtime.app.get(HistoryRetention).idle();
    }
  }

  it('supervision prunes beyond the counts, keeps failures, the last N, in-flight work and small histories', async () => {
    for (const role of ['busy', 'running', 'quiet', 'deleted'] as const) {
      ids[role] = (await createInstanceFrom(runtime, compositionId, instanceYaml)).instanceId;
    }
    const busyElements = Object.keys(
      (await instanceOf<{ elements: Record<string, unknown> }>(runtime, compositionId, ids.busy)).elements,
    );
    // quiet: two operations, within every limit.
    await run(ids.quiet, 'DEPLOY');
    await run(ids.quiet, 'UNDEPLOY');
    // deleted: DEPLOY, UNDEPLOY, DELETE; its rows follow the same rules once it is gone.
    await run(ids.deleted, 'DEPLOY');
    await run(ids.deleted, 'UNDEPLOY');
    await runtime.http.delete(path(ids.deleted)).expect(202);
    await eventually('the instance deleted', async () =>
      (await runtime.http.get(path(ids.deleted))).status === 404 ? true : undefined,
    );
    // busy: DEPLOY, UNDEPLOY, a failed DEPLOY, its retry, UNDEPLOY, DEPLOY.
    await run(ids.busy, 'DEPLOY');
    await run(ids.busy, 'UNDEPLOY');
    participant.failing.add(busyElements[0]!);
    await orderInstance(runtime, compositionId, ids.busy, { deployOrder: 'DEPLOY' });
    await eventually('the failed deploy', async () => {
      const current = await instanceOf<{ stateChangeResult: string }>(runtime, compositionId, ids.busy);
      return current.stateChangeResult === 'FAILED' ? true : undefined;
    });
    participant.failing.clear();
    await run(ids.busy, 'DEPLOY');
    await run(ids.busy, 'UNDEPLOY');
    await run(ids.busy, 'DEPLOY');
    // running: DEPLOY, UNDEPLOY, DEPLOY done, then an UNDEPLOY nobody answers (held to the end of the file).
    await run(ids.running, 'DEPLOY');
    await run(ids.running, 'UNDEPLOY');
    await run(ids.running, 'DEPLOY');
    participant.autoAnswer = false;
    await orderInstance(runtime, compositionId, ids.running, { deployOrder: 'UNDEPLOY' });
    await eventually('the held UNDEPLOY', () => (participant.phaseMessages(ids.running).length > 3 ? true : undefined));

    const before = await rows();
    expect(orders(before, ids.busy)).toEqual([
      'DEPLOY:COMPLETED',
      'UNDEPLOY:COMPLETED',
      'DEPLOY:FAILED',
      'DEPLOY:COMPLETED',
      'UNDEPLOY:COMPLETED',
      'DEPLOY:COMPLETED',
    ]);
    expect(before.every((row) => Number(row.messages) > 0 && Number(row.events) > 0)).toBe(true);

    await superviseTwice();

    const after = await rows();
    // busy: the newest (last N = 1), the next success (2 successes), and the failure (counted apart).
    expect(orders(after, ids.busy)).toEqual(['DEPLOY:FAILED', 'UNDEPLOY:COMPLETED', 'DEPLOY:COMPLETED']);
    // running: the in-flight UNDEPLOY and the two successes before it.
    expect(orders(after, ids.running)).toEqual(['UNDEPLOY:COMPLETED', 'DEPLOY:COMPLETED', 'UNDEPLOY:RUNNING']);
    expect(orders(after, ids.quiet)).toEqual(orders(before, ids.quiet));
    expect(orders(after, ids.deleted)).toEqual(['UNDEPLOY:COMPLETED', 'DELETE:COMPLETED']);
    expect(orders(after, compositionId)).toEqual(['PRIME:COMPLETED']);
    // What stays keeps its messages, answers and events; what went left none behind.
    const kept = new Map(before.map((row) => [row.operation_id, row]));
    for (const row of after) {
      expect(row).toEqual(kept.get(row.operation_id));
    }
    const gone = before.filter((row) => !after.some((left) => left.operation_id === row.operation_id));
    expect(gone).toHaveLength(5);
    const orphans = await db.query<{ messages: string; events: string }>(
      `SELECT (SELECT count(*) FROM acm_operation_message WHERE operation_id = ANY($1::uuid[])) AS messages,
              (SELECT count(*) FROM acm_event WHERE operation_id = ANY($1::uuid[])) AS events`,
      [gone.map((row) => row.operation_id)],
    );
    expect(orphans.rows[0]).toEqual({ messages: '0', events: '0' });

    const scrape = (await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200)).text;
    const prunedEvents = gone.reduce((sum, row) => sum + Number(row.events), 0);
    expect(scrape).toContain('acm_history_pruned_rows_total{table="acm_operation"} 5');
    expect(scrape).toContain(`acm_history_pruned_rows_total{table="acm_event"} ${prunedEvents}`);

    // A second round finds nothing more to do.
    await superviseTwice();
    expect(await rows()).toEqual(after);
  });

  it('prunes by age as time passes: successes after a week, failures and the last N after a month', async () => {
    const retention = runtime.app.get(HistoryRetention);
    await retention.sweep(Date.now() + 8 * DAY);
    const week = await rows();
    expect(orders(week, ids.busy)).toEqual(['DEPLOY:FAILED', 'DEPLOY:COMPLETED']);
    expect(orders(week, ids.running)).toEqual(['UNDEPLOY:RUNNING']);
    expect(orders(week, ids.quiet)).toEqual(['UNDEPLOY:COMPLETED']);

    await retention.sweep(Date.now() + 31 * DAY);
    expect((await rows()).map((row) => `${row.target_id === ids.running}:${row.state}`)).toEqual(['true:RUNNING']);
  });
});

describe('history export as NDJSON', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  const instances: string[] = [];

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }));
    compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
    for (let index = 0; index < 2; index++) {
      const { instanceId } = await createInstanceFrom(
        runtime,
        compositionId,
        readRepoFile('tosca/examples/instances/sim-single-element.json'),
      );
      instances.push(instanceId);
      for (const order of ['DEPLOY', 'UNDEPLOY']) {
        await orderInstance(runtime, compositionId, instanceId, { deployOrder: order });
        await eventually(`${order} done`, async () => {
          const current = await instanceOf<{ deployState: string }>(runtime, compositionId, instanceId);
          return current.deployState === `${order}ED` ? true : undefined;
        });
      }
    }
  }, 120_000);

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  const linesOf = (response: Response): ExportLine[] =>
    response.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as ExportLine);

  function expectOneSubjectInOrder(lines: ExportLine[], subjectId: string): void {
    const operations = lines.filter((line) => line.record === 'operation');
    const events = lines.filter((line) => line.record === 'event');
    expect(lines).toEqual([...operations, ...events]);
    expect(lines.every((line) => line.subjectId === subjectId)).toBe(true);
    expect(operations.map((line) => line.startedAt)).toEqual(operations.map((line) => line.startedAt).sort());
    expect(events.map((line) => line.sequence)).toEqual(events.map((line) => line.sequence).sort((a, b) => a! - b!));
  }

  it('streams an instance history: its operations oldest first, then its events in sequence order', async () => {
    const instanceId = instances[0]!;
    const url = `${BASE}/compositions/${compositionId}/instances/${instanceId}/history`;
    const response = await runtime.http.get(`${url}?format=ndjson`).expect(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = linesOf(response);
    expectOneSubjectInOrder(lines, instanceId);
    const json = (await runtime.http.get(url).expect(200)).body as { operations: unknown[]; events: unknown[] };
    expect(lines.filter((line) => line.record === 'operation')).toHaveLength(json.operations.length);
    expect(lines.filter((line) => line.record === 'event').map(({ record: _, ...event }) => event)).toEqual(
      json.events,
    );
    expect(lines.filter((line) => line.record === 'operation').map((line) => line.state)).toEqual([
      'COMPLETED',
      'COMPLETED',
    ]);
    const accepted = await runtime.http.get(url).set('Accept', 'application/x-ndjson').expect(200);
    expect(accepted.text).toBe(response.text);
  });

  it('streams the whole runtime, subject by subject in id order, and a definition on its own', async () => {
    const lines = linesOf(
      await runtime.http
        .get(`${BASE}/history`)
        .expect(200)
        .expect('Content-Type', /application\/x-ndjson/),
    );
    const subjects = [...new Set(lines.map((line) => line.subjectId))];
    expect(subjects).toEqual([compositionId, ...instances].sort());
    for (const subjectId of subjects) {
      const own = lines.filter((line) => line.subjectId === subjectId);
      expectOneSubjectInOrder(own, subjectId);
      // Each subject's lines are together.
      const first = lines.findIndex((line) => line.subjectId === subjectId);
      expect(lines.slice(first, first + own.length)).toEqual(own);
    }
    const definition = linesOf(
      await runtime.http.get(`${BASE}/compositions/${compositionId}/history?format=ndjson`).expect(200),
    );
    expect(definition).toEqual(lines.filter((line) => line.subjectId === compositionId));
  });

  it('refuses an unknown format or subject before it starts streaming', async () => {
    const bad = await runtime.http.get(`${BASE}/history?format=csv`).expect(400);
    expect((bad.body as { errorDetails: string }).errorDetails).toContain('format');
    await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instances[0]}/history?format=xml`)
      .expect(400);
    await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${randomUUID()}/history?format=ndjson`)
      .expect(404);
    await runtime.http.get(`${BASE}/compositions/${randomUUID()}/history?format=ndjson`).expect(404);
  });
});
