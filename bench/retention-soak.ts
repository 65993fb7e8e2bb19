/**
 * A soak of history retention: the built runtime (dist/) on the shared PostgreSQL, in a schema of its own, with the
 * built-in simulator on the in-process bus and retention set short; workers deploy and undeploy their own instance
 * of the three-phase example in a loop at a moderate rate. Every minute it prints the rows and bytes of the history
 * tables, which must stay flat once retention has caught up. Run after `npm run build`:
 *
 *   npx tsc bench/retention-soak.ts --outDir /tmp/soak --module commonjs --target es2022 --esModuleInterop \
 *     --skipLibCheck && node /tmp/soak/retention-soak.js [minutes=20] [workers=6]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

const REPO = process.env['REPO_ROOT'] ?? process.cwd();
const DATABASE_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://acm:acm@127.0.0.1:55432/acm';
const PORT = 16000 + Math.floor(Math.random() * 2000);
const API = `http://127.0.0.1:${PORT}/onap/policy/clamp/acm/v2`;
const AUTH = `Basic ${Buffer.from('runtimeUser:zb!XztG34').toString('base64')}`;
const TABLES = ['acm_event', 'acm_operation', 'acm_operation_message', 'acm_message_answer'] as const;
const RETENTION = {
  RETENTION_MAX_AGE: '60000',
  RETENTION_FAILED_MAX_AGE: '120000',
  RETENTION_KEEP_LAST: '2',
  RETENTION_MAX_OPERATIONS: '10',
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function call(method: string, path: string, body?: string, type = 'application/json'): Promise<Response> {
  return fetch(`${API}${path}`, {
    method,
    headers: {
      Authorization: AUTH,
      Accept: 'application/json',
      ...(body === undefined ? {} : { 'Content-Type': type }),
    },
    body,
  });
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, deadlineMs = 120_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await sleep(100);
  }
}

async function sample(db: Client): Promise<Record<string, number>> {
  const row: Record<string, number> = {};
  let bytes = 0;
  for (const table of TABLES) {
    const { rows } = await db.query<{ n: string; bytes: string }>(
      `SELECT (SELECT count(*) FROM ${table}) AS n, pg_total_relation_size('${table}') AS bytes`,
    );
    row[`${table}.rows`] = Number(rows[0]?.n);
    row[`${table}.bytes`] = Number(rows[0]?.bytes);
    bytes += Number(rows[0]?.bytes);
  }
  const { rows } = await db.query<{ bytes: string }>(
    `SELECT coalesce(sum(pg_total_relation_size(format('%I.%I', schemaname, tablename))), 0) AS bytes
     FROM pg_tables WHERE schemaname = current_schema()`,
  );
  row['historyBytes'] = bytes;
  row['schemaBytes'] = Number(rows[0]?.bytes);
  return row;
}

async function main(): Promise<void> {
  const minutes = Number(process.argv[2] ?? '20');
  const workers = Number(process.argv[3] ?? '6');
  const schema = `soak_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const child = spawn(process.execPath, [join(REPO, 'dist/apps/runtime-acm/src/main.js')], {
    env: {
      PATH: process.env['PATH'] ?? '',
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATABASE_URL,
      DATABASE_SCHEMA: schema,
      SIMULATOR: 'true',
      LOG_LEVEL: 'warn',
      HEART_BEAT: '5000',
      ...RETENTION,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  let stopping = false;
  try {
    await until(async () => ((await call('GET', '/participants')).status === 200 ? true : undefined), 'the runtime');
    await db.query(`SET search_path TO "${schema}"`);
    const yaml = readFileSync(join(REPO, 'tosca/examples/sim-three-phase.yaml'), 'utf8');
    const created = (await (await call('POST', '/compositions', yaml, 'application/yaml')).json()) as {
      compositionId: string;
    };
    const compositionId = created.compositionId;
    await call('PUT', `/compositions/${compositionId}`, JSON.stringify({ primeOrder: 'PRIME' }));
    await until(async () => {
      const body = (await (await call('GET', `/compositions/${compositionId}`)).json()) as { state: string };
      return body.state === 'PRIMED' ? true : undefined;
    }, 'PRIMED');
    const template = readFileSync(join(REPO, 'tosca/examples/instances/sim-three-phase.json'), 'utf8');
    const orders = { done: 0, failed: 0 };
    const loops = Array.from({ length: workers }, async (_, index) => {
      const body = JSON.parse(template.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as {
        name: string;
        elements: Record<string, { id: string }>;
      };
      const elements = Object.fromEntries(
        Object.values(body.elements).map((element) => {
          const id = randomUUID();
          return [id, { ...element, id }];
        }),
      );
      const answer = await call(
        'POST',
        `/compositions/${compositionId}/instances`,
        JSON.stringify({ ...body, name: `soak-${index}`, elements }),
      );
      const { instanceId } = (await answer.json()) as { instanceId: string };
      const path = `/compositions/${compositionId}/instances/${instanceId}`;
      for (let deploy = true; !stopping; deploy = !deploy) {
        const sent = await call('PUT', path, JSON.stringify({ deployOrder: deploy ? 'DEPLOY' : 'UNDEPLOY' }));
        if (sent.status !== 202) {
          orders.failed++;
          await sleep(500);
          continue;
        }
        await until(async () => {
          const got = (await (await call('GET', path)).json()) as { deployState: string };
          return got.deployState === (deploy ? 'DEPLOYED' : 'UNDEPLOYED') ? true : undefined;
        }, 'the order');
        orders.done++;
        await sleep(250);
      }
    });
    const samples: Array<Record<string, number>> = [];
    const started = Date.now();
    for (let minute = 0; minute <= minutes; minute++) {
      const row = { minute, orders: orders.done, refused: orders.failed, ...(await sample(db)) };
      samples.push(row);
      console.log(JSON.stringify(row));
      if (minute < minutes) {
        await sleep(Math.max(0, started + (minute + 1) * 60_000 - Date.now()));
      }
    }
    stopping = true;
    await Promise.allSettled(loops);
    const scrape = await (
      await fetch(`http://127.0.0.1:${PORT}/onap/policy/clamp/acm/actuator/prometheus`, {
        headers: { Authorization: AUTH },
      })
    ).text();
    console.log(
      scrape
        .split('\n')
        .filter((line) => line.startsWith('acm_history_pruned_rows_total'))
        .join('\n'),
    );
    console.log('\n| minute | orders | acm_event | acm_operation | messages | answers | history tables | schema |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    const mib = (bytes: number | undefined): string => `${((bytes ?? 0) / 1048576).toFixed(2)} MiB`;
    for (const row of samples) {
      console.log(
        `| ${row['minute']} | ${row['orders']} | ${row['acm_event.rows']} | ${row['acm_operation.rows']} | ` +
          `${row['acm_operation_message.rows']} | ${row['acm_message_answer.rows']} | ${mib(row['historyBytes'])} | ` +
          `${mib(row['schemaBytes'])} |`,
      );
    }
  } finally {
    stopping = true;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
