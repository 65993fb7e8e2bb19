import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { MIGRATIONS } from '@acm/persistence';
import { ProductProcess, RUNTIME_SCRIPT, freePort } from '../support/processes';
import { BASE, PASSWORD, REPO_ROOT, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import { testDatabaseUrl } from '../support/services';

/** The release a database is made with before HEAD opens it: a commit of this repository's own history. */
const PREVIOUS_RELEASE = readRepoFile('test/upgrade/previous-release').trim();
/** Kept between runs (git-ignored): a clone built once per release is reused. */
const RELEASE_DIR = join(REPO_ROOT, '.services', 'previous-release', PREVIOUS_RELEASE);

const git = (args: string[], cwd: string): void => {
  execFileSync('git', args, { cwd, stdio: 'pipe' });
};

/**
 * The previous release, checked out from the repository's own git and built with tsc: it reuses this checkout's
 * node_modules (the release's lock must need nothing more), and leaves the console and embedded snapshot out, which
 * a runtime on PostgreSQL does not use.
 */
function buildPreviousRelease(): string {
  const script = join(RELEASE_DIR, RUNTIME_SCRIPT);
  if (existsSync(script)) {
    return script;
  }
  rmSync(RELEASE_DIR, { recursive: true, force: true });
  mkdirSync(join(RELEASE_DIR, '..'), { recursive: true });
  git(['clone', '--quiet', '--shared', '--no-checkout', REPO_ROOT, RELEASE_DIR], REPO_ROOT);
  git(['checkout', '--quiet', '--detach', PREVIOUS_RELEASE], RELEASE_DIR);
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(RELEASE_DIR, 'node_modules'), 'dir');
  const bin = (name: string): string => join(REPO_ROOT, 'node_modules', '.bin', name);
  execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json'], { cwd: RELEASE_DIR, stdio: 'pipe' });
  execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json'], { cwd: RELEASE_DIR, stdio: 'pipe' });
  return script;
}

type Api = ReturnType<typeof request.agent>;

interface Runtime {
  readonly api: Api;
  readonly process: ProductProcess;
}

/** A runtime on the suite's schema with the in-process bus and its built-in simulator. */
async function startRuntime(name: string, script: string, schema: string): Promise<Runtime> {
  const port = await freePort();
  const runtime = new ProductProcess(name, relative(REPO_ROOT, script), {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: testDatabaseUrl(),
    DATABASE_SCHEMA: schema,
    SIMULATOR: 'true',
    SIMULATOR_TIMERS_MS: '20',
    LOG_LEVEL: 'warn',
  });
  runtime.start();
  const api = request.agent(`http://127.0.0.1:${port}`).auth(USER, PASSWORD);
  await eventually(
    `${name} to answer`,
    async () => {
      const health = await api.get('/onap/policy/clamp/acm/actuator/health').catch(() => null);
      return health?.status === 200 ? true : undefined;
    },
    6000,
  );
  // The built-in simulator registers after the health route answers: a PRIME before that is refused (no participant
  // supports the element types yet), so the database is made only once it is known.
  await eventually(
    `${name}'s built-in participant to register`,
    async () => {
      const participants = await api.get(`${BASE}/participants`).catch(() => null);
      return participants?.status === 200 && Array.isArray(participants.body) && participants.body.length > 0
        ? true
        : undefined;
    },
    6000,
  );
  return { api, process: runtime };
}

async function stateOf(api: Api, path: string): Promise<Record<string, unknown>> {
  const answer = await api.get(`${BASE}${path}`);
  expect(answer.status).toBe(200);
  return answer.body as Record<string, unknown>;
}

/** Waits until the definition or instance at `path` has the given fields. */
async function reaches(api: Api, path: string, fields: Record<string, string>): Promise<void> {
  await eventually(
    `${path} to reach ${JSON.stringify(fields)}`,
    async () => {
      const body = await stateOf(api, path);
      return Object.entries(fields).every(([key, value]) => body[key] === value) ? true : undefined;
    },
    3000,
  );
}

/** What must survive an upgrade of an instance: its identity, states and elements with their properties. */
function instanceFacts(body: Record<string, unknown>): unknown {
  const elements = Object.values(body['elements'] as Record<string, Record<string, unknown>>);
  return {
    name: body['name'],
    version: body['version'],
    compositionId: body['compositionId'],
    deployState: body['deployState'],
    lockState: body['lockState'],
    stateChangeResult: body['stateChangeResult'],
    elements: elements
      .map((element) => ({
        id: element['id'],
        definition: element['definition'],
        deployState: element['deployState'],
        lockState: element['lockState'],
        properties: element['properties'],
      }))
      .sort((a, b) => String(a.id).localeCompare(String(b.id))),
  };
}

function definitionFacts(body: Record<string, unknown>): unknown {
  const template = body['serviceTemplate'] as Record<string, unknown>;
  return { name: template['name'], version: template['version'], state: body['state'] };
}

async function migrationsIn(schema: string): Promise<string[]> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    const rows = await client.query<{ name: string }>(`SELECT name FROM "${schema}".acm_migrations ORDER BY id`);
    return rows.rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

/**
 * A database made by the previous release, opened by HEAD: its migrations run, and every definition and instance
 * made before, in several states, reads the same and takes its next order.
 */
