import type { ElementChange, EventLike, Graph } from './model';
import {
  pendingApprovalText,
  changedElements,
  elementHealth,
  elementStates,
  healthTone,
  linkedInstanceIds,
  nestingLinks,
  operations,
  phaseOrder,
  queuedElements,
  referenceText,
  stateTone,
  worstHealth,
} from './model';

const GRAPH: Graph = {
  nodes: [
    { id: 'a', name: 'A', startPhase: 0, state: 'UNDEPLOYED/NONE' },
    { id: 'b', name: 'B', startPhase: 1, state: 'UNDEPLOYED/NONE' },
    { id: 'c', name: 'C', startPhase: 1, state: 'UNDEPLOYED/NONE' },
  ],
  edges: [],
};

let sequence = 0;
// Details carry only what the model reads.
const event = (name: string, detail: Record<string, unknown>, at: string, operationId = 'op'): EventLike =>
  ({
    sequence: ++sequence,
    subjectId: 'instance-1',
    operationId,
    event: name,
    detail,
    actor: { kind: 'request', user: 'runtimeUser', requestId: 'r-1' },
    at: `2026-12-01 10:00:${at}`,
  }) as unknown as EventLike;

const RUNNING = [
  event('ORDERED', { order: 'DEPLOY' }, '00.000'),
  event('PHASE_STARTED', { phase: 0, elementIds: ['a'] }, '00.000'),
  event(
    'ELEMENT_RESULT',
    { phase: 0, elementId: 'a', deployState: 'DEPLOYED', lockState: 'LOCKED', result: true },
    '00.400',
  ),
  event('PHASE_COMPLETED', { phase: 0 }, '00.400'),
  event('PHASE_STARTED', { phase: 1, elementIds: ['b', 'c'] }, '00.400'),
  event(
    'ELEMENT_RESULT',
    { phase: 1, elementId: 'b', deployState: 'DEPLOYED', lockState: 'LOCKED', result: true },
    '01.000',
  ),
];

