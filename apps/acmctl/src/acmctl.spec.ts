import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConnection } from './connection';
import { AcmctlError, EXIT } from './exit-codes';
import { historyTimeline } from './history-view';
import { parseDocument } from './input-file';
import { formatTable, render } from './output';
import type { HistoryEvent } from './progress';
import { eventLine, foldProgress, operationAfter, outcomeOf, readGraphNodes, readHistory, timeOf } from './progress';
import { fitToWidth, phaseSummary } from './views';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';
const NODES = [
  { id: A, name: 'First', startPhase: 0, dependsOn: [] },
  { id: B, name: 'Second', startPhase: 1, dependsOn: [] },
  { id: C, name: 'Third', startPhase: 1, dependsOn: [] },
];

let sequence = 0;
function event(name: string, detail: Record<string, unknown>, at: string, operationId = 'op-1'): HistoryEvent {
  sequence += 1;
  // Details here carry only what the views read.
  return {
    sequence,
    subjectId: 'instance-1',
    operationId,
    event: name,
    detail,
    actor: { kind: 'unrecorded' },
    at: `2026-12-01 10:00:${at}`,
  } as unknown as HistoryEvent;
}

const DEPLOY_EVENTS = [
  event('ORDERED', { order: 'DEPLOY' }, '00.000'),
  event('PHASE_STARTED', { phase: 0, elementIds: [A] }, '00.000'),
  event(
    'ELEMENT_RESULT',
    { phase: 0, elementId: A, result: true, deployState: 'DEPLOYED', lockState: 'LOCKED' },
    '00.250',
  ),
  event('PHASE_COMPLETED', { phase: 0 }, '00.250'),
  event('PHASE_STARTED', { phase: 1, elementIds: [B, C] }, '00.250'),
  event(
    'ELEMENT_RESULT',
    { phase: 1, elementId: B, result: false, message: 'Deploy failed!', deployState: 'UNDEPLOYED', lockState: 'NONE' },
    '01.000',
  ),
];

describe('parseDocument', () => {
  it('reads JSON and YAML objects alike', () => {
    expect(parseDocument('a.json', '{"name":"x"}')).toEqual({ name: 'x' });
    expect(parseDocument('a.yaml', 'name: x\nversion: 1.0.0\n')).toEqual({ name: 'x', version: '1.0.0' });
  });

  it.each([
    ['{ name: [unclosed', 'neither JSON nor YAML'],
    ['- a\n- b\n', 'must hold one object (a mapping), got a list'],
    ['', 'must hold one object (a mapping), got nothing'],
  ])('refuses %j with exit code 1 naming the rule', (text, rule) => {
    const attempt = () => parseDocument('f.yaml', text);
    expect(attempt).toThrow(AcmctlError);
    expect(attempt).toThrow(rule);
    try {
      attempt();
    } catch (error) {
      expect((error as AcmctlError).exitCode).toBe(EXIT.USAGE);
    }
  });
});

describe('resolveConnection', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acmctl-spec-'));
    writeFileSync(join(dir, 'profile.json'), JSON.stringify({ url: 'http://profile:1', user: 'pu', password: 'pp' }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes flags over the environment over the profile, field by field', () => {
    const env = { ACMCTL_CONFIG: join(dir, 'profile.json'), ACM_USER: 'eu' };
    expect(resolveConnection({ password: 'fp' }, env)).toEqual({ url: 'http://profile:1', user: 'eu', password: 'fp' });
  });

  it('takes a bearer token from the flag, ACM_TOKEN or the profile, and none by default', () => {
    const env = { ACMCTL_CONFIG: join(dir, 'profile.json') };
    expect(resolveConnection({ token: 'ft' }, { ...env, ACM_TOKEN: 'et' }).token).toBe('ft');
    expect(resolveConnection({}, { ...env, ACM_TOKEN: 'et' }).token).toBe('et');
    writeFileSync(join(dir, 'profile.json'), JSON.stringify({ url: 'http://profile:1', token: 'pt' }));
    expect(resolveConnection({}, env).token).toBe('pt');
    expect(resolveConnection({}, { ACMCTL_CONFIG: join(dir, 'none.json') })).not.toHaveProperty('token');
  });

  it("falls back to ONAP's defaults without a profile", () => {
    expect(resolveConnection({}, { ACMCTL_CONFIG: join(dir, 'none.json') })).toEqual({
      url: 'http://localhost:6969',
      user: 'runtimeUser',
      password: 'zb!XztG34',
    });
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => resolveConnection({ url: 'localhost:6969' }, { ACMCTL_CONFIG: join(dir, 'none.json') })).toThrow(
      'url: must be http://host:port',
    );
  });
});

