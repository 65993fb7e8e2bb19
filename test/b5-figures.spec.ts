import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  B5_QUICK,
  FLEET_ELEMENTS,
  accountWave,
  b5Markdown,
  b5Size,
  cpuPctOfCore,
  fleetCompositionYaml,
  fleetLayout,
  waveFigures,
} from '../bench/b5-figures';
import type { OperationRow, ParticipantReport, SentOrder } from '../bench/b5-figures';

const noRepeats: ParticipantReport[] = [{ participants: 15, handlerCalls: 36, repeatedCalls: 0 }];

function counter(): () => string {
  let next = 0;
  return () => `p${(next += 1)}`;
}

describe('B5 fleet layout', () => {
  it('gives every composition six participants of their own and packs them into processes', () => {
    const layout = fleetLayout(
      { ...B5_QUICK, instances: 301, participants: 31, participantsPerProcess: 12 },
      counter(),
    );
    expect(layout.groups).toBe(5);
    expect(layout.participants.map((members) => members.length)).toEqual([6, 6, 6, 6, 6]);
    expect(layout.processes.map((members) => members.length)).toEqual([12, 12, 6]);
    expect(new Set(layout.participants.flat().map((spec) => `${spec.typeName} ${spec.typeVersion}`)).size).toBe(30);
    expect(layout.instancesPerGroup).toEqual([61, 60, 60, 60, 60]);
  });

  it('refuses a fleet smaller than one composition', () => {
    expect(() => fleetLayout({ ...B5_QUICK, participants: 5 }, counter())).toThrow(/at least 6 participants/);
  });
});

describe('B5 fleet composition', () => {
  const threePhase = readFileSync(join(__dirname, '..', 'tosca/examples/sim-three-phase.yaml'), 'utf8');

  it('gives each element its own type, derived from the simulator element, versioned by group', () => {
    const yaml = fleetCompositionYaml(threePhase, 'bench.b5.test.g3', 3);
    expect(yaml).toMatch(/^name: bench\.b5\.test\.g3$/m);
    for (let element = 1; element <= FLEET_ELEMENTS; element += 1) {
      expect(yaml).toContain(`  bench.fleet.Element${element}:\n    version: 1.3.0\n`);
      expect(yaml).toContain(`type: bench.fleet.Element${element}\n      type_version: 1.3.0`);
    }
    expect(yaml).not.toMatch(/type: org\.onap\.policy\.clamp\.acm\.SimAutomationCompositionElement\n/);
  });

  it('refuses a template without six simulator elements', () => {
    expect(() => fleetCompositionYaml('name: x\ntopology_template:\n', 'y', 0)).toThrow(/expected 6/);
  });
});

describe('B5 wave accounting', () => {
  const orders: SentOrder[] = ['a', 'b', 'c', 'd', 'e'].map((instanceId, index) => ({
    instanceId,
    sentAt: 1_000 + index,
  }));
  const done = (targetId: string, state = 'COMPLETED'): OperationRow => ({
    targetId,
    state,
    startedAt: 1_010,
    finishedAt: state === 'RUNNING' ? null : 1_100,
  });

  it('finds nothing wrong in a clean wave', () => {
    const states = new Map(orders.map((order) => [order.instanceId, 'DEPLOYED']));
    const accounting = accountWave(
      orders,
      orders.map((order) => done(order.instanceId)),
      states,
      'DEPLOYED',
      noRepeats,
    );
    expect(accounting).toMatchObject({ ordered: 5, completed: 5, failed: 0, lost: 0, stuck: 0, duplicated: 0 });
  });

  it('counts a lost order, a stuck one, a duplicated one and a failed one, each by name', () => {
    const operations = [done('a'), done('a'), done('b', 'RUNNING'), done('c', 'FAILED'), done('e')];
    const states = new Map([
      ['a', 'DEPLOYED'],
      ['b', 'DEPLOYING'],
      ['c', 'DEPLOYED'],
      ['e', 'UNDEPLOYED'],
    ]);
    const accounting = accountWave(orders, operations, states, 'DEPLOYED', noRepeats);
    expect(accounting).toMatchObject({ ordered: 5, completed: 1, failed: 1, lost: 1, stuck: 2, duplicated: 1 });
    expect(accounting.examples).toEqual({ lost: ['d'], stuck: ['b', 'e'], duplicated: ['a'], failed: ['c'] });
  });

  it('counts an order a participant handled twice for one element as duplicated', () => {
    const states = new Map(orders.map((order) => [order.instanceId, 'DEPLOYED']));
    const reports = [...noRepeats, { participants: 15, handlerCalls: 40, repeatedCalls: 2 }];
    const accounting = accountWave(
      orders,
      orders.map((order) => done(order.instanceId)),
      states,
      'DEPLOYED',
      reports,
    );
    expect(accounting.duplicated).toBe(2);
  });
});

