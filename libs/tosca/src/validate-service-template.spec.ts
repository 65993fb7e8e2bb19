import { ACM_COMPOSITION_TYPE, ACM_ELEMENT_TYPE } from './composition';
import { formatProblems } from './problem';
import type { NodeTemplate, NodeType, ServiceTemplate } from './service-template';
import { fixtureTemplate } from './testing/tosca-fixtures';
import { metadataTimeoutMs, validateServiceTemplate } from './validate-service-template';

const OPTIONS = { elementTypeName: ACM_ELEMENT_TYPE, compositionTypeName: ACM_COMPOSITION_TYPE };
const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const PARTICIPANT_TYPE = 'org.onap.policy.clamp.acm.Participant';
const ELEMENT = 'acm.example.single.SimElement';
const COMPOSITION = 'acm.example.single.Composition';
const PARTICIPANT = 'acm.example.SimParticipant';
const NT = 'topology_template.node_templates';
const EL = `${NT}["${ELEMENT}"]`;
const COMP = `${NT}["${COMPOSITION}"]`;
const SIM = `node_types["${SIM_TYPE}"]`;

/** A fresh copy of the single-element example, to be broken one way per test. */
function single(): ServiceTemplate {
  return structuredClone(fixtureTemplate('examples/sim-single-element.yaml'));
}

function nodeTemplates(doc: ServiceTemplate): Record<string, NodeTemplate> {
  const templates = doc.topology_template?.node_templates;
  if (templates === undefined) {
    throw new Error('fixture without node templates');
  }
  return templates;
}

function nodeTemplate(doc: ServiceTemplate, name: string): NodeTemplate {
  const template = nodeTemplates(doc)[name];
  if (template === undefined) {
    throw new Error(`fixture without node template ${name}`);
  }
  return template;
}

function propertiesOf(doc: ServiceTemplate, name: string): Record<string, unknown> {
  const template = nodeTemplate(doc, name);
  template.properties ??= {};
  return template.properties;
}

function nodeType(doc: ServiceTemplate, name: string): NodeType {
  const type = doc.node_types?.[name];
  if (type === undefined) {
    throw new Error(`fixture without node type ${name}`);
  }
  return type;
}

function simProperties(doc: ServiceTemplate): Record<string, unknown> {
  const type = nodeType(doc, SIM_TYPE);
  type.properties ??= {};
  return type.properties;
}

function rulesAndPaths(template: unknown, options = OPTIONS): Array<{ rule: string; path: string }> {
  const result = validateServiceTemplate(template, options);
  return result.ok ? [] : result.problems.map(({ rule, path }) => ({ rule, path }));
}

function definitionOf(template: unknown, options = OPTIONS) {
  const result = validateServiceTemplate(template, options);
  if (!result.ok) {
    throw new Error(`expected a valid template, got ${JSON.stringify(result.problems, null, 2)}`);
  }
  return result.definition;
}

