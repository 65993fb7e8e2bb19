/**
 * B5's pure parts: the fleet's layout (compositions, participants, processes), the composition each group of six
 * participants serves, the lost / stuck / duplicated accounting and the figures of an order wave. No I/O, no clock:
 * bench/b5-fleet.ts gathers the inputs, test/b5-figures.spec.ts checks the arithmetic.
 */
import type { Summary } from './lib/stats';
import { round, summarize } from './lib/stats';
import type { KafkaRates, KafkaWindow } from './kafka-counts';
import { kafkaWindowMarkdown } from './kafka-counts';

/** Elements of the composition, one participant type each (two per start phase, three phases). */
export const FLEET_ELEMENTS = 6;

export interface FleetSize {
  instances: number;
  participants: number;
  /** Participants per participant process. */
  participantsPerProcess: number;
  replicas: number;
  /** Orders in flight at once during a wave. */
  inFlight: number;
  /** STATUS heartbeat of the short steady state, ms (the other one is ONAP's 120 000). */
  shortHeartbeatMs: number;
  /** Each steady-state window, s. */
  steadyWindowS: number;
}

export const B5_FULL: FleetSize = {
  instances: 10_000,
  participants: 1_000,
  participantsPerProcess: 100,
  replicas: 3,
  inFlight: 150,
  shortHeartbeatMs: 5_000,
  steadyWindowS: 60,
};

export const B5_QUICK: FleetSize = {
  instances: 300,
  participants: 30,
  participantsPerProcess: 15,
  replicas: 3,
  inFlight: 60,
  shortHeartbeatMs: 5_000,
  steadyWindowS: 20,
};

export interface FleetParticipantSpec {
  participantId: string;
  typeName: string;
  typeVersion: string;
}

/** What a participant process reports about its handler calls. */
export interface ParticipantReport {
  participants: number;
  handlerCalls: number;
  /** Calls for an order (message id) and element already handled once. */
  repeatedCalls: number;
}

export interface FleetLayout {
  /** Compositions, each served by its own six participants (one per element). */
  groups: number;
  participants: FleetParticipantSpec[][];
  /** The participants of each process. */
  processes: FleetParticipantSpec[][];
  /** Instances per group, the remainder spread over the first groups. */
  instancesPerGroup: number[];
}

/** The element type of element `element` (1..6) in group `group`: one name per element, one version per group. */
export function fleetElementType(group: number, element: number): { typeName: string; typeVersion: string } {
  return { typeName: `bench.fleet.Element${element}`, typeVersion: `1.${group}.0` };
}

/**
 * Splits the fleet: `participants / 6` compositions (groups) of six participants, instances spread evenly over the
 * groups, participants packed into processes. `ids` hands out participant ids (random in the harness).
 */
export function fleetLayout(size: FleetSize, ids: () => string): FleetLayout {
  const groups = Math.floor(size.participants / FLEET_ELEMENTS);
  if (groups < 1 || size.instances < groups || size.participantsPerProcess < 1) {
    throw new Error(
      `B5 needs at least ${FLEET_ELEMENTS} participants, one instance per composition and one participant per process`,
    );
  }
  const participants: FleetParticipantSpec[][] = [];
  for (let group = 0; group < groups; group += 1) {
    const members: FleetParticipantSpec[] = [];
    for (let element = 1; element <= FLEET_ELEMENTS; element += 1) {
      members.push({ participantId: ids(), ...fleetElementType(group, element) });
    }
    participants.push(members);
  }
  const flat = participants.flat();
  const processes: FleetParticipantSpec[][] = [];
  for (let index = 0; index < flat.length; index += size.participantsPerProcess) {
    processes.push(flat.slice(index, index + size.participantsPerProcess));
  }
  const base = Math.floor(size.instances / groups);
  const remainder = size.instances - base * groups;
  const instancesPerGroup = Array.from({ length: groups }, (_, group) => base + (group < remainder ? 1 : 0));
  return { groups, participants, processes, instancesPerGroup };
}

const SIM_ELEMENT_REFERENCE =
  /type: org\.onap\.policy\.clamp\.acm\.SimAutomationCompositionElement\n(\s+)type_version: 1\.0\.0/g;

/**
 * The three-phase, six-element example rewritten for one group: its own name, and each element node template of its
 * own type (an element type of its own, like the simulator's), so priming assigns every element to a different participant.
 */
