import { ACM_COMPOSITION_TYPE, ACM_ELEMENT_TYPE } from './composition';
import { isMapping } from './guards';
import { fixtureFiles, fixtureTemplate, fixtureText } from './testing/tosca-fixtures';
import { resolveElementProperties } from './validate-properties';
import { validateServiceTemplate } from './validate-service-template';

const OPTIONS = { elementTypeName: ACM_ELEMENT_TYPE, compositionTypeName: ACM_COMPOSITION_TYPE };
const EXAMPLES = fixtureFiles('examples', '.yaml').map((file) => file.replace(/\.yaml$/, ''));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface InstanceElement {
  id: string;
  definition: { name: string; version: string };
  properties?: Record<string, unknown>;
}

function instanceElements(example: string): Array<[string, InstanceElement]> {
  const body: unknown = JSON.parse(fixtureText(`examples/instances/${example}.json`));
  if (!isMapping(body) || !isMapping(body['elements'])) {
    throw new Error(`instance ${example} has no elements mapping`);
  }
  return Object.entries(body['elements'] as Record<string, InstanceElement>);
}

describe('tosca/ fixtures', () => {
  it('has the documented examples', () => {
    expect(EXAMPLES).toEqual([
      'provider-resource',
      'sim-approval',
      'sim-dependencies',
      'sim-diamond',
      'sim-group',
      'sim-migration-from',
      'sim-migration-to',
      'sim-multiple-types',
      'sim-nested-site',
      'sim-nested-slice',
      'sim-references',
      'sim-replace',
      'sim-sensitive',
      'sim-single-element',
      'sim-three-phase',
      'sim-timeout',
      'sim-two-participants',
      'sim-typed-properties',
    ]);
  });

  it.each(EXAMPLES)('has an instance body for %s whose properties pass strict validation', (example) => {
    const template = fixtureTemplate(`examples/${example}.yaml`);
    const problems = instanceElements(example).flatMap(
      ([id, element]) =>
        resolveElementProperties(template, {
          nodeTemplateName: element.definition.name,
          properties: element.properties ?? {},
          path: ['elements', id, 'properties'],
        }).problems,
    );

    expect(problems).toEqual([]);
  });

  it('keeps the fundamental types valid on their own (only the topology is missing)', () => {
    const result = validateServiceTemplate(fixtureTemplate('acm-fundamental-types.yaml'), OPTIONS);

    expect(result.ok ? [] : result.problems.map((p) => `${p.rule} ${p.path}`)).toEqual(['required topology_template']);
  });

  it.each(EXAMPLES)('embeds the fundamental types unchanged in %s', (example) => {
    const fundamental = fixtureTemplate('acm-fundamental-types.yaml');
    const template = fixtureTemplate(`examples/${example}.yaml`);

    for (const section of ['data_types', 'node_types'] as const) {
      for (const [name, definition] of Object.entries(fundamental[section] ?? {})) {
        expect(template[section]?.[name]).toEqual(definition);
      }
    }
  });

  it('embeds the provider types unchanged in provider-resource, where they validate', () => {
    const provider = fixtureTemplate('acm-provider-types.yaml');
    const template = fixtureTemplate('examples/provider-resource.yaml');
    const names = Object.keys(provider.node_types ?? {});

    expect(names).toEqual(['org.onap.policy.clamp.acm.AutomationCompositionElement.ResourceProvider']);
    for (const name of names) {
      expect(template.node_types?.[name]).toEqual(provider.node_types?.[name]);
    }
    const result = validateServiceTemplate(template, OPTIONS);
    expect(result.ok ? result.definition.elements.map((element) => element.type) : result.problems).toEqual([
      'org.example.FakeResourceElement',
    ]);
  });

  it.each(EXAMPLES)('has an instance body for %s that matches the listed elements', (example) => {
    const result = validateServiceTemplate(fixtureTemplate(`examples/${example}.yaml`), OPTIONS);
    const listed = result.ok ? result.definition.listedElements : [];
    const elements = instanceElements(example);

    expect(elements.map(([, element]) => element.definition)).toEqual(listed);
    expect(elements.every(([key, element]) => key === element.id && UUID.test(key))).toBe(true);
    expect(fixtureText(`examples/instances/${example}.json`)).toContain('"compositionId": "COMPOSITIONIDPLACEHOLDER"');
  });

  it('uses element ids that are unique across all instance bodies (a migrate body reuses its source ids)', () => {
    const ids = EXAMPLES.filter((example) => example !== 'sim-migration-to').flatMap((example) =>
      instanceElements(example).map(([id]) => id),
    );

    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes a migration: kept ids change version, one element is removed and one added', () => {
    const from = new Map(instanceElements('sim-migration-from'));
    const to = new Map(instanceElements('sim-migration-to'));
    const kept = [...to.keys()].filter((id) => from.has(id));

    expect(kept.map((id) => [from.get(id)?.definition.version, to.get(id)?.definition.version])).toEqual([
      ['1.0.0', '2.0.0'],
      ['1.0.0', '2.0.0'],
    ]);
    expect([...from.keys()].filter((id) => !to.has(id))).toHaveLength(1);
    expect([...to.keys()].filter((id) => !from.has(id))).toHaveLength(1);
    expect(fixtureText('examples/instances/sim-migration-to.json')).toContain(
      '"compositionTargetId": "COMPOSITIONTARGETIDPLACEHOLDER"',
    );
  });
});