describe(validateServiceTemplate.name, () => {
  describe('valid templates', () => {
    it.each(['sim-single-element', 'sim-three-phase', 'sim-two-participants', 'sim-dependencies'])(
      'accepts examples/%s.yaml',
      (name) => {
        expect(rulesAndPaths(fixtureTemplate(`examples/${name}.yaml`))).toEqual([]);
      },
    );

    it('describes the single-element example for the runtime', () => {
      expect(definitionOf(single())).toEqual({
        compositionNodeTemplate: { name: COMPOSITION, version: '1.0.0' },
        elements: [
          {
            name: ELEMENT,
            version: '1.0.0',
            type: SIM_TYPE,
            typeVersion: '1.0.0',
            types: [SIM_TYPE, 'org.onap.policy.clamp.acm.AutomationCompositionElement', 'tosca.nodetypes.Root'],
            startPhase: 0,
            stage: { prepare: [0], migrate: [0] },
            properties: { provider: 'acm-runtime', startPhase: 0 },
            dependsOn: [],
          },
        ],
        listedElements: [{ name: ELEMENT, version: '1.0.0' }],
        metadata: {},
      });
    });

    it('reads start phases and stages of the three-phase example', () => {
      const definition = definitionOf(fixtureTemplate('examples/sim-three-phase.yaml'));

      expect(definition.elements.map((e) => [e.name, e.startPhase, e.stage])).toEqual([
        ['acm.example.phases.Phase0A', 0, { prepare: [0], migrate: [0] }],
        ['acm.example.phases.Phase0B', 0, { prepare: [0], migrate: [0] }],
        ['acm.example.phases.Phase1A', 1, { prepare: [1], migrate: [1] }],
        ['acm.example.phases.Phase1B', 1, { prepare: [1], migrate: [1] }],
        ['acm.example.phases.Phase2A', 2, { prepare: [2], migrate: [2] }],
        ['acm.example.phases.Phase2B', 2, { prepare: [2], migrate: [2] }],
      ]);
    });

    it('reads element types and timeouts of the two-participant example', () => {
      const definition = definitionOf(fixtureTemplate('examples/sim-two-participants.yaml'));

      expect(definition.elements.map((e) => `${e.type} ${e.typeVersion}`)).toEqual([
        `${SIM_TYPE} 1.0.0`,
        `${SIM_TYPE} 1.0.0`,
        `${SIM_TYPE}2 1.0.0`,
      ]);
      expect(metadataTimeoutMs(definition.metadata, 'primeTimeoutMs')).toBe(60000);
      expect(metadataTimeoutMs(definition.metadata, 'deprimeTimeoutMs')).toBe(60000);
    });

    it('reads dependencies of the dependency example', () => {
      const definition = definitionOf(fixtureTemplate('examples/sim-dependencies.yaml'));

      expect(Object.fromEntries(definition.elements.map((e) => [e.name.split('.').pop(), e.dependsOn]))).toEqual({
        Database: [],
        Backend: ['acm.example.deps.Database'],
        Frontend: ['acm.example.deps.Backend', 'acm.example.deps.Database'],
        Monitor: [],
      });
    });

    it.each<[string, (doc: ServiceTemplate) => void]>([
      [
        'a node template type written as name:version',
        (doc) => {
          const element = nodeTemplate(doc, ELEMENT);
          element.type = `${SIM_TYPE}:1.0.0`;
          delete element.type_version;
        },
      ],
      [
        'parents ending in .Root',
        (doc) => {
          nodeType(doc, PARTICIPANT_TYPE).derived_from = 'tosca.nodes.Root';
        },
      ],
      [
        'primitive and normative TOSCA property types',
        (doc) => {
          Object.assign(simProperties(doc), {
            timeout: { type: 'scalar-unit.time' },
            document: { type: 'tosca.datatypes.json' },
            ids: { type: 'list', entry_schema: { type: 'onap.datatypes.ToscaConceptIdentifier' } },
            anything: { type: 'map', entry_schema: null },
          });
        },
      ],
      [
        'a composition listing no elements while elements exist',
        (doc) => {
          propertiesOf(doc, COMPOSITION)['elements'] = [];
        },
      ],
      [
        'a template without Participant node template',
        (doc) => {
          delete nodeTemplates(doc)[PARTICIPANT];
        },
      ],
      [
        'SemVer pre-release and build versions',
        (doc) => {
          doc.version = '1.0.0-rc.1+build.5';
          nodeTemplate(doc, PARTICIPANT).version = '2.3.4-1';
        },
      ],
    ])('accepts %s', (_label, mutate) => {
      const doc = single();
      mutate(doc);

      expect(rulesAndPaths(doc)).toEqual([]);
    });

    it('accepts a non-default composition and element type configuration', () => {
      const options = { elementTypeName: SIM_TYPE, compositionTypeName: ACM_COMPOSITION_TYPE };

      expect(definitionOf(single(), options).elements.map((e) => e.name)).toEqual([ELEMENT]);
    });

    it('reads numeric strings the way ONAP does (startPhase "2", primeTimeoutMs "1000")', () => {
      const doc = single();
      propertiesOf(doc, ELEMENT)['startPhase'] = '2';
      doc.metadata = { primeTimeoutMs: '1000' };

      const definition = definitionOf(doc);

      expect(definition.elements[0]?.startPhase).toBe(2);
      expect(metadataTimeoutMs(definition.metadata, 'primeTimeoutMs')).toBe(1000);
    });
  });

  describe('non-TOSCA bodies', () => {
    it.each([
      ['a list', [], 'The body is a list'],
      ['a string', 'text', 'The body is a string'],
      ['null', null, 'The body is empty'],
    ])('refuses %s as a whole', (_label, body, messageStart) => {
      const result = validateServiceTemplate(body, OPTIONS);

      expect(result.ok).toBe(false);
      expect(result.ok ? [] : result.problems).toEqual([
        { path: '', rule: 'shape', message: expect.stringContaining(messageStart) },
      ]);
    });

    it('explains what a mapping without TOSCA keys lacks', () => {
      expect(rulesAndPaths(fixtureTemplate('invalid/not-tosca.json'))).toEqual([
        { rule: 'required', path: 'tosca_definitions_version' },
        { rule: 'required', path: 'topology_template' },
      ]);
    });
  });

  describe('ONAP messages', () => {
    it.each<[string, (doc: ServiceTemplate) => void, string]>([
      [
        'no composition node template',
        (doc) => {
          delete nodeTemplates(doc)[COMPOSITION];
        },
        `NodeTemplate with type ${ACM_COMPOSITION_TYPE} must exist!`,
      ],
      [
        'two composition node templates',
        (doc) => {
          nodeTemplates(doc)['acm.example.Second'] = structuredClone(nodeTemplate(doc, COMPOSITION));
        },
        `NodeTemplate with type ${ACM_COMPOSITION_TYPE} not allowed to be more than one! (found ${COMPOSITION}, acm.example.Second)`,
      ],
      [
        'no element node template',
        (doc) => {
          delete nodeTemplates(doc)[ELEMENT];
          propertiesOf(doc, COMPOSITION)['elements'] = [];
        },
        `NodeTemplate with element type ${ACM_ELEMENT_TYPE} must exist!`,
      ],
    ])('words "%s" like ONAP', (_label, mutate, message) => {
      const doc = single();
      mutate(doc);

      const result = validateServiceTemplate(doc, OPTIONS);

      expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([message]);
    });

    it('names the configured composition type in its message', () => {
      const options = { elementTypeName: ACM_ELEMENT_TYPE, compositionTypeName: 'acm.custom.Composition' };

      const result = validateServiceTemplate(single(), options);

      expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
        'NodeTemplate with type acm.custom.Composition must exist!',
      ]);
    });

    it('reads a stored template by its recorded element names, whatever type names are configured now', () => {
      const renamed = { elementTypeName: 'acm.custom.Element', compositionTypeName: 'acm.custom.Composition' };
      const commissioned = validateServiceTemplate(single(), OPTIONS);

      const stored = validateServiceTemplate(single(), { ...renamed, elementNames: [ELEMENT] });

      expect(stored).toEqual(commissioned);
      expect(stored.ok && stored.definition.compositionNodeTemplate.name).toBe(COMPOSITION);
      expect(stored.ok && stored.definition.elements.map((element) => element.name)).toEqual([ELEMENT]);
    });
  });

  describe('rules, one broken thing at a time', () => {
    type Case = [string, (doc: ServiceTemplate) => void, Array<{ rule: string; path: string }>];
    const cases: Case[] = [
      // document shape
      [
        'tosca_definitions_version missing',
        (doc) => {
          delete (doc as Partial<ServiceTemplate>).tosca_definitions_version;
        },
        [{ rule: 'required', path: 'tosca_definitions_version' }],
      ],
      [
        'topology_template not a mapping',
        (doc) => {
          (doc as Record<string, unknown>)['topology_template'] = ['x'];
        },
        [{ rule: 'shape', path: 'topology_template' }],
      ],
      [
        'node_templates missing',
        (doc) => {
          doc.topology_template = {};
        },
        [{ rule: 'required', path: NT }],
      ],
      [
        'node_templates a list',
        (doc) => {
          (doc.topology_template as Record<string, unknown>)['node_templates'] = [];
        },
        [{ rule: 'shape', path: NT }],
      ],
      [
        'a type section that is not a mapping',
        (doc) => {
          (doc as Record<string, unknown>)['data_types'] = 'none';
        },
        [
          { rule: 'shape', path: 'data_types' },
          {
            rule: 'type-not-found',
            path: `node_types["${ACM_COMPOSITION_TYPE}"].properties.elements.entry_schema.type`,
          },
        ],
      ],
      [
        'a node type that is not a mapping',
        (doc) => {
          (doc.node_types as Record<string, unknown>)[PARTICIPANT_TYPE] = 'none';
        },
        [{ rule: 'shape', path: `node_types["${PARTICIPANT_TYPE}"]` }],
      ],
      [
        'a property definition that is not a mapping',
        (doc) => {
          simProperties(doc)['broken'] = 'string';
        },
        [{ rule: 'shape', path: `${SIM}.properties.broken` }],
      ],
      [
        'a property definition without type',
        (doc) => {
          simProperties(doc)['untyped'] = { required: false };
        },
        [{ rule: 'required', path: `${SIM}.properties.untyped.type` }],
      ],
      [
        'properties that are a list',
        (doc) => {
          (nodeType(doc, PARTICIPANT_TYPE) as Record<string, unknown>)['properties'] = [];
        },
        [{ rule: 'shape', path: `node_types["${PARTICIPANT_TYPE}"].properties` }],
      ],
      [
        'a node template that is not a mapping',
        (doc) => {
          (nodeTemplates(doc) as Record<string, unknown>)[PARTICIPANT] = 'none';
        },
        [{ rule: 'shape', path: `${NT}["${PARTICIPANT}"]` }],
      ],
      [
        'a node template without type',
        (doc) => {
          delete (nodeTemplate(doc, PARTICIPANT) as Partial<NodeTemplate>).type;
        },
        [{ rule: 'required', path: `${NT}["${PARTICIPANT}"].type` }],
      ],
      [
        'a node template type that is not a string',
        (doc) => {
          (nodeTemplate(doc, PARTICIPANT) as Record<string, unknown>)['type'] = 42;
        },
        [{ rule: 'shape', path: `${NT}["${PARTICIPANT}"].type` }],
      ],
      [
        'element node template properties that are a list',
        (doc) => {
          (nodeTemplate(doc, ELEMENT) as Record<string, unknown>)['properties'] = [];
        },
        [{ rule: 'shape', path: `${EL}.properties` }],
      ],
      [
        'policies that are not a list',
        (doc) => {
          (doc.topology_template as Record<string, unknown>)['policies'] = {};
        },
        [{ rule: 'shape', path: 'topology_template.policies' }],
      ],
      [
        'a policy list entry that is not a mapping',
        (doc) => {
          (doc.topology_template as Record<string, unknown>)['policies'] = ['p'];
        },
        [{ rule: 'shape', path: 'topology_template.policies[0]' }],
      ],
      [
        'a policy without type',
        (doc) => {
          (doc.topology_template as Record<string, unknown>)['policies'] = [
            { 'acm.Policy': { type_version: '1.0.0' } },
          ];
        },
        [{ rule: 'required', path: 'topology_template.policies[0]["acm.Policy"].type' }],
      ],
      [
        'metadata that is not a mapping',
        (doc) => {
          (doc as Record<string, unknown>)['metadata'] = 'x';
        },
        [{ rule: 'shape', path: 'metadata' }],
      ],

      // names and versions
      [
        'a node template name with spaces',
        (doc) => {
          nodeTemplates(doc)['bad name'] = structuredClone(nodeTemplate(doc, PARTICIPANT));
        },
        [{ rule: 'name-format', path: `${NT}["bad name"]` }],
      ],
      [
        'a type name with a slash',
        (doc) => {
          doc.data_types = { ...doc.data_types, 'acm/bad': { derived_from: 'tosca.datatypes.Root' } };
        },
        [{ rule: 'name-format', path: 'data_types["acm/bad"]' }],
      ],
      [
        'a template name with a colon',
        (doc) => {
          doc.name = 'acm:bad';
        },
        [{ rule: 'name-format', path: 'name' }],
      ],
      [
        'a template version that is a YAML number',
        (doc) => {
          (doc as Record<string, unknown>)['version'] = 1;
        },
        [{ rule: 'version-format', path: 'version' }],
      ],
      [
        'a node template version with two parts',
        (doc) => {
          nodeTemplate(doc, PARTICIPANT).version = '1.0';
        },
        [{ rule: 'version-format', path: `${NT}["${PARTICIPANT}"].version` }],
      ],
      [
        'a node template version with a leading zero',
        (doc) => {
          nodeTemplate(doc, PARTICIPANT).version = '01.0.0';
        },
        [{ rule: 'version-format', path: `${NT}["${PARTICIPANT}"].version` }],
      ],
      [
        'a node type version that is not SemVer',
        (doc) => {
          nodeType(doc, SIM_TYPE).version = 'v1';
        },
        [
          { rule: 'version-format', path: `${SIM}.version` },
          { rule: 'type-version-not-found', path: `${EL}.type` },
        ],
      ],
      [
        'a type_version that is not SemVer',
        (doc) => {
          nodeTemplate(doc, PARTICIPANT).type_version = 'latest';
        },
        [
          { rule: 'version-format', path: `${NT}["${PARTICIPANT}"].type_version` },
          { rule: 'type-version-not-found', path: `${NT}["${PARTICIPANT}"].type` },
        ],
      ],
      [
        'a name field that contradicts the key',
        (doc) => {
          nodeTemplate(doc, PARTICIPANT).name = 'acm.example.Other';
        },
        [{ rule: 'name-mismatch', path: `${NT}["${PARTICIPANT}"].name` }],
      ],

      // references
      [
        'a parent that is not defined',
        (doc) => {
          nodeType(doc, SIM_TYPE).derived_from = `${ACM_ELEMENT_TYPE}.Missing`;
        },
        [{ rule: 'parent-not-found', path: `${SIM}.derived_from` }],
      ],
      [
        'a derived_from that is not a string',
        (doc) => {
          (nodeType(doc, PARTICIPANT_TYPE) as Record<string, unknown>)['derived_from'] = ['tosca.nodes.Root'];
        },
        [{ rule: 'shape', path: `node_types["${PARTICIPANT_TYPE}"].derived_from` }],
      ],
      [
        'a node type that is not defined',
        (doc) => {
          nodeTemplate(doc, PARTICIPANT).type = 'org.onap.policy.clamp.acm.Missing';
        },
        [{ rule: 'type-not-found', path: `${NT}["${PARTICIPANT}"].type` }],
      ],
      [
        'a node template type_version the node type does not have',
        (doc) => {
          nodeTemplate(doc, ELEMENT).type_version = '2.0.0';
        },
        [{ rule: 'type-version-not-found', path: `${EL}.type` }],
      ],
      [
        'a node template without type_version',
        (doc) => {
          delete nodeTemplate(doc, ELEMENT).type_version;
        },
        [{ rule: 'required', path: `${EL}.type_version` }],
      ],
      [
        'a property data type that is not defined',
        (doc) => {
          simProperties(doc)['target'] = { type: 'acm.datatypes.Missing' };
        },
        [{ rule: 'type-not-found', path: `${SIM}.properties.target.type` }],
      ],
      [
        'an entry_schema data type that is not defined',
        (doc) => {
          simProperties(doc)['targets'] = { type: 'list', entry_schema: { type: 'acm.datatypes.Missing' } };
        },
        [{ rule: 'type-not-found', path: `${SIM}.properties.targets.entry_schema.type` }],
      ],
      [
        'a key_schema data type that is not defined',
        (doc) => {
          simProperties(doc)['byKey'] = { type: 'map', key_schema: { type: 'acm.datatypes.Missing' } };
        },
        [{ rule: 'type-not-found', path: `${SIM}.properties.byKey.key_schema.type` }],
      ],
      [
        'an entry_schema that is a string',
        (doc) => {
          simProperties(doc)['targets'] = { type: 'list', entry_schema: 'string' };
        },
        [{ rule: 'shape', path: `${SIM}.properties.targets.entry_schema` }],
      ],
      [
        'a versioned data type referenced without type_version',
        (doc) => {
          doc.data_types = { ...doc.data_types, 'acm.datatypes.Versioned': { version: '1.0.0' } };
          simProperties(doc)['target'] = { type: 'acm.datatypes.Versioned' };
        },
        [{ rule: 'type-version-not-found', path: `${SIM}.properties.target.type` }],
      ],
      [
        'a policy type that is not defined',
        (doc) => {
          (doc.topology_template as Record<string, unknown>)['policies'] = [
            { 'acm.Policy': { type: 'acm.policies.Missing', type_version: '1.0.0' } },
          ];
        },
        [{ rule: 'type-not-found', path: 'topology_template.policies[0]["acm.Policy"].type' }],
      ],
      [
        'data types deriving from each other',
        (doc) => {
          doc.data_types = {
            ...doc.data_types,
            'acm.datatypes.A': { derived_from: 'acm.datatypes.B' },
            'acm.datatypes.B': { derived_from: 'acm.datatypes.A' },
          };
        },
        [{ rule: 'cycle', path: 'data_types["acm.datatypes.A"].derived_from' }],
      ],

      // composition and elements
      [
        'no composition node template',
        (doc) => {
          delete nodeTemplates(doc)[COMPOSITION];
        },
        [{ rule: 'composition-missing', path: NT }],
      ],
      [
        'two composition node templates',
        (doc) => {
          nodeTemplates(doc)['acm.example.Second'] = structuredClone(nodeTemplate(doc, COMPOSITION));
        },
        [{ rule: 'composition-duplicate', path: NT }],
      ],
      [
        'no element node template',
        (doc) => {
          delete nodeTemplates(doc)[ELEMENT];
          propertiesOf(doc, COMPOSITION)['elements'] = [];
        },
        [{ rule: 'element-missing', path: NT }],
      ],
      [
        'an element only via a grand-parent type (ONAP checks one level)',
        (doc) => {
          doc.node_types = { ...doc.node_types, 'acm.GrandChild': { version: '1.0.0', derived_from: SIM_TYPE } };
          Object.assign(nodeTemplate(doc, ELEMENT), { type: 'acm.GrandChild', type_version: '1.0.0' });
        },
        [
          { rule: 'element-missing', path: NT },
          { rule: 'element-reference', path: `${COMP}.properties.elements[0].name` },
        ],
      ],
      [
        'a composition without elements property',
        (doc) => {
          delete propertiesOf(doc, COMPOSITION)['elements'];
        },
        [{ rule: 'required', path: `${COMP}.properties.elements` }],
      ],
      [
        'a composition elements property that is a mapping',
        (doc) => {
          propertiesOf(doc, COMPOSITION)['elements'] = { name: ELEMENT, version: '1.0.0' };
        },
        [{ rule: 'shape', path: `${COMP}.properties.elements` }],
      ],
      [
        'a listed element without version',
        (doc) => {
          propertiesOf(doc, COMPOSITION)['elements'] = [{ name: ELEMENT }];
        },
        [{ rule: 'shape', path: `${COMP}.properties.elements[0]` }],
      ],
      [
        'a listed element that does not exist',
        (doc) => {
          propertiesOf(doc, COMPOSITION)['elements'] = [{ name: 'acm.example.Ghost', version: '1.0.0' }];
        },
        [{ rule: 'element-reference', path: `${COMP}.properties.elements[0].name` }],
      ],
      [
        'a listed node template that is not an element',
        (doc) => {
          propertiesOf(doc, COMPOSITION)['elements'] = [{ name: PARTICIPANT, version: '1.0.0' }];
        },
        [{ rule: 'element-reference', path: `${COMP}.properties.elements[0].name` }],
      ],
      [
        'a listed element with another version',
        (doc) => {
          propertiesOf(doc, COMPOSITION)['elements'] = [{ name: ELEMENT, version: '9.9.9' }];
        },
        [{ rule: 'element-reference', path: `${COMP}.properties.elements[0].version` }],
      ],
      [
        'an element listed twice',
        (doc) => {
          propertiesOf(doc, COMPOSITION)['elements'] = [
            { name: ELEMENT, version: '1.0.0' },
            { name: ELEMENT, version: '1.0.0' },
          ];
        },
        [{ rule: 'element-duplicate', path: `${COMP}.properties.elements[1]` }],
      ],

      // element ordering data
      ...(
        [
          ['a negative startPhase', -1],
          ['a fractional startPhase', 1.5],
          ['a textual startPhase', 'first'],
          ['a list as startPhase', [1]],
        ] as const
      ).map(([label, value]): Case => [
        label,
        (doc) => {
          propertiesOf(doc, ELEMENT)['startPhase'] = value;
        },
        [{ rule: 'start-phase', path: `${EL}.properties.startPhase` }],
      ]),
      [
        'a stage that is a number',
        (doc) => {
          propertiesOf(doc, ELEMENT)['stage'] = 1;
        },
        [{ rule: 'stage', path: `${EL}.properties.stage` }],
      ],
      [
        'a stage list with a negative stage',
        (doc) => {
          propertiesOf(doc, ELEMENT)['stage'] = [0, -1];
        },
        [{ rule: 'stage', path: `${EL}.properties.stage[1]` }],
      ],
      [
        'an empty stage list',
        (doc) => {
          propertiesOf(doc, ELEMENT)['stage'] = { prepare: [] };
        },
        [{ rule: 'stage', path: `${EL}.properties.stage.prepare` }],
      ],
      [
        'a stage map whose migrate is not a list',
        (doc) => {
          propertiesOf(doc, ELEMENT)['stage'] = { prepare: [0], migrate: '1' };
        },
        [{ rule: 'stage', path: `${EL}.properties.stage.migrate` }],
      ],
      [
        'dependsOn that is a string',
        (doc) => {
          propertiesOf(doc, ELEMENT)['dependsOn'] = PARTICIPANT;
        },
        [{ rule: 'depends-on', path: `${EL}.properties.dependsOn` }],
      ],
      [
        'dependsOn with a number',
        (doc) => {
          propertiesOf(doc, ELEMENT)['dependsOn'] = [7];
        },
        [{ rule: 'depends-on', path: `${EL}.properties.dependsOn[0]` }],
      ],
      [
        'dependsOn naming a missing node template',
        (doc) => {
          propertiesOf(doc, ELEMENT)['dependsOn'] = ['acm.example.Ghost'];
        },
        [{ rule: 'depends-on', path: `${EL}.properties.dependsOn` }],
      ],
      [
        'dependsOn naming a node template that is not an element',
        (doc) => {
          propertiesOf(doc, ELEMENT)['dependsOn'] = [PARTICIPANT];
        },
        [{ rule: 'depends-on', path: `${EL}.properties.dependsOn` }],
      ],
      [
        'an element depending on itself',
        (doc) => {
          propertiesOf(doc, ELEMENT)['dependsOn'] = [ELEMENT];
        },
        [{ rule: 'depends-on-cycle', path: `${EL}.properties.dependsOn` }],
      ],

      // metadata
      ...(
        [
          ['a zero primeTimeoutMs', 'primeTimeoutMs', 0],
          ['a negative deprimeTimeoutMs', 'deprimeTimeoutMs', -5],
          ['a fractional primeTimeoutMs', 'primeTimeoutMs', 1.5],
          ['a textual deprimeTimeoutMs', 'deprimeTimeoutMs', 'soon'],
        ] as const
      ).map(([label, key, value]): Case => [
        label,
        (doc) => {
          doc.metadata = { [key]: value };
        },
        [{ rule: 'metadata-timeout', path: `metadata.${key}` }],
      ]),
      ...(
        [
          ['a zero maxParallelElements', 0],
          ['a fractional maxParallelElements', 2.5],
          ['a textual maxParallelElements', '3'],
        ] as const
      ).map(([label, value]): Case => [
        label,
        (doc) => {
          doc.metadata = { maxParallelElements: value };
        },
        [{ rule: 'metadata-parallelism', path: 'metadata.maxParallelElements' }],
      ]),
    ];

    it.each(cases)('reports %s', (_label, mutate, expected) => {
      const doc = single();
      mutate(doc);

      expect(rulesAndPaths(doc)).toEqual(expected);
    });
  });

  describe('messages about hostile values', () => {
    it('quotes a huge node template name and version as short excerpts, however often they are reported', () => {
      const doc = single();
      const templates = nodeTemplates(doc);
      const [firstName] = Object.keys(templates);
      const huge = `x${'\u0000'.repeat(10)}${'y'.repeat(200_000)}`;
      templates[huge] = { ...templates[firstName!]!, version: huge };

      const result = validateServiceTemplate(doc, OPTIONS);

      expect(result.ok).toBe(false);
      const text = result.ok ? '' : formatProblems(result.problems);
      expect(text).toContain('characters long, got 200011');
      expect(text.length).toBeLessThan(5_000);
    });
  });

  describe('invalid fixtures', () => {
    it.each<[string, Array<{ rule: string; path: string }>]>([
      [
        'missing-types.yaml',
        [
          { rule: 'parent-not-found', path: 'data_types["acm.invalid.Orphan"].derived_from' },
          { rule: 'type-not-found', path: 'node_types["acm.invalid.ElementType"].properties.plain.type' },
          { rule: 'type-not-found', path: 'node_types["acm.invalid.ElementType"].properties.listed.entry_schema.type' },
          { rule: 'type-not-found', path: 'node_types["acm.invalid.ElementType"].properties.keyed.key_schema.type' },
          { rule: 'type-version-not-found', path: 'node_types["acm.invalid.ElementType"].properties.versioned.type' },
          { rule: 'parent-not-found', path: 'policy_types["acm.invalid.PolicyType"].derived_from' },
          { rule: 'type-not-found', path: `${NT}["acm.invalid.Unknown"].type` },
          { rule: 'type-not-found', path: 'topology_template.policies[0]["acm.invalid.Policy"].type' },
        ],
      ],
      [
        'derived-from-cycle.yaml',
        [
          { rule: 'cycle', path: 'data_types["acm.invalid.DataA"].derived_from' },
          { rule: 'cycle', path: 'node_types["acm.invalid.SelfParent"].derived_from' },
          { rule: 'cycle', path: 'policy_types["acm.invalid.PolicyA"].derived_from' },
        ],
      ],
      [
        'depends-on-cycle.yaml',
        [
          { rule: 'depends-on-cycle', path: `${NT}["acm.invalid.A"].properties.dependsOn` },
          { rule: 'depends-on-cycle', path: `${NT}["acm.invalid.D"].properties.dependsOn` },
        ],
      ],
      [
        'depends-on-later-phase.yaml',
        [{ rule: 'depends-on-later-phase', path: `${NT}["acm.invalid.Early"].properties.dependsOn` }],
      ],
    ])('reports every problem of %s', (file, expected) => {
      expect(rulesAndPaths(fixtureTemplate(`invalid/${file}`))).toEqual(expected);
    });

    it('reports the loop path of each cycle', () => {
      const result = validateServiceTemplate(fixtureTemplate('invalid/derived-from-cycle.yaml'), OPTIONS);

      expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
        'data type acm.invalid.DataA is its own ancestor: acm.invalid.DataA -> acm.invalid.DataB -> acm.invalid.DataA',
        'node type acm.invalid.SelfParent is its own ancestor: acm.invalid.SelfParent -> acm.invalid.SelfParent',
        'policy type acm.invalid.PolicyA is its own ancestor: acm.invalid.PolicyA -> acm.invalid.PolicyC -> acm.invalid.PolicyB -> acm.invalid.PolicyA',
      ]);
    });

    it('reports the loop path of element dependencies', () => {
      const result = validateServiceTemplate(fixtureTemplate('invalid/depends-on-cycle.yaml'), OPTIONS);

      expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
        'elements depend on each other in a loop: acm.invalid.A -> acm.invalid.B -> acm.invalid.C -> acm.invalid.A',
        'elements depend on each other in a loop: acm.invalid.D -> acm.invalid.D',
      ]);
    });

    it('reports all problems of many-problems.yaml in one answer', () => {
      const element = `${NT}["acm.invalid.Element"]`;
      const composition = `${NT}["acm.invalid.Composition"]`;

      expect(rulesAndPaths(fixtureTemplate('invalid/many-problems.yaml'))).toEqual([
        { rule: 'name-format', path: 'name' },
        { rule: 'version-format', path: 'version' },
        { rule: 'version-format', path: `${element}.version` },
        { rule: 'metadata-timeout', path: 'metadata.primeTimeoutMs' },
        { rule: 'metadata-timeout', path: 'metadata.deprimeTimeoutMs' },
        { rule: 'composition-duplicate', path: NT },
        { rule: 'start-phase', path: `${element}.properties.startPhase` },
        { rule: 'stage', path: `${element}.properties.stage.prepare[1]` },
        { rule: 'stage', path: `${element}.properties.stage.migrate` },
        { rule: 'depends-on', path: `${element}.properties.dependsOn` },
        { rule: 'element-reference', path: `${composition}.properties.elements[0].version` },
        { rule: 'element-reference', path: `${composition}.properties.elements[1].name` },
        { rule: 'required', path: `${NT}["acm.invalid.SecondComposition"].properties.elements` },
      ]);
    });
  });
});