describe('progress of an operation', () => {
  it('folds events into phases, element states and what the phase waits for', () => {
    const progress = foldProgress(NODES, DEPLOY_EVENTS);

    expect(progress.phases.map((phase) => [phase.phase, phase.done, phase.elements.length])).toEqual([
      [0, 1, 1],
      [1, 1, 2],
    ]);
    expect(progress.phases[1]?.elements.map((element) => [element.name, element.state, element.failed])).toEqual([
      ['Second', 'UNDEPLOYED/NONE', true],
      ['Third', 'running', false],
    ]);
    expect(progress.running).toEqual(['Third']);
    expect(phaseSummary(progress.phases[0]!, 0)).toBe('  0.3s  First DEPLOYED/LOCKED');
    // A running element is running, not waiting: "waiting" is for the queued ones.
    expect(phaseSummary(progress.phases[1]!, timeOf('2026-12-01 10:00:01.000'))).toBe(
      '  0.8s  Second FAILED, Third running',
    );
  });

  it("reads each element's dependencies from the graph's edges", () => {
    const graph = {
      name: 'g',
      nodes: [
        { id: A, name: 'First', startPhase: 0 },
        { id: B, name: 'Second', startPhase: 1 },
      ],
      edges: [{ from: A, to: B }],
    };
    expect(readGraphNodes(graph)).toEqual([
      { id: A, name: 'First', startPhase: 0, dependsOn: [] },
      { id: B, name: 'Second', startPhase: 1, dependsOn: [A] },
    ]);
  });

  it('shows an element that answered DEPLOYED as running until its health gate passes, with what the gate observed', () => {
    const events = [
      event('ORDERED', { order: 'DEPLOY' }, '00.000'),
      event('PHASE_STARTED', { phase: 0, elementIds: [A] }, '00.000'),
      event('GATE_STARTED', { elementId: A, condition: 'ready == true', observed: 'ready=null' }, '00.100'),
      event('ELEMENT_RESULT', { elementId: A, deployState: 'DEPLOYING', lockState: 'NONE', result: true }, '00.100'),
    ];
    const firstOf = (progress: ReturnType<typeof foldProgress>) => progress.phases[0]!.elements[0]!;
    expect(firstOf(foldProgress(NODES, events))).toMatchObject({
      state: 'running',
      waitingFor: 'its health gate: condition ready == true (observed ready=null)',
    });
    const observed = [...events, event('GATE_OBSERVED', { elementId: A, observed: 'ready=false' }, '01.000')];
    expect(firstOf(foldProgress(NODES, observed)).waitingFor).toBe(
      'its health gate: condition ready == true (observed ready=false)',
    );
    const passed = [
      ...observed,
      event('GATE_PASSED', { elementId: A, observed: 'ready=true', waitedMs: 3000 }, '03.000'),
      event('ELEMENT_RESULT', { elementId: A, deployState: 'DEPLOYED', lockState: 'LOCKED', result: true }, '03.000'),
    ];
    expect(firstOf(foldProgress(NODES, passed))).toMatchObject({ state: 'DEPLOYED/LOCKED', waitingFor: null });
  });

  it('says what each queued element waits for: its phase, a dependency, or a slot or gate', () => {
    const D = '00000000-0000-4000-8000-00000000000d';
    const E = '00000000-0000-4000-8000-00000000000e';
    const F = '00000000-0000-4000-8000-00000000000f';
    const nodes = [
      ...NODES,
      // Phase 1, after Third: queued behind it while it runs.
      { id: D, name: 'Fourth', startPhase: 1, dependsOn: [C] },
      // Phase 1, depending on the phase-0 element that is done: queued only for a slot or a gate.
      { id: E, name: 'Fifth', startPhase: 1, dependsOn: [A] },
      // Phase 2, not open yet.
      { id: F, name: 'Sixth', startPhase: 2, dependsOn: [] },
    ];
    const progress = foldProgress(nodes, DEPLOY_EVENTS);
    const waitingFor = (name: string) =>
      progress.phases.flatMap((phase) => phase.elements).find((element) => element.name === name)?.waitingFor;
    expect(waitingFor('Third')).toBeNull();
    expect(waitingFor('Fourth')).toBe('Third to finish');
    expect(waitingFor('Fifth')).toBe('a free parallel slot or a gate');
    expect(waitingFor('Sixth')).toBe('phase 2 to open (after phase 1)');
    const now = timeOf('2026-12-01 10:00:01.000');
    expect(phaseSummary(progress.phases[1]!, now)).toBe(
      '  0.8s  Second FAILED, Third running  Fourth ← waiting for Third to finish' +
        '  Fifth ← waiting for a free parallel slot or a gate',
    );
    expect(phaseSummary(progress.phases[2]!, now)).toBe('     -  Sixth ← waiting for phase 2 to open (after phase 1)');

    // Once Third has answered, Fourth waits for a slot or a gate only; once dispatched, it runs.
    const answered = [
      ...DEPLOY_EVENTS,
      event(
        'ELEMENT_RESULT',
        { phase: 1, elementId: C, result: true, deployState: 'DEPLOYED', lockState: 'LOCKED' },
        '01.100',
      ),
    ];
    expect(foldProgress(nodes, answered).phases[1]!.elements.find((element) => element.id === D)?.waitingFor).toBe(
      'a free parallel slot or a gate',
    );
    const dispatched = [...answered, event('ELEMENTS_DISPATCHED', { phase: 1, elementIds: [D, E] }, '01.250')];
    expect(phaseSummary(foldProgress(nodes, dispatched).phases[1]!, timeOf('2026-12-01 10:00:01.250'))).toBe(
      '  1.0s  Second FAILED, Third DEPLOYED/LOCKED, Fourth running, Fifth running',
    );
    // An operation that ended queues nothing: what it did not dispatch is no longer waiting.
    const failed = foldProgress(nodes, [...DEPLOY_EVENTS, event('FAILED', { message: 'Deploy failed!' }, '01.000')]);
    expect(failed.phases.flatMap((phase) => phase.elements).filter((element) => element.waitingFor !== null)).toEqual(
      [],
    );
    expect(phaseSummary(failed.phases[2]!, now)).toBe('     -  Sixth pending');
  });

  it('writes one line per event with element names', () => {
    const names = new Map(NODES.map((node) => [node.id, node.name]));
    expect(DEPLOY_EVENTS.map((each) => eventLine(each, names))).toEqual([
      '2026-12-01 10:00:00.000 ORDERED DEPLOY',
      '2026-12-01 10:00:00.000 PHASE_STARTED phase 0: First',
      '2026-12-01 10:00:00.250 ELEMENT_RESULT First DEPLOYED/LOCKED',
      '2026-12-01 10:00:00.250 PHASE_COMPLETED phase 0',
      '2026-12-01 10:00:00.250 PHASE_STARTED phase 1: Second, Third',
      '2026-12-01 10:00:01.000 ELEMENT_RESULT Second UNDEPLOYED/NONE FAILED "Deploy failed!"',
    ]);
  });

  it('follows the operation ordered after the baseline, not an older one', () => {
    const older = { ...event('ORDERED', { order: 'PRIME' }, '00.000', 'op-0'), sequence: 0 };
    const history = readHistory({
      operations: [
        { operationId: 'op-0', order: 'PRIME', state: 'COMPLETED', timedOut: false },
        { operationId: 'op-1', order: 'DEPLOY', state: 'RUNNING', timedOut: false },
      ],
      events: [older, ...DEPLOY_EVENTS],
    });
    const ours = operationAfter(history, older.sequence);
    expect(ours?.operationId).toBe('op-1');
    expect(operationAfter(history, -1)?.operationId).toBe('op-0');
    expect(outcomeOf(ours!)).toBe('RUNNING');
    expect(outcomeOf({ ...ours!, state: 'FAILED', timedOut: true })).toBe('TIMEOUT');
    expect(outcomeOf({ ...ours!, state: 'CANCELLED', timedOut: true })).toBe('CANCELLED');
  });
});