describe('upgrade from the previous release', () => {
  const schema = `upgrade_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const running: ProductProcess[] = [];
  let previousScript: string;

  beforeAll(async () => {
    previousScript = buildPreviousRelease();
    const admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.end();
  }, 600_000);

  afterAll(async () => {
    for (const runtime of running) {
      await runtime.stop();
    }
    const admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('migrates a database of the previous release; every definition and instance is intact and takes orders', async () => {
    // The previous release makes the database: a primed definition with instances in three states, and a
    // commissioned definition.
    const previous = await startRuntime('upgrade-previous', previousScript, schema);
    running.push(previous.process);
    const commission = async (file: string): Promise<string> => {
      const answer = await previous.api
        .post(`${BASE}/compositions`)
        .set('Content-Type', 'application/yaml')
        .send(readRepoFile(file));
      expect(answer.status).toBe(201);
      return (answer.body as { compositionId: string }).compositionId;
    };
    const primedId = await commission('tosca/examples/sim-three-phase.yaml');
    const commissionedId = await commission('tosca/examples/sim-single-element.yaml');
    const prime = await previous.api.put(`${BASE}/compositions/${primedId}`).send({ primeOrder: 'PRIME' });
    // A refusal shows its errorDetails.
    expect({ status: prime.status, refusal: prime.status === 202 ? null : prime.body }).toEqual({
      status: 202,
      refusal: null,
    });
    await reaches(previous.api, `/compositions/${primedId}`, { state: 'PRIMED' });

    const example = readRepoFile('tosca/examples/instances/sim-three-phase.json');
    const create = async (suffix: string): Promise<string> => {
      const body = example
        .replace('SimThreePhaseInstance', `Upgraded${suffix}`)
        .replaceAll('-8000-00000000', `-8000-${suffix}0000`);
      const answer = await previous.api
        .post(`${BASE}/compositions/${primedId}/instances`)
        .send({ ...(JSON.parse(body) as object), compositionId: primedId });
      expect(answer.status).toBe(201);
      return (answer.body as { instanceId: string }).instanceId;
    };
    const deployed = await create('0001');
    const undeployed = await create('0002');
    const unlocked = await create('0003');
    const order = (api: Api, instanceId: string, body: Record<string, string>) =>
      api.put(`${BASE}/compositions/${primedId}/instances/${instanceId}`).send(body).expect(202);
    for (const instanceId of [deployed, unlocked]) {
      await order(previous.api, instanceId, { deployOrder: 'DEPLOY' });
      await reaches(previous.api, `/compositions/${primedId}/instances/${instanceId}`, { deployState: 'DEPLOYED' });
    }
    await order(previous.api, unlocked, { lockOrder: 'UNLOCK' });
    await reaches(previous.api, `/compositions/${primedId}/instances/${unlocked}`, { lockState: 'UNLOCKED' });

    const instancePaths = [deployed, undeployed, unlocked].map((id) => `/compositions/${primedId}/instances/${id}`);
    const definitionPaths = [primedId, commissionedId].map((id) => `/compositions/${id}`);
    const instancesBefore = await Promise.all(instancePaths.map(async (path) => stateOf(previous.api, path)));
    const definitionsBefore = await Promise.all(definitionPaths.map(async (path) => stateOf(previous.api, path)));
    const migrationsBefore = await migrationsIn(schema);
    await previous.process.stop();

    // HEAD opens it: every migration it knows is applied, and nothing made before has changed.
    const head = await startRuntime('upgrade-head', join(REPO_ROOT, RUNTIME_SCRIPT), schema);
    running.push(head.process);
    const migrationsAfter = await migrationsIn(schema);
    expect(migrationsAfter.slice(0, migrationsBefore.length)).toEqual(migrationsBefore);
    expect(migrationsAfter).toEqual(MIGRATIONS.map((migration) => migration.name));
    const instancesAfter = await Promise.all(instancePaths.map(async (path) => stateOf(head.api, path)));
    const definitionsAfter = await Promise.all(definitionPaths.map(async (path) => stateOf(head.api, path)));
    expect(instancesAfter.map(instanceFacts)).toEqual(instancesBefore.map(instanceFacts));
    expect(definitionsAfter.map(definitionFacts)).toEqual(definitionsBefore.map(definitionFacts));
    expect(instancesAfter.map((instance) => [instance['deployState'], instance['lockState']])).toEqual([
      ['DEPLOYED', 'LOCKED'],
      ['UNDEPLOYED', 'NONE'],
      ['DEPLOYED', 'UNLOCKED'],
    ]);

    // And each takes the order its state allows next.
    await order(head.api, deployed, { deployOrder: 'UNDEPLOY' });
    await order(head.api, undeployed, { deployOrder: 'DEPLOY' });
    await order(head.api, unlocked, { lockOrder: 'LOCK' });
    await head.api.put(`${BASE}/compositions/${commissionedId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await reaches(head.api, instancePaths[0]!, { deployState: 'UNDEPLOYED', stateChangeResult: 'NO_ERROR' });
    await reaches(head.api, instancePaths[1]!, { deployState: 'DEPLOYED', stateChangeResult: 'NO_ERROR' });
    await reaches(head.api, instancePaths[2]!, { lockState: 'LOCKED', stateChangeResult: 'NO_ERROR' });
    await reaches(head.api, definitionPaths[1]!, { state: 'PRIMED', stateChangeResult: 'NO_ERROR' });
  }, 300_000);
});