export function fleetCompositionYaml(threePhaseYaml: string, name: string, group: number): string {
  let element = 0;
  const referenced = threePhaseYaml.replace(SIM_ELEMENT_REFERENCE, (_match, indent: string) => {
    element += 1;
    const type = fleetElementType(group, element);
    return `type: ${type.typeName}\n${indent}type_version: ${type.typeVersion}`;
  });
  if (element !== FLEET_ELEMENTS) {
    throw new Error(`expected ${FLEET_ELEMENTS} simulator elements in the composition, found ${element}`);
  }
  const types = Array.from({ length: FLEET_ELEMENTS }, (_, index) => {
    const type = fleetElementType(group, index + 1);
    return [
      `  ${type.typeName}:`,
      `    version: ${type.typeVersion}`,
      // Directly: ONAP's element test looks at the node type's own derived_from only.
      '    derived_from: org.onap.policy.clamp.acm.AutomationCompositionElement',
      `    description: Element ${index + 1} of the B5 fleet composition ${group}.`,
      '    properties:',
      '      baseUrl:',
      '        type: string',
      '        required: false',
      '',
    ].join('\n');
  }).join('\n');
  const withTypes = referenced.replace(/^topology_template:/m, `${types}\ntopology_template:`);
  return withTypes.replace(/^name: .*$/m, `name: ${name}`);
}

/** An order the harness sent and the runtime accepted. */
export interface SentOrder {
  instanceId: string;
  /** Harness clock (ms since the epoch) just before the request. */
  sentAt: number;
}

/** A row of acm_operation for the wave's order. */
export interface OperationRow {
  targetId: string;
  state: string;
  startedAt: number;
  finishedAt: number | null;
}

export interface Accounting {
  ordered: number;
  completed: number;
  failed: number;
  /** Accepted orders with no operation recorded. */
  lost: number;
  /** Operations still running, or instances not in the state the order leads to. */
  stuck: number;
  /** More than one operation for one order, or a participant handling one order for one element twice. */
  duplicated: number;
  /** The ids behind the non-zero counts (at most 10 each), to look at. */
  examples: { lost: string[]; stuck: string[]; duplicated: string[]; failed: string[] };
}

/**
 * Checks a wave, not assumes it: every accepted order has exactly one operation, it finished COMPLETED, the instance
 * ended in `expectedState`, and no participant handled an order for an element twice.
 */
export function accountWave(
  orders: readonly SentOrder[],
  operations: readonly OperationRow[],
  finalStates: ReadonlyMap<string, string>,
  expectedState: string,
  reports: readonly ParticipantReport[],
): Accounting {
  const byTarget = new Map<string, OperationRow[]>();
  for (const row of operations) {
    byTarget.set(row.targetId, [...(byTarget.get(row.targetId) ?? []), row]);
  }
  const lost: string[] = [];
  const stuck: string[] = [];
  const duplicated: string[] = [];
  const failed: string[] = [];
  let completed = 0;
  for (const { instanceId } of orders) {
    const rows = byTarget.get(instanceId) ?? [];
    if (rows.length === 0) {
      lost.push(instanceId);
      continue;
    }
    if (rows.length > 1) {
      duplicated.push(instanceId);
    }
    const last = rows[rows.length - 1] as OperationRow;
    if (last.state === 'RUNNING' || finalStates.get(instanceId) !== expectedState) {
      stuck.push(instanceId);
    } else if (last.state === 'COMPLETED') {
      completed += 1;
    } else {
      failed.push(instanceId);
    }
  }
  const repeated = reports.reduce((sum, report) => sum + report.repeatedCalls, 0);
  const first = (ids: string[]): string[] => ids.slice(0, 10);
  return {
    ordered: orders.length,
    completed,
    failed: failed.length,
    lost: lost.length,
    stuck: stuck.length,
    duplicated: duplicated.length + repeated,
    examples: { lost: first(lost), stuck: first(stuck), duplicated: first(duplicated), failed: first(failed) },
  };
}

export interface WaveFigures {
  orders: number;
  /** Orders accepted per second over the time the harness spent sending them. */
  ordersPerS: number;
  /** Completed × elements per second, first operation start → last finish (the runtime's own records). */
  transitionsPerS: number;
  windowS: number;
  orderToFirstDispatchMs: Summary;
  orderToCompletionMs: Summary;
}

