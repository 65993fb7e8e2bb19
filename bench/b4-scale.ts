/**
 * B4 scale: many deployed instances of a 10-element composition. The composition is commissioned and
 * primed through REST, one instance is created and deployed through REST as a template, and the rest
 * are copied from it straight into PostgreSQL (instances, elements, and one completed DEPLOY operation
 * each, as the runtime would have left them). The runtime is then restarted on that database and
 * measured: GET one instance, GET a page of 100, more deploys through REST, the supervision tick's SQL
 * (EXPLAIN ANALYZE and timed from node), and its RSS.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { InstanceBody, InstanceElementBody } from './lib/acm';
import {
  commissionAndPrime,
  instanceHistory,
  instantiate,
  order,
  recordedDuration,
  renamedTemplate,
  repoFile,
} from './lib/acm';
import { processMemory } from './lib/procfs';
import type { Services, Stack } from './lib/stack';
import { API } from './lib/stack';
import type { Summary } from './lib/stats';
import { round, summarize } from './lib/stats';
import { log } from './lib/util';
import { OperationWatcher } from './lib/watcher';

export const TEN_ELEMENTS_YAML = 'bench/fixtures/ten-elements.yaml';
const ELEMENTS = 10;
const INSERT_BATCH = 2_000;
const DEPLOYS = 5;

export interface B4Result {
  instances: number;
  elementsPerInstance: number;
  elementRows: number;
  insertS: number;
  runtimeRestartS: number;
  getInstanceMs: Summary;
  getPage100Ms: Summary;
  /** Runtime-recorded durations of DEPLOY orders sent through REST with all those instances present. */
  deployMs: Summary;
  supervision: {
    /** The three transactions of one tick (overdue operations, silent replicas, outbox claim), timed from node. */
    tickSqlMs: Summary;
    overdueQueryMs: Summary;
    replicaQueryMs: Summary;
    outboxClaimMs: Summary;
    explain: { overdue: string; replica: string; outbox: string };
    /** Execution Time reported by EXPLAIN ANALYZE. */
    explainExecutionMs: { overdue: number; replica: number; outbox: number };
  };
  runtimeRssMb: number;
  runtimeVmHwmMb: number;
  /** Not an S3P target, but the other list ONAP's flow calls: GET participants?page=0&size=10 at this scale. */
  participantsPageMs: Summary;
  runtimeRssAfterParticipantsMb: number;
}

function tenElementInstance(compositionId: string, name: string): InstanceBody {
  const elements: Record<string, InstanceElementBody> = {};
  for (let index = 1; index <= ELEMENTS; index += 1) {
    const id = randomUUID();
    const suffix = String(index).padStart(2, '0');
    elements[id] = {
      id,
      definition: { name: `bench.ten.Element${suffix}`, version: '1.0.0' },
      description: `Element ${index} of 10`,
      properties: { baseUrl: `http://sim.example:30800/element${suffix}` },
    };
  }
  return { name, version: '1.0.0', compositionId, description: 'B4 scale instance', elements };
}

const OVERDUE_SQL = `SELECT operation_id, target_kind, target_id, order_name, state, timed_out, phase, started_at, deadline_at, finished_at
  FROM acm_operation WHERE state = 'RUNNING' AND NOT timed_out AND deadline_at < $1
  ORDER BY deadline_at LIMIT 100 FOR UPDATE SKIP LOCKED`;
const REPLICA_SQL = `UPDATE participant_replica SET participant_state = 'OFF_LINE'
  WHERE participant_state = 'ON_LINE' AND last_msg < $1 RETURNING participant_id`;
const OUTBOX_SQL = `SELECT id, topic, message_key, payload FROM acm_outbox ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED`;
const MAX_STATUS_WAIT_MS = 150_000;

