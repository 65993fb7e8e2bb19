import { ParticipantCache, definitionKey, nextStageOf, parseDefinitionKey, stagesOf, startPhaseOf } from './cache';

describe('cache helpers', () => {
  it.each([
    [{}, 0],
    [{ startPhase: 2 }, 2],
    [{ startPhase: '3' }, 3],
    [{ startPhase: -1 }, 0],
    [{ startPhase: 1.5 }, 0],
  ])('startPhaseOf(%j) = %d', (properties, phase) => {
    expect(startPhaseOf(properties)).toBe(phase);
  });

  it.each([
    [{}, 'migrate', [0]],
    [{ stage: [2, 0, 2] }, 'migrate', [0, 2]],
    [{ stage: [1, 2] }, 'prepare', [0]],
    [{ stage: { prepare: [1], migrate: [0, 3] } }, 'prepare', [1]],
    [{ stage: { prepare: [1], migrate: [0, 3] } }, 'migrate', [0, 3]],
  ] as const)('stagesOf(%j, %s) = %j', (properties, kind, stages) => {
    expect(stagesOf(properties, kind)).toEqual(stages);
  });

  it('finds the next stage, or the current one when it is the last', () => {
    expect(nextStageOf([0, 2, 5], 0)).toBe(2);
    expect(nextStageOf([0, 2, 5], 5)).toBe(5);
  });

  it('writes and parses ONAP\'s "name version" keys', () => {
    const definition = { name: 'onap.policy.clamp.ac.element.Sim X', version: '1.2.3' };
    expect(definitionKey(definition)).toBe('onap.policy.clamp.ac.element.Sim X 1.2.3');
    expect(parseDefinitionKey(definitionKey(definition))).toEqual(definition);
  });

  it('merges a CompositionDto into the element definitions of a PRIME', () => {
    const cache = new ParticipantCache();
    const composition = cache.storeComposition(
      'c',
      'PRIMING',
      [{ acElementDefinitionId: { name: 'A', version: '1.0.0' } }],
      {
        compositionId: 'c',
        inPropertiesMap: { 'A 1.0.0': { startPhase: 1 }, 'B 2.0.0': { startPhase: 2 } },
        outPropertiesMap: { 'B 2.0.0': { x: 1 } },
      },
      undefined,
    );
    expect(
      [...composition.elements.values()].map((element) => [
        element.definition,
        element.startPhase,
        element.outProperties,
      ]),
    ).toEqual([
      [{ name: 'A', version: '1.0.0' }, 1, {}],
      [{ name: 'B', version: '2.0.0' }, 2, { x: 1 }],
    ]);
  });
});