/**
 * The figures of one wave. `firstDispatch` holds the producer's stamp of the first order message seen on the
 * operation topic per instance; order times are the harness's; finish times the runtime's (all on this machine).
 */
export function waveFigures(
  orders: readonly SentOrder[],
  sendingS: number,
  operations: readonly OperationRow[],
  firstDispatch: ReadonlyMap<string, number>,
  elements: number,
): WaveFigures {
  const finished = operations.filter((row) => row.state === 'COMPLETED' && row.finishedAt !== null);
  const firstStart = Math.min(...operations.map((row) => row.startedAt));
  const lastFinish = Math.max(...finished.map((row) => row.finishedAt as number));
  const windowS = finished.length === 0 ? Number.NaN : (lastFinish - firstStart) / 1000;
  const sentAt = new Map(orders.map((order) => [order.instanceId, order.sentAt]));
  const toDispatch: number[] = [];
  const toCompletion: number[] = [];
  for (const [instanceId, sent] of sentAt) {
    const dispatched = firstDispatch.get(instanceId);
    if (dispatched !== undefined) {
      toDispatch.push(dispatched - sent);
    }
  }
  for (const row of finished) {
    const sent = sentAt.get(row.targetId);
    if (sent !== undefined) {
      toCompletion.push((row.finishedAt as number) - sent);
    }
  }
  return {
    orders: orders.length,
    ordersPerS: round(sendingS > 0 ? orders.length / sendingS : Number.NaN, 1),
    transitionsPerS: round((finished.length * elements) / windowS, 0),
    windowS: round(windowS, 2),
    orderToFirstDispatchMs: summarize(toDispatch),
    orderToCompletionMs: summarize(toCompletion),
  };
}

/** CPU seconds over a window as a share of one core, in per cent. */
export function cpuPctOfCore(cpuSeconds: number, windowS: number): number {
  return round(windowS > 0 ? (cpuSeconds / windowS) * 100 : Number.NaN, 2);
}

/** The parts of B5's result its report needs (bench/b5-fleet.ts's B5Result satisfies it). */
export interface B5Report {
  size: FleetSize;
  compositions: number;
  participantProcesses: number;
  createPerS: number;
  waves: Array<{
    label: string;
    figures: WaveFigures;
    accounting: Accounting;
    replicas: Array<{ cpuS: number; cpuMsPerInstance: number; rssMb: number }>;
    postgres: { cpuS: number; cpuMsPerInstance: number; rssMbSum: number };
    participantsCpuMsPerInstance: number;
    kafka?: { runtime: KafkaWindow; participant: KafkaWindow };
  }>;
  steady: Array<{
    heartbeatMs: number;
    windowS: number;
    replicasCpuPctOfCore: number[];
    postgresCpuPctOfCore: number;
    participantsCpuPctOfCore: number;
    brokerRequests?: { runtime: KafkaRates; participant: KafkaRates };
  }>;
}

/** B5's section of the results page. */
export function b5Markdown(report: B5Report): string {
  const s = report.size;
  const lines = [
    '## B5 fleet',
    '',
    `${s.instances} instances of the 3-phase, ${FLEET_ELEMENTS}-element composition over ${s.participants} participants (${report.compositions} compositions, ${report.participantProcesses} participant processes), ${s.replicas} runtime replicas, ${s.inFlight} orders in flight; instances created at ${report.createPerS}/s.`,
    '',
    '| wave | orders/s | transitions/s | first dispatch p50 / p99 ms | completion p50 / p99 ms | completed | failed | lost | stuck | duplicated | replicas CPU ms/instance | replicas RSS MB | PostgreSQL CPU ms/instance | PostgreSQL RSS MB (sum) | participants CPU ms/instance |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: |',
  ];
  for (const wave of report.waves) {
    const f = wave.figures;
    const a = wave.accounting;
    lines.push(
      `| ${wave.label} | ${f.ordersPerS} | ${f.transitionsPerS} | ${f.orderToFirstDispatchMs.p50} / ${f.orderToFirstDispatchMs.p99} | ${f.orderToCompletionMs.p50} / ${f.orderToCompletionMs.p99} | ${a.completed}/${a.ordered} | ${a.failed} | ${a.lost} | ${a.stuck} | ${a.duplicated} | ${wave.replicas.map((r) => r.cpuMsPerInstance).join(' / ')} | ${wave.replicas.map((r) => r.rssMb).join(' / ')} | ${wave.postgres.cpuMsPerInstance} | ${wave.postgres.rssMbSum} | ${wave.participantsCpuMsPerInstance} |`,
    );
  }
  lines.push(
    '',
    '| steady state | window s | replicas CPU % of a core | PostgreSQL CPU % of a core | participants CPU % of a core | broker requests/s: replicas / participants (of them Fetch, Heartbeat) |',
    '| --- | ---: | --- | ---: | ---: | --- |',
  );
  for (const steady of report.steady) {
    const requests = steady.brokerRequests;
    const rates =
      requests === undefined
        ? 'not counted'
        : `${requests.runtime.requestsPerS} / ${requests.participant.requestsPerS} (${requests.participant.fetchPerS}, ${requests.participant.heartbeatPerS})`;
    lines.push(
      `| heartbeat ${steady.heartbeatMs} ms | ${steady.windowS} | ${steady.replicasCpuPctOfCore.join(' / ')} | ${steady.postgresCpuPctOfCore} | ${steady.participantsCpuPctOfCore} | ${rates} |`,
    );
  }
  for (const wave of report.waves) {
    if (wave.kafka !== undefined) {
      lines.push('', `${wave.label}, all replicas and all participants:`, '', kafkaWindowMarkdown(wave.kafka));
    }
  }
  lines.push('', 'Supervision pass time: the runtime exports no metric for it (B4 times the pass SQL from outside).');
  return lines.join('\n');
}