describe('the console model', () => {
  it('folds a running deploy: finished phases with durations, the open one waiting for its unanswered element', () => {
    const [deploy] = operations(RUNNING);

    expect(deploy).toMatchObject({
      order: 'DEPLOY',
      outcome: 'RUNNING',
      durationMs: null,
      phases: [
        { phase: 0, durationMs: 400 },
        { phase: 1, durationMs: null },
      ],
      running: ['c'],
      answered: 2,
      dispatched: ['a', 'b', 'c'],
    });
  });

  it('counts an element answered twice (a resend, a retry) once', () => {
    const [deploy] = operations([
      ...RUNNING,
      event(
        'ELEMENT_RESULT',
        { phase: 1, elementId: 'b', deployState: 'DEPLOYED', lockState: 'LOCKED', result: true },
        '01.100',
      ),
    ]);

    expect(deploy?.answered).toBe(2);
  });

  it('lists the phases of an undeploy in the order they ran, highest phase first', () => {
    const undeploy = [
      event('ORDERED', { order: 'UNDEPLOY' }, '00.000', 'op-u'),
      event('PHASE_STARTED', { phase: 1, elementIds: ['b', 'c'] }, '00.000', 'op-u'),
      event('PHASE_COMPLETED', { phase: 1 }, '00.300', 'op-u'),
      event('PHASE_STARTED', { phase: 0, elementIds: ['a'] }, '00.300', 'op-u'),
      event('PHASE_COMPLETED', { phase: 0 }, '00.500', 'op-u'),
      event('COMPLETED', {}, '00.500', 'op-u'),
    ];

    const [operation] = operations(undeploy);

    expect(operation?.phases.map((phase) => [phase.phase, phase.durationMs])).toEqual([
      [1, 300],
      [0, 200],
    ]);
  });

  it('marks as waiting only the elements not dispatched yet, each with what it is queued behind', () => {
    const graph: Graph = {
      nodes: [...GRAPH.nodes, { id: 'd', name: 'D', startPhase: 2 }, { id: 'e', name: 'E', startPhase: 1 }],
      edges: [{ from: 'c', to: 'e' }],
    };
    const [deploy] = operations(RUNNING);

    const queued = queuedElements(graph, deploy!);

    expect(Object.fromEntries(queued)).toEqual({ d: 'phase 2 to open (after phase 1)', e: 'C to finish' });
  });

  it('keeps an element whose health gate waits running, with the gate’s waiting reason', () => {
    const reason = 'waiting for A: condition ready == true (observed ready=false)';
    const graph: Graph = {
      nodes: [{ id: 'a', name: 'A', startPhase: 0, state: 'DEPLOYING/NONE', gateState: reason }],
      edges: [],
    };
    const [deploy] = operations([
      event('ORDERED', { order: 'DEPLOY' }, '00.000'),
      event('PHASE_STARTED', { phase: 0, elementIds: ['a'] }, '00.000'),
      event('GATE_STARTED', { elementId: 'a', condition: 'ready == true' }, '00.100'),
      event('ELEMENT_RESULT', { phase: 0, elementId: 'a', result: true, deployState: 'DEPLOYING' }, '00.100'),
    ]);

    expect(deploy?.running).toEqual(['a']);
    expect(Object.fromEntries(queuedElements(graph, deploy!))).toEqual({
      a: 'A: condition ready == true (observed ready=false)',
    });
  });

  it('marks nothing as waiting once the operation has ended', () => {
    const [deploy] = operations([...RUNNING, event('COMPLETED', {}, '02.000')]);

    expect(queuedElements(GRAPH, deploy!).size).toBe(0);
  });

  it('ends an operation with its outcome, total duration and the failure message', () => {
    const failed = [
      ...RUNNING.map((item) => ({ ...item, operationId: 'op2', sequence: item.sequence + 100 })),
      event(
        'ELEMENT_RESULT',
        { phase: 1, elementId: 'c', result: false, message: 'no', deployState: 'DEPLOYING' },
        '01.500',
        'op2',
      ),
      event('FAILED', { message: 'no' }, '01.500', 'op2'),
    ];

    const [operation] = operations(failed);

    expect(operation).toMatchObject({ outcome: 'FAILED', durationMs: 1500, running: [], message: 'no' });
  });

  it.each(['CANCELLED', 'SUPERSEDED'])('ends a %s operation as such, waiting for nothing more', (end) => {
    const ended = [
      ...RUNNING.map((item) => ({ ...item, operationId: 'op3', sequence: item.sequence + 200 })),
      event('TIMEOUT', {}, '01.200', 'op3'),
      event(end, { operationId: 'op3', order: 'DEPLOY', phase: 1, rollback: false, by: 'UNDEPLOY' }, '01.500', 'op3'),
    ];

    const [operation] = operations(ended);

    expect(operation).toMatchObject({ outcome: end, durationMs: 1500, running: [] });
  });

  it("gives each element the state of its last ELEMENT_RESULT, else the graph's", () => {
    const states = elementStates(GRAPH, RUNNING);

    expect(Object.fromEntries(states)).toEqual({ a: 'DEPLOYED/LOCKED', b: 'DEPLOYED/LOCKED', c: 'UNDEPLOYED/NONE' });
  });

  it('runs phases ascending for deploy and descending for undeploy and delete', () => {
    expect(phaseOrder(GRAPH, 'DEPLOY')).toEqual([0, 1]);
    expect(phaseOrder(GRAPH, 'UNDEPLOY')).toEqual([1, 0]);
    expect(phaseOrder(GRAPH, 'DELETE')).toEqual([1, 0]);
  });

  it.each([
    ['DEPLOYED/LOCKED', 'done'],
    ['PRIMED', 'done'],
    ['DEPLOYING/NONE', 'busy'],
    ['UNDEPLOYED/NONE', 'idle'],
    ['FAILED', 'bad'],
    ['TIMEOUT', 'bad'],
  ])('tones %s as %s (the state is written beside the colour)', (state, tone) => {
    expect(stateTone(state)).toBe(tone);
  });
});

describe('observed health', () => {
  const observed: Graph = {
    nodes: [
      { id: 'a', name: 'A', startPhase: 0, state: 'DEPLOYED/LOCKED', health: 'Healthy' },
      { id: 'b', name: 'B', startPhase: 1, state: 'DEPLOYED/LOCKED', health: 'Healthy' },
      // Not observed yet while the others were.
      { id: 'c', name: 'C', startPhase: 1, state: 'DEPLOYED/LOCKED', health: 'Unknown' },
    ],
    edges: [],
  };
  const changed = (elementId: string, health: string, previous: string): EventLike =>
    event('HEALTH_CHANGED', { elementId, health, previous, reason: null }, '05.000', '');

  it('gives each element the health of its last HEALTH_CHANGED, else the graph’s, and the instance the worst', () => {
    const health = elementHealth(observed, [
      changed('a', 'Degraded', 'Healthy'),
      changed('b', 'Missing', 'Healthy'),
      changed('a', 'Healthy', 'Degraded'),
      // An element of another instance changes nothing here.
      changed('z', 'Missing', 'Healthy'),
    ]);
    expect(Object.fromEntries(health)).toEqual({ a: 'Healthy', b: 'Missing', c: 'Unknown' });
    expect(worstHealth(health)).toBe('Missing');
    expect(worstHealth(elementHealth(observed, [changed('a', 'Degraded', 'Healthy')]))).toBe('Degraded');
    expect(worstHealth(elementHealth(observed, []))).toBe('Unknown');
  });

  it('shows no health for an instance nothing observed, until a first HEALTH_CHANGED', () => {
    expect(elementHealth(GRAPH, RUNNING).size).toBe(0);
    expect(worstHealth(elementHealth(GRAPH, RUNNING))).toBeNull();
    const first = elementHealth(GRAPH, [changed('b', 'Healthy', 'Unknown')]);
    expect(Object.fromEntries(first)).toEqual({ a: 'Unknown', b: 'Healthy', c: 'Unknown' });
    expect(worstHealth(first)).toBe('Unknown');
  });

  it.each([
    ['Healthy', 'done'],
    ['Degraded', 'busy'],
    ['Missing', 'bad'],
    ['Unknown', 'idle'],
  ])('tones %s as %s (the health is written beside the colour)', (health, tone) => {
    expect(healthTone(health)).toBe(tone);
  });
});

