import { definitionTable, definitionsTable } from './definitions';

const COMPOSITION = '11111111-1111-4111-8111-111111111111';

describe('acmctl definitions: the project column', () => {
  it('lists each definition with the project its own GET answered', () => {
    const listed = {
      service_templates: [{ name: 'acm.example', version: '1.0.0', metadata: { compositionId: COMPOSITION } }],
    };
    const states = new Map([[COMPOSITION, { state: 'PRIMED', stateChangeResult: 'NO_ERROR', project: 'team-a' }]]);
    expect(definitionsTable(listed, states)).toEqual({
      headers: ['COMPOSITION', 'NAME', 'VERSION', 'PROJECT', 'STATE', 'RESULT'],
      rows: [[COMPOSITION, 'acm.example', '1.0.0', 'team-a', 'PRIMED', 'NO_ERROR']],
    });
  });

  it('shows the project of one definition', () => {
    const definition = {
      compositionId: COMPOSITION,
      serviceTemplate: { name: 'acm.example', version: '1.0.0' },
      state: 'COMMISSIONED',
      stateChangeResult: 'NO_ERROR',
      project: 'default',
    };
    expect(definitionTable(definition).rows).toEqual([
      [COMPOSITION, 'acm.example', '1.0.0', 'default', 'COMMISSIONED', 'NO_ERROR'],
    ]);
  });
});
