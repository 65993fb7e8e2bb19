import type { ServiceTemplate } from './service-template';
import { compositionIdOf, withCompositionId } from './template-metadata';

const ID = '0b9d3c2e-3f4a-4d5b-8c6d-7e8f9a0b1c2d';

describe(withCompositionId.name, () => {
  it('adds metadata.compositionId next to the existing metadata without touching the original', () => {
    const template: ServiceTemplate = {
      tosca_definitions_version: 'tosca_simple_yaml_1_3',
      metadata: { primeTimeoutMs: 5 },
    };

    const stored = withCompositionId(template, ID);

    expect(stored).toEqual({
      tosca_definitions_version: 'tosca_simple_yaml_1_3',
      metadata: { primeTimeoutMs: 5, compositionId: ID },
    });
    expect(template.metadata).toEqual({ primeTimeoutMs: 5 });
  });

  it('creates metadata when the template has none', () => {
    expect(withCompositionId({ tosca_definitions_version: 'x' }, ID).metadata).toEqual({ compositionId: ID });
  });
});

describe(compositionIdOf.name, () => {
  it.each<[string, ServiceTemplate, string | undefined]>([
    ['present', { tosca_definitions_version: 'x', metadata: { compositionId: ID } }, ID],
    ['absent', { tosca_definitions_version: 'x', metadata: {} }, undefined],
    ['without metadata', { tosca_definitions_version: 'x' }, undefined],
    ['empty', { tosca_definitions_version: 'x', metadata: { compositionId: '' } }, undefined],
    ['not a string', { tosca_definitions_version: 'x', metadata: { compositionId: 42 } }, undefined],
  ])('reads a compositionId that is %s', (_label, template, expected) => {
    expect(compositionIdOf(template)).toBe(expected);
  });
});
