import type { InstanceElement } from '../model';
import { countsAgainstRuntimeLimit, nextDispatch, parallelismLimit, parallelismProblem } from './dispatch';

function element(id: string, deployState: InstanceElement['deployState'] = 'DEPLOYING'): InstanceElement {
  return {
    id,
    definition: { name: id, version: '1.0.0' },
    participantId: 'p',
    deployState,
    lockState: 'NONE',
    subState: 'NONE',
    migrationState: 'DEFAULT',
    stage: null,
    operationalState: null,
    useState: null,
    description: null,
    message: null,
    properties: {},
    outProperties: {},
  };
}

const byId = (...elements: InstanceElement[]): Record<string, InstanceElement> =>
  Object.fromEntries(elements.map((item) => [item.id, item]));

describe('nextDispatch', () => {
  it('sends every ready element without a limit, and holds back those waiting for a dependency', () => {
    const decision = nextDispatch({
      elements: byId(element('db'), element('api'), element('web')),
      phase: 0,
      startPhaseOf: () => 0,
      waits: new Map([['web', ['api']]]),
      inFlight: [],
      limit: null,
    });
    expect([...decision.dispatch]).toEqual(['api', 'db']);
    expect(decision.blocked).toEqual(['web']);
    expect(decision.queued).toEqual([]);
  });

  it('fills the free slots in id order and queues the rest; in-flight elements are never sent twice', () => {
    const elements = byId(element('d'), element('c'), element('b'), element('a'), element('done', 'DEPLOYED'));
    const decision = nextDispatch({
      elements,
      phase: 0,
      startPhaseOf: () => 0,
      waits: new Map(),
      inFlight: ['a'],
      limit: 2,
    });
    expect([...decision.dispatch]).toEqual(['b']);
    expect(decision.queued).toEqual(['c', 'd']);
    const full = nextDispatch({
      elements,
      phase: 0,
      startPhaseOf: () => 0,
      waits: new Map(),
      inFlight: ['a', 'b'],
      limit: 2,
    });
    expect(full.dispatch.size).toBe(0);
  });

  it('sends no more than the runtime-wide budget, under the operation’s own limit too', () => {
    const elements = byId(element('c'), element('b'), element('a'));
    const input = { elements, phase: 0, startPhaseOf: () => 0, waits: new Map(), inFlight: [] };
    expect([...nextDispatch({ ...input, limit: null, budget: 2 }).dispatch]).toEqual(['a', 'b']);
    expect([...nextDispatch({ ...input, limit: 1, budget: 2 }).dispatch]).toEqual(['a']);
    expect(nextDispatch({ ...input, limit: null, budget: 0 }).queued).toEqual(['a', 'b', 'c']);
    expect([...nextDispatch({ ...input, limit: null, budget: null }).dispatch]).toEqual(['a', 'b', 'c']);
  });

  it('counts every order against the runtime-wide limit but a migration precheck (its message needs its request)', () => {
    expect(countsAgainstRuntimeLimit('DEPLOY')).toBe(true);
    expect(countsAgainstRuntimeLimit('MIGRATE')).toBe(true);
    expect(countsAgainstRuntimeLimit('UPDATE')).toBe(true);
    expect(countsAgainstRuntimeLimit('MIGRATE_PRECHECK')).toBe(false);
  });
});

describe('maxParallelElements', () => {
  it('accepts a positive integer and refuses anything else, naming the rule', () => {
    expect(parallelismProblem({ maxParallelElements: 3 })).toBeNull();
    expect(parallelismProblem({})).toBeNull();
    expect(parallelismProblem(null)).toBeNull();
    for (const bad of [0, -1, 1.5, '3', true]) {
      expect(parallelismProblem({ maxParallelElements: bad })).toMatch(/^must be a positive integer/);
    }
  });

  it('takes the instance’s value, else the definition’s, capped by the runtime’s; none means no limit', () => {
    expect(parallelismLimit(null, null, null)).toBeNull();
    expect(parallelismLimit({ maxParallelElements: 5 }, { maxParallelElements: 2 }, null)).toBe(5);
    expect(parallelismLimit(null, { maxParallelElements: 2 }, null)).toBe(2);
    expect(parallelismLimit({ maxParallelElements: 5 }, null, 3)).toBe(3);
    expect(parallelismLimit(null, null, 4)).toBe(4);
  });
});