describe('changedElements', () => {
  it('lists the elements a plan changes with their marks, leaving the unchanged ones out', () => {
    const change = (elementId: string, action: ElementChange['action']): ElementChange => ({
      elementId,
      name: `T-${elementId}`,
      version: '1.0.0',
      action,
      changes: [],
    });
    const listed = changedElements([
      change('a', 'create'),
      change('b', 'unchanged'),
      change('c', 'update'),
      change('d', 'replace'),
      change('e', 'delete'),
    ]);
    expect(listed.map(({ mark, change: element }) => `${mark} ${element.elementId}`)).toEqual([
      '+ a',
      '~ c',
      '-/+ d',
      '- e',
    ]);
  });
});

describe('referenceText', () => {
  it('shows what each reference of a planned element reads, by where it is written', () => {
    expect(referenceText({ baseUrl: '(known after deploy)', 'retry.count': 3 })).toBe(
      ' [baseUrl ← (known after deploy); retry.count ← 3]',
    );
  });

  it('adds nothing for an element without references', () => {
    expect(referenceText(undefined)).toBe('');
    expect(referenceText({})).toBe('');
  });
});

describe('nesting links', () => {
  const graph: Graph = {
    nodes: [
      { id: 'slice', name: 'Slice', startPhase: 0, nestedInstanceId: 'child-1' },
      { id: 'policies', name: 'Policies', startPhase: 1 },
    ],
    edges: [],
  };
  const child = { instanceId: 'child-1', metadata: { nestedIn: { instanceId: 'parent-1', elementId: 'slice' } } };

  it('asks for the parent of a child and the child of each nested element', () => {
    expect(linkedInstanceIds({}, graph)).toEqual(['child-1']);
    expect(linkedInstanceIds(child, { nodes: [], edges: [] })).toEqual(['parent-1']);
  });

  it("links a nested element's row to its child, and a child's page to its parent, by their compositions", () => {
    const compositions = new Map([
      ['child-1', 'slice-def'],
      ['parent-1', 'site-def'],
    ]);
    const ofParent = nestingLinks({}, graph, compositions);
    expect(ofParent.parent).toBeUndefined();
    expect([...ofParent.children]).toEqual([
      ['slice', { instanceId: 'child-1', href: '#/instances/slice-def/child-1' }],
    ]);
    expect(nestingLinks(child, { nodes: [], edges: [] }, compositions).parent).toEqual({
      instanceId: 'parent-1',
      elementId: 'slice',
      href: '#/instances/site-def/parent-1',
    });
  });

  it('links nothing it could not find (deleted since)', () => {
    const none = nestingLinks(child, graph, new Map());
    expect([none.parent, none.children.size]).toEqual([undefined, 0]);
  });
});

describe('pendingApprovalText', () => {
  const pending = {
    approvalId: '7d1f4c2a-8e3b-4a5d-9c6e-1f2a3b4c5d6e',
    order: 'DEPLOY',
    orderedBy: 'alice',
    orderedAt: '2026-12-07T10:00:00.000Z',
    required: 2,
    approvals: [] as Array<{ by: string; at: string }>,
    expiresAt: '2026-12-08T10:00:00.000Z',
  };

  it('says what waits, for whom, how far, and until when', () => {
    expect(pendingApprovalText(undefined)).toBeNull();
    expect(pendingApprovalText(pending)).toBe(
      'DEPLOY by alice waits for approvals: 0 of 2, until 2026-12-08 10:00:00 UTC',
    );
    expect(pendingApprovalText({ ...pending, approvals: [{ by: 'carol', at: '2026-12-07T11:00:00.000Z' }] })).toBe(
      'DEPLOY by alice waits for approvals: 1 of 2 (carol), until 2026-12-08 10:00:00 UTC',
    );
  });
});
