import { ACM_COMPOSITION_TYPE, ACM_ELEMENT_TYPE } from './composition';
import { DEPENDS_ON_RELATIONSHIP } from './element-requirements';
import type { NodeTemplate, ServiceTemplate } from './service-template';
import { fixtureTemplate } from './testing/tosca-fixtures';
import { validateServiceTemplate } from './validate-service-template';

const OPTIONS = { elementTypeName: ACM_ELEMENT_TYPE, compositionTypeName: ACM_COMPOSITION_TYPE };
const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const PREFIX = 'acm.example.diamond.';
const NT = 'topology_template.node_templates';
const at = (name: string): string => `${NT}["${PREFIX}${name}"]`;

/** A fresh copy of the diamond example (Database -> Api, Worker -> Frontend, by requirements), to be changed. */
function diamond(): ServiceTemplate {
  return structuredClone(fixtureTemplate('examples/sim-diamond.yaml'));
}

function template(doc: ServiceTemplate, name: string): NodeTemplate {
  const found = doc.topology_template?.node_templates?.[`${PREFIX}${name}`];
  if (found === undefined) {
    throw new Error(`fixture without node template ${name}`);
  }
  return found;
}

function dependenciesOf(doc: ServiceTemplate): Record<string, string[]> {
  const result = validateServiceTemplate(doc, OPTIONS);
  if (!result.ok) {
    throw new Error(`expected a valid template, got ${JSON.stringify(result.problems, null, 2)}`);
  }
  return Object.fromEntries(
    result.definition.elements.map((element) => [
      element.name.replace(PREFIX, ''),
      element.dependsOn.map((name) => name.replace(PREFIX, '')),
    ]),
  );
}

function problemsOf(doc: ServiceTemplate): Array<{ rule: string; path: string; message: string }> {
  const result = validateServiceTemplate(doc, OPTIONS);
  return result.ok ? [] : result.problems.map(({ rule, path, message }) => ({ rule, path, message }));
}

