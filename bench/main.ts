/**
 * `npm run bench [-- --quick] [-- --only B1,B3,STARTUP,IDLE,ROLLOUT,B5] [-- --keep] [-- --embedded]`: the performance benchmarks of
 * docs/performance.md. Starts (or reuses) PostgreSQL and Kafka with scripts/services-up.sh, then for
 * each benchmark a fresh stack (runtime + instant simulator as processes, fresh schema and topics),
 * and writes bench/results/latest.json and latest.md. Measures only: nothing here asserts on time.
 * `--embedded` runs B1, B2 and PROFILE against the embedded default instead (bench/embedded.ts; B3 and B4 are
 * skipped) and writes latest-embedded(-quick).json/md.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runB1 } from './b1-latency';
import { runB2 } from './b2-throughput';
import type { B2Run, SqlWindow } from './b2-throughput';
import { runB3 } from './b3-s3p';
import { runB4 } from './b4-scale';
import { runRolloutBench } from './rollout';
import { runStartup } from './startup';
import { runFloor } from './floor';
import { runB5 } from './b5-fleet';
import { B5_FULL, B5_QUICK, b5Size } from './b5-figures';
import { IDLE_FULL, IDLE_QUICK, ONAP_HEARTBEAT_MS, runIdle, runIdleEmbedded } from './idle';
import { OBSERVE_FULL, OBSERVE_QUICK, runObserve } from './observe';
import type { EmbeddedSuite } from './embedded';
import { embeddedSuiteMarkdown, runEmbeddedSuite } from './embedded';
import { machineInfo, sourceState } from './lib/machine';
import { BUILD_DIR, REPO_ROOT, RUNTIME_SCRIPT, stopAll } from './lib/processes';
import type { StackOptions } from './lib/stack';
import { Stack, servicesFromEnv } from './lib/stack';
import { round } from './lib/stats';
import { busyShare, machineCpu } from './lib/procfs';
import { log, sleep } from './lib/util';
import { summarizeProfile } from './profile-summary';
import type { Failure, Results, Sizes } from './report';
import { resultsMarkdown } from './report';

const FULL: Sizes = {
  b1Instances: 200,
  b2Instances: 1000,
  b2InFlight: 50,
  b3Users: 5,
  b3Loops: 100,
  b4Instances: 10_000,
  profileInstances: 300,
  rolloutInstances: 1000,
  rolloutBatchSize: 100,
};

const QUICK: Sizes = {
  b1Instances: 30,
  b2Instances: 100,
  b2InFlight: 50,
  b3Users: 5,
  b3Loops: 10,
  b4Instances: 1_000,
  profileInstances: 100,
  rolloutInstances: 200,
  rolloutBatchSize: 20,
};

const BENCHMARKS = ['B1', 'B2', 'PROFILE', 'B3', 'B4', 'FLOOR', 'STARTUP', 'IDLE', 'ROLLOUT', 'B5', 'OBSERVE'] as const;
type Benchmark = (typeof BENCHMARKS)[number];

interface Arguments {
  quick: boolean;
  keep: boolean;
  embedded: boolean;
  only: Set<Benchmark>;
}

function parseArguments(argv: string[]): Arguments {
  const only = new Set<Benchmark>(BENCHMARKS);
  let quick = false;
  let keep = false;
  let embedded = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    if (argument === '--quick') {
      quick = true;
    } else if (argument === '--keep') {
      keep = true;
    } else if (argument === '--embedded') {
      embedded = true;
    } else if (argument === '--only' || argument.startsWith('--only=')) {
      const list = argument.includes('=') ? argument.slice('--only='.length) : (argv[(index += 1)] ?? '');
      only.clear();
      for (const name of list.split(',').map((item) => item.trim().toUpperCase())) {
        if (!(BENCHMARKS as readonly string[]).includes(name)) {
          throw new Error(`--only: unknown benchmark "${name}" (choose from ${BENCHMARKS.join(', ')})`);
        }
        only.add(name as Benchmark);
      }
    } else {
      throw new Error(
        `unknown argument "${argument}" (use --quick, --only B1,B2,PROFILE,B3,B4,FLOOR,STARTUP,IDLE,ROLLOUT,B5,OBSERVE, --keep, --embedded)`,
      );
    }
  }
  return { quick, keep, embedded, only };
}

const activeStacks = new Set<Stack>();
const backgroundBusyPct: Record<string, number> = {};

async function withStack<T>(
  name: string,
  runId: string,
  logDir: string,
  keep: boolean,
  options: StackOptions,
  body: (stack: Stack) => Promise<T>,
): Promise<T | Failure> {
  // Other work on the machine skews every figure: record how busy it was just before this benchmark.
  const before = machineCpu();
  await sleep(1000);
  backgroundBusyPct[name] = round(busyShare(before, machineCpu()) * 100, 0);
  const stack = new Stack(name, runId, servicesFromEnv(), logDir, options, keep);
  activeStacks.add(stack);
  try {
    log(`${name}: starting runtime and simulator (schema ${stack.schema})`);
    await stack.start();
    return await body(stack);
  } catch (error) {
    log(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    await stack.stop();
    activeStacks.delete(stack);
  }
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2));
  const sizes = args.quick ? QUICK : FULL;
  const runId = randomBytes(4).toString('hex');
  const startedAt = new Date().toISOString();
  const start = performance.now();
  const logDir = join(REPO_ROOT, '.services', 'bench-logs', runId);
  const resultsDir = join(REPO_ROOT, 'bench', 'results');
  const profileDir = join(resultsDir, 'profiles');
  mkdirSync(profileDir, { recursive: true });

  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) {
      return;
    }
    interrupted = true;
    log(`${signal}: stopping the processes this run started`);
    void Promise.allSettled([...activeStacks].map((stack) => stack.stop()))
      .then(() => stopAll())
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  if (!existsSync(RUNTIME_SCRIPT)) {
    throw new Error(`${RUNTIME_SCRIPT} missing: run through "npm run bench", which compiles into dist-bench/`);
  }
  log(`run ${runId} (${args.quick ? 'quick' : 'full'}); services: scripts/services-up.sh`);
  const services = spawnSync('bash', [join(REPO_ROOT, 'scripts/services-up.sh')], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 600_000,
  });
  if (services.status !== 0) {
    throw new Error(`scripts/services-up.sh failed (exit ${String(services.status)})`);
  }
  const serviceAddresses = servicesFromEnv();
  const results: Results & { embedded?: EmbeddedSuite } = {
    runId,
    mode: args.quick ? 'quick' : 'full',
    startedAt,
    harnessS: 0,
    machine: await machineInfo(serviceAddresses.databaseUrl),
    source: sourceState(),
    sizes,
  };
  log(`logs of the runtime and simulators: ${logDir}`);

  if (args.embedded && !interrupted) {
    results.embedded = await runEmbeddedSuite(args.only, sizes, runId, logDir, profileDir);
  }
  if (args.only.has('B1') && !args.embedded && !interrupted) {
    results.b1 = await withStack('b1', runId, logDir, args.keep, {}, (stack) =>
      runB1(stack, serviceAddresses.brokers, runId, sizes.b1Instances),
    );
  }
  if (args.only.has('B2') && !args.embedded && !interrupted) {
    results.b2 = await withStack('b2', runId, logDir, args.keep, {}, async (stack) => {
      return (await runB2(stack, runId, sizes.b2Instances, sizes.b2InFlight)).result;
    });
  }
  if (args.only.has('PROFILE') && !args.embedded && !interrupted) {
    const name = `runtime-${runId}.cpuprofile`;
    const file = join(profileDir, name);
    const simulatorName = `simulator-${runId}-{index}.cpuprofile`;
    const simulatorFile = join(profileDir, simulatorName.replace('{index}', '0'));
    const sqlCountFile = join(logDir, 'prof-sql-counts.json');
    const kafkaCountFiles = {
      runtime: join(logDir, 'prof-kafka-counts-runtime.json'),
      participants: [join(logDir, 'prof-kafka-counts-simulator.json')],
    };
    const options = {
      runtimeNodeArgs: [
        '--cpu-prof',
        '--cpu-prof-dir',
        profileDir,
        '--cpu-prof-name',
        name,
        '--require',
        join(BUILD_DIR, 'bench/sql-counter.js'),
        '--require',
        join(BUILD_DIR, 'bench/kafka-counter.js'),
      ],
      runtimeEnv: { BENCH_SQL_COUNT_FILE: sqlCountFile, BENCH_KAFKA_COUNT_FILE: kafkaCountFiles.runtime },
      simulatorNodeArgs: [
        '--cpu-prof',
        '--cpu-prof-dir',
        profileDir,
        '--cpu-prof-name',
        simulatorName,
        '--require',
        join(BUILD_DIR, 'bench/kafka-counter.js'),
      ],
      simulatorEnv: { BENCH_KAFKA_COUNT_FILE: kafkaCountFiles.participants[0] ?? '' },
    };
    let window = { from: 0, to: 0 };
    let sql: SqlWindow | undefined;
    let kafka: B2Run['kafka'];
    const b2 = await withStack('prof', runId, logDir, args.keep, options, async (stack) => {
      const run = await runB2(
        stack,
        runId,
        sizes.profileInstances,
        sizes.b2InFlight,
        'PROF',
        sqlCountFile,
        kafkaCountFiles,
      );
      window = run.windowUs;
      sql = run.sql;
      kafka = run.kafka;
      return run.result;
    });
    // The profile is written when the runtime exits, i.e. once withStack stopped it.
    if ('error' in b2) {
      results.profile = b2;
    } else if (!existsSync(file)) {
      results.profile = { error: `no profile written at ${file}` };
    } else {
      results.profile = {
        file: `bench/results/profiles/${name}`,
        b2,
        ...(sql === undefined ? {} : { sql }),
        ...(kafka === undefined ? {} : { kafka }),
        summary: summarizeProfile(file, { fromUs: window.from, toUs: window.to, top: 25 }),
        simulator: existsSync(simulatorFile)
          ? {
              file: `bench/results/profiles/${simulatorName.replace('{index}', '0')}`,
              summary: summarizeProfile(simulatorFile, { fromUs: window.from, toUs: window.to, top: 25 }),
            }
          : { error: `no simulator profile written at ${simulatorFile}` },
      };
    }
  }
  if (args.only.has('B3') && !args.embedded && !interrupted) {
    results.b3 = await withStack('b3', runId, logDir, args.keep, {}, (stack) =>
      runB3(stack, runId, sizes.b3Users, sizes.b3Loops),
    );
  }
  if (args.only.has('B4') && !args.embedded && !interrupted) {
    results.b4 = await withStack('b4', runId, logDir, args.keep, {}, (stack) =>
      runB4(stack, serviceAddresses, runId, sizes.b4Instances),
    );
  }
  if (args.only.has('ROLLOUT') && !args.embedded && !interrupted) {
    results.rollout = await withStack('rollout', runId, logDir, args.keep, {}, (stack) =>
      runRolloutBench(stack, runId, sizes.rolloutInstances, sizes.rolloutBatchSize),
    );
  }

  if (args.only.has('IDLE') && !args.embedded && !interrupted) {
    const idleSizes = args.quick ? IDLE_QUICK : IDLE_FULL;
    const idle = await withStack(
      'idle',
      runId,
      logDir,
      args.keep,
      { simulatorEnv: { HEARTBEAT_MS: String(ONAP_HEARTBEAT_MS) } },
      (stack) => runIdle(stack, idleSizes, logDir),
    );
    results.idle = 'error' in idle ? idle : { ...idle, embedded: await runIdleEmbedded(idleSizes, logDir) };
  }

  if (args.only.has('OBSERVE') && !args.embedded && !interrupted) {
    results.observe = await withStack(
      'observe',
      runId,
      logDir,
      args.keep,
      { simulatorEnv: { HEARTBEAT_MS: String(ONAP_HEARTBEAT_MS), SIM_OBSERVE: 'true' } },
      (stack) => runObserve(stack, runId, args.quick ? OBSERVE_QUICK : OBSERVE_FULL, ONAP_HEARTBEAT_MS),
    );
  }

  if (args.only.has('B5') && !args.embedded && !interrupted) {
    try {
      const size = b5Size(args.quick ? B5_QUICK : B5_FULL, process.env['BENCH_B5_SIZE']);
      results.b5 = await runB5(serviceAddresses, runId, logDir, size, args.keep);
    } catch (error) {
      log(`B5 failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      results.b5 = { error: error instanceof Error ? error.message : String(error) };
    }
  }

  // After the others: a broker that just started answers slower for a while, which would be charged to the floor.
  if (args.only.has('FLOOR') && !args.embedded && !interrupted) {
    try {
      results.floor = await runFloor(
        serviceAddresses.brokers,
        runId,
        logDir,
        sizes.b1Instances,
        sizes.b2Instances,
        sizes.b2InFlight,
      );
    } catch (error) {
      log(`FLOOR failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      results.floor = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  if (args.only.has('STARTUP') && !interrupted) {
    try {
      results.startup = await runStartup(logDir);
    } catch (error) {
      log(`STARTUP failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      results.startup = { error: error instanceof Error ? error.message : String(error) };
    }
  }

  results.harnessS = round((performance.now() - start) / 1000, 1);
  results.backgroundBusyPct = backgroundBusyPct;
  const json = `${JSON.stringify(results, null, 2)}\n`;
  const markdown =
    results.embedded === undefined
      ? resultsMarkdown(results)
      : `${resultsMarkdown(results)}\n${embeddedSuiteMarkdown(results.embedded)}\n`;
  // A quick or partial run never overwrites the committed full results.
  const complete = args.only.size === BENCHMARKS.length;
  const base = args.embedded
    ? `latest-embedded${args.quick ? '-quick' : ''}`
    : !args.quick && complete
      ? 'latest'
      : args.quick && complete
        ? 'latest-quick'
        : 'latest-partial';
  writeFileSync(join(resultsDir, `${base}.json`), json);
  writeFileSync(join(resultsDir, `${base}.md`), markdown);
  process.stdout.write(`\n${markdown}\n`);
  log(`wrote bench/results/${base}.json and ${base}.md in ${results.harnessS} s`);
}

main()
  .catch(async (error: unknown) => {
    log(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await Promise.allSettled([...activeStacks].map((stack) => stack.stop()));
    await stopAll();
    process.exitCode = 1;
  })
  .finally(() => {
    // kafkajs and pg may keep sockets open a moment; everything this run started is stopped by now.
    setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
  });