describe('B5 wave figures', () => {
  it('computes the rates and latencies from the orders, the operations and the first dispatches', () => {
    const orders: SentOrder[] = [
      { instanceId: 'a', sentAt: 1_000 },
      { instanceId: 'b', sentAt: 1_500 },
    ];
    const operations: OperationRow[] = [
      { targetId: 'a', state: 'COMPLETED', startedAt: 1_010, finishedAt: 1_400 },
      { targetId: 'b', state: 'COMPLETED', startedAt: 1_520, finishedAt: 3_010 },
    ];
    const figures = waveFigures(
      orders,
      0.5,
      operations,
      new Map([
        ['a', 1_020],
        ['b', 1_540],
      ]),
      6,
    );
    expect(figures).toMatchObject({ orders: 2, ordersPerS: 4, windowS: 2, transitionsPerS: 6 });
    expect(figures.orderToFirstDispatchMs).toMatchObject({ n: 2, p50: 20, p99: 40 });
    expect(figures.orderToCompletionMs).toMatchObject({ n: 2, p50: 400, p99: 1_510 });
  });

  it('leaves failed operations out of the rate', () => {
    const orders: SentOrder[] = [{ instanceId: 'a', sentAt: 0 }];
    const figures = waveFigures(
      orders,
      1,
      [{ targetId: 'a', state: 'FAILED', startedAt: 0, finishedAt: 10 }],
      new Map(),
      6,
    );
    expect(figures.orderToCompletionMs.n).toBe(0);
    expect(Number.isNaN(figures.transitionsPerS)).toBe(true);
  });

  it('gives CPU as a share of one core', () => {
    expect(cpuPctOfCore(0.5, 20)).toBe(2.5);
  });

  it('renders the waves and the steady states', () => {
    const wave = {
      label: 'deploy all',
      figures: waveFigures([{ instanceId: 'a', sentAt: 0 }], 1, [done1()], new Map([['a', 5]]), 6),
      accounting: {
        ordered: 1,
        completed: 1,
        failed: 0,
        lost: 0,
        stuck: 0,
        duplicated: 0,
        examples: { lost: [], stuck: [], duplicated: [], failed: [] },
      },
      replicas: [{ cpuS: 1, cpuMsPerInstance: 10, rssMb: 200 }],
      postgres: { cpuS: 1, cpuMsPerInstance: 7, rssMbSum: 900 },
      participantsCpuMsPerInstance: 3,
    };
    const markdown = b5Markdown({
      size: B5_QUICK,
      compositions: 5,
      participantProcesses: 2,
      createPerS: 40,
      waves: [wave],
      steady: [
        {
          heartbeatMs: 5_000,
          windowS: 20,
          replicasCpuPctOfCore: [1.5, 2],
          postgresCpuPctOfCore: 3,
          participantsCpuPctOfCore: 4,
        },
      ],
    });
    expect(markdown).toContain(
      '| deploy all | 1 | 600 | 5 / 5 | 10 / 10 | 1/1 | 0 | 0 | 0 | 0 | 10 | 200 | 7 | 900 | 3 |',
    );
    expect(markdown).toContain('| heartbeat 5000 ms | 20 | 1.5 / 2 | 3 | 4 |');
  });
});

function done1(): OperationRow {
  return { targetId: 'a', state: 'COMPLETED', startedAt: 0, finishedAt: 10 };
}

describe('B5 size setting', () => {
  it('keeps the base size when unset and scales instances and participants when set', () => {
    expect(b5Size(B5_QUICK, undefined)).toBe(B5_QUICK);
    expect(b5Size(B5_QUICK, ' 12 / 6 ')).toEqual({ ...B5_QUICK, instances: 12, participants: 6 });
  });

  it('refuses anything else', () => {
    expect(() => b5Size(B5_QUICK, '12')).toThrow(/BENCH_B5_SIZE/);
  });
});
