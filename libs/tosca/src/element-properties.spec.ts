import { asNonNegativeInteger, readDependsOn, readStage, readStartPhase } from './element-properties';

const PATH = ['topology_template', 'node_templates', 'acm.E', 'properties'];

describe(asNonNegativeInteger.name, () => {
  it.each<[unknown, number | undefined]>([
    [0, 0],
    [7, 7],
    ['12', 12],
    [-1, undefined],
    [1.5, undefined],
    ['1.0', undefined],
    ['-3', undefined],
    ['', undefined],
    [true, undefined],
    [null, undefined],
    [Number.MAX_SAFE_INTEGER + 1, undefined],
  ])('reads %p as %p', (value, expected) => {
    expect(asNonNegativeInteger(value)).toBe(expected);
  });
});

describe(readStartPhase.name, () => {
  it.each<[string, Record<string, unknown>, number, string[]]>([
    ['absent', {}, 0, []],
    ['null', { startPhase: null }, 0, []],
    ['an integer', { startPhase: 3 }, 3, []],
    ['a numeric string', { startPhase: '2' }, 2, []],
    ['negative', { startPhase: -1 }, 0, ['topology_template.node_templates["acm.E"].properties.startPhase']],
    ['a word', { startPhase: 'late' }, 0, ['topology_template.node_templates["acm.E"].properties.startPhase']],
  ])('reads a startPhase that is %s', (_label, properties, value, problemPaths) => {
    const result = readStartPhase(properties, PATH);

    expect(result.value).toBe(value);
    expect(result.problems.map((p) => p.path)).toEqual(problemPaths);
  });
});

describe(readStage.name, () => {
  const stagePath = 'topology_template.node_templates["acm.E"].properties.stage';

  it.each<[string, unknown, { prepare: number[]; migrate: number[] }, string[]]>([
    ['absent', undefined, { prepare: [0], migrate: [0] }, []],
    ['a map with both operations', { prepare: [1, 2], migrate: [0, 3] }, { prepare: [1, 2], migrate: [0, 3] }, []],
    ['a map with prepare only', { prepare: [2] }, { prepare: [2], migrate: [0] }, []],
    ['a map with migrate only', { migrate: [4] }, { prepare: [0], migrate: [4] }, []],
    ['a map with unsorted duplicates', { migrate: [3, 1, 3] }, { prepare: [0], migrate: [1, 3] }, []],
    ['a legacy list (migrate stages)', [2, 1], { prepare: [0], migrate: [1, 2] }, []],
    ['a map with numeric strings', { prepare: ['1'] }, { prepare: [1], migrate: [0] }, []],
    ['a number', 5, { prepare: [0], migrate: [0] }, [stagePath]],
    ['a map with a bad entry', { prepare: [0, 'x'] }, { prepare: [0], migrate: [0] }, [`${stagePath}.prepare[1]`]],
    ['a map with an empty list', { migrate: [] }, { prepare: [0], migrate: [0] }, [`${stagePath}.migrate`]],
    ['a map with a scalar operation', { prepare: 1 }, { prepare: [0], migrate: [0] }, [`${stagePath}.prepare`]],
  ])('reads a stage that is %s', (_label, stage, value, problemPaths) => {
    const result = readStage(stage === undefined ? {} : { stage }, PATH);

    expect(result.value).toEqual(value);
    expect(result.problems.map((p) => p.path)).toEqual(problemPaths);
    expect(result.problems.every((p) => p.rule === 'stage')).toBe(true);
  });
});

describe(readDependsOn.name, () => {
  const dependsOnPath = 'topology_template.node_templates["acm.E"].properties.dependsOn';

  it.each<[string, unknown, string[], string[]]>([
    ['absent', undefined, [], []],
    ['a list of names', ['acm.A', 'acm.B'], ['acm.A', 'acm.B'], []],
    ['a list with a repeated name', ['acm.A', 'acm.A'], ['acm.A'], []],
    ['a single name', 'acm.A', [], [dependsOnPath]],
    ['a list with an empty name', ['acm.A', ''], ['acm.A'], [`${dependsOnPath}[1]`]],
  ])('reads a dependsOn that is %s', (_label, dependsOn, value, problemPaths) => {
    const result = readDependsOn(dependsOn === undefined ? {} : { dependsOn }, PATH);

    expect(result.value).toEqual(value);
    expect(result.problems.map((p) => p.path)).toEqual(problemPaths);
  });
});