/** Copies the template instance `count` times: instances, their elements, one COMPLETED DEPLOY each. */
async function insertCopies(stack: Stack, templateId: string, count: number, runId: string): Promise<void> {
  for (let offset = 0; offset < count; offset += INSERT_BATCH) {
    const size = Math.min(INSERT_BATCH, count - offset);
    await stack.pool.query(
      `WITH template AS (SELECT * FROM automation_composition WHERE instance_id = $1),
       created AS (
         INSERT INTO automation_composition (instance_id, composition_id, composition_target_id, name, version,
           description, derived_from, metadata, precheck, deploy_state, lock_state, sub_state, state_change_result,
           phase, last_msg, revision_id, row_version)
         SELECT gen_random_uuid(), t.composition_id, NULL, $4 || ($2 + g), t.version, t.description, t.derived_from,
           t.metadata, t.precheck, t.deploy_state, t.lock_state, t.sub_state, t.state_change_result, NULL,
           now() - make_interval(secs => $2 + g), gen_random_uuid(), 1
         FROM template t, generate_series(1, $3::int) g
         RETURNING instance_id, last_msg),
       elements AS (
         INSERT INTO automation_composition_element (element_id, instance_id, position, definition_name,
           definition_version, participant_id, deploy_state, lock_state, sub_state, migration_state, stage,
           operational_state, use_state, description, message, properties, out_properties)
         SELECT gen_random_uuid(), c.instance_id, e.position, e.definition_name, e.definition_version,
           e.participant_id, e.deploy_state, e.lock_state, e.sub_state, e.migration_state, e.stage,
           e.operational_state, e.use_state, e.description, e.message, e.properties, e.out_properties
         FROM created c CROSS JOIN automation_composition_element e WHERE e.instance_id = $1)
       INSERT INTO acm_operation (operation_id, target_kind, target_id, order_name, state, timed_out, phase,
         started_at, progress_at, deadline_at, finished_at)
       SELECT gen_random_uuid(), 'INSTANCE', c.instance_id, 'DEPLOY', 'COMPLETED', false, NULL,
         c.last_msg - interval '40 milliseconds', c.last_msg, c.last_msg + interval '200 seconds', c.last_msg
       FROM created c`,
      [templateId, offset, size, `bench-b4-${runId}-`],
    );
    log(`B4: ${offset + size}/${count} instances inserted`);
  }
  await stack.pool.query('ANALYZE automation_composition');
  await stack.pool.query('ANALYZE automation_composition_element');
  await stack.pool.query('ANALYZE acm_operation');
  await stack.pool.query('ANALYZE participant_replica');
}

async function timeRequests(count: number, request: (index: number) => Promise<{ status: number; ms: number }>) {
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const result = await request(index);
    if (result.status !== 200) {
      throw new Error(`HTTP ${result.status}`);
    }
    samples.push(result.ms);
  }
  return summarize(samples);
}

async function explain(client: Client, sql: string, parameters: unknown[]): Promise<{ plan: string; ms: number }> {
  await client.query('BEGIN');
  try {
    const rows = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, parameters)).rows;
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    const ms = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN);
    return { plan, ms };
  } finally {
    await client.query('ROLLBACK');
  }
}

/** The tick's three transactions as the runtime runs them (BEGIN, query, COMMIT each), timed one by one. */
async function timeTick(client: Client, reps: number) {
  const tick: number[] = [];
  const overdue: number[] = [];
  const replica: number[] = [];
  const outbox: number[] = [];
  const inTransaction = async (sql: string, parameters: unknown[]): Promise<number> => {
    const start = performance.now();
    await client.query('BEGIN');
    await client.query(sql, parameters);
    await client.query('COMMIT');
    return performance.now() - start;
  };
  for (let index = 0; index < reps; index += 1) {
    const a = await inTransaction(OVERDUE_SQL, [new Date()]);
    const b = await inTransaction(REPLICA_SQL, [new Date(Date.now() - MAX_STATUS_WAIT_MS)]);
    const c = await inTransaction(OUTBOX_SQL, []);
    overdue.push(a);
    replica.push(b);
    outbox.push(c);
    tick.push(a + b + c);
  }
  return {
    tickSqlMs: summarize(tick),
    overdueQueryMs: summarize(overdue),
    replicaQueryMs: summarize(replica),
    outboxClaimMs: summarize(outbox),
  };
}