describe('rendering', () => {
  it('aligns table columns without trailing blanks', () => {
    expect(formatTable({ headers: ['ID', 'STATE'], rows: [['a-long-id', 'OK']] })).toBe(
      'ID         STATE\na-long-id  OK',
    );
  });

  it('renders the same answer as JSON and YAML', () => {
    expect(render({ a: 1 }, 'json', () => '')).toBe('{\n  "a": 1\n}');
    expect(render({ a: 1 }, 'yaml', () => '')).toBe('a: 1');
  });

  it('gives each phase its duration on the timeline', () => {
    const body = {
      operations: [{ operationId: 'op-1', order: 'DEPLOY', state: 'RUNNING', startedAt: '2026-12-01 10:00:00.000' }],
      events: DEPLOY_EVENTS,
    };
    expect(historyTimeline(body)).toBe(
      '2026-12-01 10:00:00.000  DEPLOY RUNNING  -\n  phase 0  250 ms\n  phase 1  not finished',
    );
  });
});

describe(fitToWidth.name, () => {
  const line = '  0.3s  acm.example.phases.Phase1A DEPLOYING/NONE, acm.example.phases.Phase1B DEPLOYING/NONE';

  it('leaves a line that fits as it is', () => {
    expect(fitToWidth(line, line.length)).toBe(line);
  });

  it('shortens TOSCA names to their last two segments first, keeping times whole', () => {
    expect(fitToWidth(line, 70)).toBe('  0.3s  phases.Phase1A DEPLOYING/NONE, phases.Phase1B DEPLOYING/NONE');
  });

  it('then cuts the end with an ellipsis, never past the width', () => {
    const fitted = fitToWidth(line, 30);
    expect(fitted).toHaveLength(30);
    expect(fitted.endsWith('…')).toBe(true);
    expect(fitToWidth(line, 0)).toBe('');
  });
});