export interface ProcessFigures {
  cpuS: number;
  cpuMsPerInstance: number;
  rssMb: number;
}

export interface B5Wave extends WaveFigures {
  accounting: Accounting;
  /** Per replica, in start order; a replica killed during the wave reports what it used until then. */
  replicas: ProcessFigures[];
  postgres: { cpuS: number; cpuMsPerInstance: number; rssMbSum: number };
  participantsCpuMsPerInstance: number;
  /** Broker requests and records per instance of the wave: all replicas, all participants. */
  kafka: { runtime: KafkaWindow; participant: KafkaWindow };
}

export interface SteadyState {
  heartbeatMs: number;
  windowS: number;
  /** Each replica's CPU as a share of one core. */
  replicasCpuPctOfCore: number[];
  postgresCpuPctOfCore: number;
  /** All participant processes together. */
  participantsCpuPctOfCore: number;
  /** Broker requests per second: all replicas, all participants. */
  brokerRequests: { runtime: KafkaRates; participant: KafkaRates };
}

export interface B5Result {
  size: FleetSize;
  compositions: number;
  participantProcesses: number;
  setupS: { replicas: number; participants: number; prime: number; create: number };
  createPerS: number;
  deploy: B5Wave;
  steady: SteadyState[];
  undeployWithFailover: B5Wave & { killedReplica: number; killedAfterOrders: number };
  /** The runtime exports no supervision pass metric; B4 times the pass's SQL from outside instead. */
  supervisionPassMs: null;
}

/** The result as the report reads it. */
export function b5Report(result: B5Result): B5Report {
  const wave = (label: string, figures: B5Wave): B5Report['waves'][number] => ({
    label,
    figures,
    accounting: figures.accounting,
    replicas: figures.replicas,
    postgres: figures.postgres,
    participantsCpuMsPerInstance: figures.participantsCpuMsPerInstance,
    kafka: figures.kafka,
  });
  return {
    size: result.size,
    compositions: result.compositions,
    participantProcesses: result.participantProcesses,
    createPerS: result.createPerS,
    waves: [
      wave('deploy all', result.deploy),
      wave(
        `undeploy all, replica ${result.undeployWithFailover.killedReplica} SIGKILLed after ${result.undeployWithFailover.killedAfterOrders} orders`,
        result.undeployWithFailover,
      ),
    ],
    steady: result.steady,
  };
}

/**
 * `BENCH_B5_SIZE=<instances>/<participants>` scales B5 between the quick and the full size (e.g. a smoke run of the
 * harness); absent, the base size stands.
 */
export function b5Size(base: FleetSize, setting: string | undefined): FleetSize {
  if (setting === undefined || setting.trim() === '') {
    return base;
  }
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(setting);
  if (match === null) {
    throw new Error(`BENCH_B5_SIZE: expected <instances>/<participants>, got "${setting}"`);
  }
  return { ...base, instances: Number(match[1]), participants: Number(match[2]) };
}