export async function runB4(stack: Stack, services: Services, runId: string, count: number): Promise<B4Result> {
  const compositionId = await commissionAndPrime(
    stack.api,
    renamedTemplate(repoFile(TEN_ELEMENTS_YAML), `bench.b4.${runId}`),
  );
  const watcher = new OperationWatcher(stack.pool, 'DEPLOY', 10);
  watcher.start();
  let templateId: string;
  try {
    log('B4: one template instance through REST');
    templateId = await instantiate(stack.api, tenElementInstance(compositionId, `bench-b4-${runId}-template`));
    await order(stack.api, compositionId, templateId, { deployOrder: 'DEPLOY' }, 'deploy');
    if ((await watcher.finished(templateId, 60_000)) !== 'COMPLETED') {
      throw new Error('the template instance did not deploy');
    }
  } finally {
    await watcher.stop();
  }
  log(`B4: inserting ${count} deployed instances × ${ELEMENTS} elements into ${stack.schema}`);
  const insertStart = performance.now();
  await insertCopies(stack, templateId, count - 1, runId);
  const insertS = (performance.now() - insertStart) / 1000;

  log('B4: restarting the runtime on the filled database');
  await stack.stopRuntime();
  const restartStart = performance.now();
  await stack.startRuntime();
  const runtimeRestartS = (performance.now() - restartStart) / 1000;

  const ids = (
    await stack.pool.query<{ instance_id: string }>(
      `SELECT instance_id FROM automation_composition ORDER BY random() LIMIT 200`,
    )
  ).rows.map((row) => row.instance_id);
  const one = (index: number) =>
    stack.api.get(`${API}/compositions/${compositionId}/instances/${ids[index % ids.length] ?? templateId}`);
  await timeRequests(20, one);
  log('B4: GET one instance × 200, GET a page of 100 × 30');
  const getInstanceMs = await timeRequests(200, one);
  const page = () => stack.api.get(`${API}/instances?page=0&size=100`);
  await timeRequests(3, page);
  const getPage100Ms = await timeRequests(30, page);

  log(`B4: ${DEPLOYS} more deploys through REST`);
  const deployWatcher = new OperationWatcher(stack.pool, 'DEPLOY', 5);
  deployWatcher.start();
  const durations: number[] = [];
  try {
    for (let index = 0; index < DEPLOYS; index += 1) {
      const instanceId = await instantiate(stack.api, tenElementInstance(compositionId, `bench-b4-${runId}-d${index}`));
      await order(stack.api, compositionId, instanceId, { deployOrder: 'DEPLOY' }, 'deploy');
      await deployWatcher.finished(instanceId, 60_000);
      const operation = recordedDuration(
        (await instanceHistory(stack.api, compositionId, instanceId)).operations,
        'DEPLOY',
      );
      if (operation?.durationMs !== undefined) {
        durations.push(operation.durationMs);
      }
    }
  } finally {
    await deployWatcher.stop();
  }

  log('B4: supervision tick SQL (EXPLAIN ANALYZE, then 200 timed ticks)');
  const client = new Client({ connectionString: services.databaseUrl, options: `-c search_path=${stack.schema}` });
  await client.connect();
  let supervision: B4Result['supervision'];
  try {
    const overdue = await explain(client, OVERDUE_SQL, [new Date()]);
    const replica = await explain(client, REPLICA_SQL, [new Date(Date.now() - MAX_STATUS_WAIT_MS)]);
    const outbox = await explain(client, OUTBOX_SQL, []);
    await timeTick(client, 20);
    supervision = {
      ...(await timeTick(client, 200)),
      explain: { overdue: overdue.plan, replica: replica.plan, outbox: outbox.plan },
      explainExecutionMs: { overdue: overdue.ms, replica: replica.ms, outbox: outbox.ms },
    };
  } finally {
    await client.end();
  }
  const memory = processMemory(stack.runtimePid);

  log('B4: GET participants?page=0&size=10 × 3 at this scale');
  // Informative only: a failure here (e.g. no answer within 60 s) is recorded, not fatal.
  const participantsPageMs = await timeRequests(3, () => stack.api.get(`${API}/participants?page=0&size=10`)).catch(
    (error: unknown) => {
      log(`B4: GET participants failed: ${String(error)}`);
      return summarize([]);
    },
  );
  const after = processMemory(stack.runtimePid);

  return {
    instances: count,
    elementsPerInstance: ELEMENTS,
    elementRows: count * ELEMENTS,
    insertS: round(insertS, 1),
    runtimeRestartS: round(runtimeRestartS, 1),
    getInstanceMs,
    getPage100Ms,
    deployMs: summarize(durations),
    supervision,
    runtimeRssMb: round(memory.rssMb, 0),
    runtimeVmHwmMb: round(memory.hwmMb, 0),
    participantsPageMs,
    runtimeRssAfterParticipantsMb: round(after.rssMb, 0),
  };
}