describe('TOSCA DependsOn requirements', () => {
  it('compile the short and the extended notation to the same graph as dependsOn', () => {
    const byRequirements = dependenciesOf(diamond());
    const byProperty = diamond();
    for (const name of ['Api', 'Worker', 'Frontend']) {
      const element = template(byProperty, name);
      const dependsOn = byRequirements[name]!.map((dependency) => `${PREFIX}${dependency}`);
      delete element.requirements;
      element.properties = { ...element.properties, dependsOn };
    }

    expect(byRequirements).toEqual({
      Database: [],
      Api: ['Database'],
      Worker: ['Database'],
      Frontend: ['Api', 'Worker'],
    });
    expect(dependenciesOf(byProperty)).toEqual(byRequirements);
  });

  it('merge with the dependsOn property, each dependency once', () => {
    const doc = diamond();
    template(doc, 'Frontend').properties = { startPhase: 0, dependsOn: [`${PREFIX}Worker`, `${PREFIX}Database`] };

    expect(dependenciesOf(doc)['Frontend']).toEqual(['Worker', 'Database', 'Api']);
  });

  it('read the normative `dependency` requirement as DependsOn when the node type does not declare it', () => {
    const doc = diamond();
    delete doc.node_types?.[SIM_TYPE]?.['requirements'];

    expect(dependenciesOf(doc)['Api']).toEqual(['Database']);
  });

  it('follow a relationship given as {type} and a relationship type derived from DependsOn', () => {
    const doc = diamond();
    doc.relationship_types = {
      [DEPENDS_ON_RELATIONSHIP]: { derived_from: 'tosca.relationships.Root' },
      'acm.example.NeedsData': { derived_from: DEPENDS_ON_RELATIONSHIP },
    };
    template(doc, 'Api').requirements = [
      { store: { node: `${PREFIX}Database`, relationship: { type: 'acm.example.NeedsData' } } },
    ];
    template(doc, 'Worker').requirements = [
      { store: { node: `${PREFIX}Database`, relationship: { type: DEPENDS_ON_RELATIONSHIP } } },
    ];

    expect(dependenciesOf(doc)).toMatchObject({ Api: ['Database'], Worker: ['Database'] });
  });

  it('ignore requirements of other relationships, as ONAP keeps them', () => {
    const doc = diamond();
    template(doc, 'Api').requirements = [
      { host: { node: 'acm.example.SimParticipant', relationship: 'tosca.relationships.HostedOn' } },
      { link: 'anything' },
    ];

    expect(dependenciesOf(doc)['Api']).toEqual([]);
  });

  it.each<[string, (doc: ServiceTemplate) => void, Array<{ rule: string; path: string }>]>([
    [
      'a requirement naming a missing node template (short notation)',
      (doc) => {
        template(doc, 'Api').requirements = [{ dependency: 'acm.example.Ghost' }];
      },
      [{ rule: 'depends-on', path: `${at('Api')}.requirements[0].dependency` }],
    ],
    [
      'a requirement naming a node template that is not an element (extended notation)',
      (doc) => {
        template(doc, 'Worker').requirements = [
          { database: { node: 'acm.example.SimParticipant', relationship: DEPENDS_ON_RELATIONSHIP } },
        ];
      },
      [{ rule: 'depends-on', path: `${at('Worker')}.requirements[0].database.node` }],
    ],
    [
      'a DependsOn requirement without a node',
      (doc) => {
        template(doc, 'Worker').requirements = [{ database: { relationship: DEPENDS_ON_RELATIONSHIP } }];
      },
      [{ rule: 'depends-on', path: `${at('Worker')}.requirements[0].database.node` }],
    ],
    [
      'requirements that are not a list',
      (doc) => {
        template(doc, 'Api').requirements = { dependency: `${PREFIX}Database` };
      },
      [{ rule: 'shape', path: `${at('Api')}.requirements` }],
    ],
    [
      'a requirements entry with two names',
      (doc) => {
        template(doc, 'Api').requirements = [{ dependency: `${PREFIX}Database`, other: `${PREFIX}Worker` }];
      },
      [{ rule: 'shape', path: `${at('Api')}.requirements[0]` }],
    ],
    [
      'a requirement on an element of a later start phase',
      (doc) => {
        template(doc, 'Database').properties = { startPhase: 1 };
      },
      [
        { rule: 'depends-on-later-phase', path: `${at('Api')}.requirements[0].dependency` },
        { rule: 'depends-on-later-phase', path: `${at('Worker')}.requirements[0].database.node` },
      ],
    ],
  ])('refuse %s, naming the requirement', (_label, change, expected) => {
    const doc = diamond();
    change(doc);

    expect(problemsOf(doc).map(({ rule, path }) => ({ rule, path }))).toEqual(expected);
  });

  it('refuse a cycle across requirements and dependsOn with each loop and where its first edge is written', () => {
    const doc = diamond();
    template(doc, 'Database').properties = { startPhase: 0, dependsOn: [`${PREFIX}Frontend`] };
    const loop = (...names: string[]): string =>
      `elements depend on each other in a loop: ${names.map((name) => PREFIX + name).join(' -> ')}`;

    expect(problemsOf(doc)).toEqual(
      [loop('Database', 'Frontend', 'Api', 'Database'), loop('Database', 'Frontend', 'Worker', 'Database')].map(
        (message) => ({ rule: 'depends-on-cycle', path: `${at('Database')}.properties.dependsOn`, message }),
      ),
    );
  });

  it('refuse a cycle written only in requirements at the first requirement of the cycle', () => {
    const doc = diamond();
    template(doc, 'Database').requirements = [{ dependency: `${PREFIX}Worker` }];

    expect(problemsOf(doc).map(({ rule, path }) => ({ rule, path }))).toEqual([
      { rule: 'depends-on-cycle', path: `${at('Database')}.requirements[0].dependency` },
    ]);
  });
});
