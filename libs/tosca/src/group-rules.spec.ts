import { ACM_COMPOSITION_TYPE, ACM_ELEMENT_TYPE } from './composition';
import { readGroupDefinition } from './group-rules';
import type { ServiceTemplate } from './service-template';
import { fixtureTemplate } from './testing/tosca-fixtures';
import { validateServiceTemplate } from './validate-service-template';

const OPTIONS = { elementTypeName: ACM_ELEMENT_TYPE, compositionTypeName: ACM_COMPOSITION_TYPE };
const WORKER = 'acm.example.group.Worker';
const PATH = ['topology_template', 'node_templates', WORKER];

function groupExample(): ServiceTemplate {
  return structuredClone(fixtureTemplate('examples/sim-group.yaml'));
}

function withWorker(edit: (worker: Record<string, unknown>) => void): ServiceTemplate {
  const template = groupExample();
  const worker = template.topology_template?.node_templates?.[WORKER] as Record<string, unknown> | undefined;
  if (worker === undefined) {
    throw new Error('fixture without the worker');
  }
  edit(worker);
  return template;
}

function problemsOf(template: ServiceTemplate): Array<{ rule: string; path: string; message: string }> {
  const result = validateServiceTemplate(template, OPTIONS);
  return result.ok ? [] : result.problems.map(({ rule, path, message }) => ({ rule, path, message }));
}

describe('group rules in a service template', () => {
  it('reads the count, its bounds and the scaling policy of the example, and nothing for ordinary elements', () => {
    const result = validateServiceTemplate(groupExample(), OPTIONS);

    expect(result.ok && result.definition.elements.map((element) => [element.name, element.group])).toEqual([
      ['acm.example.group.Queue', undefined],
      [
        WORKER,
        {
          count: 3,
          min: 1,
          max: 6,
          scaling: { adjustmentType: 'change_in_capacity', adjustment: 1, cooldownSeconds: 60 },
        },
      ],
      ['acm.example.group.Dispatcher', undefined],
    ]);
  });

  it('defaults the lower bound to 1, no upper bound and no scaling', () => {
    expect(readGroupDefinition({ count: 2 }, PATH)).toEqual({ value: { count: 2, min: 1 }, problems: [] });
  });

  it.each([
    ['a count that is not an integer', { count: 2.5 }, 'count', 'count must be an integer of at least 1, got 2.5'],
    ['a count below 1', { count: 0 }, 'count', 'count must be an integer of at least 1, got 0'],
    ['a count given as text', { count: '3' }, 'count', 'count must be an integer of at least 1, got "3"'],
    [
      'a lower bound above the upper one',
      { count: 2, metadata: { count_min: 5, count_max: 4 } },
      'metadata.count_min',
      'metadata.count_min (5) must not exceed metadata.count_max (4)',
    ],
    [
      'a count outside its bounds',
      { count: 7, metadata: { count_max: 6 } },
      'count',
      'count 7 is outside metadata.count_min..count_max (1..6)',
    ],
    [
      'an unknown adjustment type',
      { count: 2, metadata: { scaling_adjustment_type: 'double', scaling_adjustment: 1 } },
      'metadata.scaling_adjustment_type',
      'metadata.scaling_adjustment_type must be one of change_in_capacity, exact_capacity, percent_change_in_capacity, got "double"',
    ],
    [
      'an adjustment that is not an integer',
      { count: 2, metadata: { scaling_adjustment: 'one' } },
      'metadata.scaling_adjustment',
      'metadata.scaling_adjustment must be an integer, got "one"',
    ],
    [
      'bounds on a node template without count',
      { metadata: { count_max: 3 } },
      'metadata.count_max',
      'metadata.count_max applies only to a node template with count',
    ],
  ])('refuses %s at commissioning, naming the field', (_case, fields, field, message) => {
    const template = withWorker((worker) => {
      delete worker['count'];
      delete worker['metadata'];
      Object.assign(worker, fields);
    });

    expect(problemsOf(template)).toEqual([
      { rule: 'group-count', path: `topology_template.node_templates["${WORKER}"].${field}`, message },
    ]);
  });
});

describe('unique properties of a group', () => {
  it('carries the properties its node type marks unique, inherited, into the group', () => {
    const template = groupExample();
    const sim = template.node_types?.['org.onap.policy.clamp.acm.SimAutomationCompositionElement'];
    (sim!.properties!['baseUrl'] as Record<string, unknown>)['metadata'] = { unique: true };
    const result = validateServiceTemplate(template, OPTIONS);

    expect(result.ok && result.definition.elements.find((element) => element.name === WORKER)?.group?.unique).toEqual([
      'baseUrl',
    ]);
    expect(
      result.ok && result.definition.elements.some((element) => element.group === undefined && 'unique' in element),
    ).toBe(false);
  });
});
