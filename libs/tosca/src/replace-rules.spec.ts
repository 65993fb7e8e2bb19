import { ACM_COMPOSITION_TYPE, ACM_ELEMENT_TYPE } from './composition';
import { replaceRulesOf } from './replace-rules';
import type { NodeType, ServiceTemplate } from './service-template';
import { fixtureTemplate } from './testing/tosca-fixtures';
import { validateServiceTemplate } from './validate-service-template';

const OPTIONS = { elementTypeName: ACM_ELEMENT_TYPE, compositionTypeName: ACM_COMPOSITION_TYPE };
const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const COMPOSITION = 'acm.example.replace.Composition';

function replaceExample(): ServiceTemplate {
  return structuredClone(fixtureTemplate('examples/sim-replace.yaml'));
}

function simType(template: ServiceTemplate): NodeType {
  const type = template.node_types?.[SIM_TYPE];
  if (type === undefined) {
    throw new Error('fixture without the simulator type');
  }
  return type;
}

function problemsOf(template: ServiceTemplate): Array<{ rule: string; path: string; message: string }> {
  const result = validateServiceTemplate(template, OPTIONS);
  return result.ok ? [] : result.problems.map(({ rule, path, message }) => ({ rule, path, message }));
}

describe('replace rules in a service template', () => {
  it('carries the non-updatable properties into every element of the type, and nothing else by default', () => {
    const result = validateServiceTemplate(replaceExample(), OPTIONS);

    expect(result.ok && result.definition.elements.map((element) => [element.name, element.replaceOn])).toEqual([
      ['acm.example.replace.Database', ['zone']],
      ['acm.example.replace.Backend', ['zone']],
      ['acm.example.replace.Frontend', ['zone']],
    ]);
    expect(result.ok && result.definition.elements.some((element) => 'createBeforeDestroy' in element)).toBe(false);
    expect(result.ok && 'removeOrphans' in result.definition).toBe(false);
  });

  it('adds no replace field to a template that sets no flag (ONAP files read as before)', () => {
    const result = validateServiceTemplate(fixtureTemplate('examples/sim-dependencies.yaml'), OPTIONS);

    expect(result.ok && result.definition.elements.flatMap((element) => Object.keys(element))).not.toEqual(
      expect.arrayContaining(['replaceOn']),
    );
  });

  it('reads createBeforeDestroy on the node type and removeOrphans on the composition node template', () => {
    const template = replaceExample();
    simType(template).metadata = { createBeforeDestroy: true };
    const composition = template.topology_template?.node_templates?.[COMPOSITION];
    if (composition === undefined) {
      throw new Error('fixture without its composition');
    }
    composition.metadata = { removeOrphans: true };
    const result = validateServiceTemplate(template, OPTIONS);

    expect(result.ok && result.definition.removeOrphans).toBe(true);
    expect(result.ok && result.definition.elements.map((element) => element.createBeforeDestroy)).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('refuses flags that are not booleans, each named by its path, in one answer', () => {
    const template = replaceExample();
    const type = simType(template);
    type.metadata = { createBeforeDestroy: 'yes' };
    const zone = type.properties?.['zone'];
    if (zone === undefined) {
      throw new Error('fixture without zone');
    }
    zone.metadata = { updatable: 'false' };
    const composition = template.topology_template?.node_templates?.[COMPOSITION];
    if (composition === undefined) {
      throw new Error('fixture without its composition');
    }
    composition.metadata = { removeOrphans: 1 };

    expect(problemsOf(template)).toEqual([
      {
        rule: 'replace-metadata',
        path: `node_types["${SIM_TYPE}"].metadata.createBeforeDestroy`,
        message: 'metadata.createBeforeDestroy must be a boolean (true or false), got "yes"',
      },
      {
        rule: 'replace-metadata',
        path: `node_types["${SIM_TYPE}"].properties.zone.metadata.updatable`,
        message: 'metadata.updatable must be a boolean (true or false), got "false"',
      },
      {
        rule: 'replace-metadata',
        path: `topology_template.node_templates["${COMPOSITION}"].metadata.removeOrphans`,
        message: 'metadata.removeOrphans must be a boolean (true or false), got 1',
      },
    ]);
  });

  it('inherits through derived_from: a child may make a property updatable again and overrides the order', () => {
    const nodeTypes = {
      'acm.Base': {
        derived_from: 'tosca.nodes.Root',
        metadata: { createBeforeDestroy: true },
        properties: {
          zone: { type: 'string', metadata: { updatable: false } },
          size: { type: 'integer', metadata: { updatable: false } },
          url: { type: 'string' },
        },
      },
      'acm.Child': {
        derived_from: 'acm.Base',
        metadata: { createBeforeDestroy: false },
        properties: {
          size: { type: 'integer', metadata: { updatable: true } },
          image: { type: 'string', metadata: { updatable: false } },
        },
      },
    };

    expect(replaceRulesOf(nodeTypes, 'acm.Base')).toEqual({ replaceOn: ['size', 'zone'], createBeforeDestroy: true });
    expect(replaceRulesOf(nodeTypes, 'acm.Child')).toEqual({
      replaceOn: ['image', 'zone'],
      createBeforeDestroy: false,
    });
    expect(replaceRulesOf(nodeTypes, 'acm.Unknown')).toEqual({ replaceOn: [], createBeforeDestroy: false });
  });
});
