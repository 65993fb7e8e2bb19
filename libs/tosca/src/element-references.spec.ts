import { ACM_COMPOSITION_TYPE, ACM_ELEMENT_TYPE } from './composition';
import { compositionGraph } from './composition-graph';
import { describeReference, readReferences } from './element-references';
import { checkInstanceReferences } from './instance-references';
import type { NodeTemplate, ServiceTemplate } from './service-template';
import { fixtureTemplate } from './testing/tosca-fixtures';
import { validateServiceTemplate } from './validate-service-template';

const OPTIONS = { elementTypeName: ACM_ELEMENT_TYPE, compositionTypeName: ACM_COMPOSITION_TYPE };
const DB = 'acm.example.refs.Database';
const WEB = 'acm.example.refs.Web';
const NT = 'topology_template.node_templates';
const at = (name: string): string => `${NT}["${name}"]`;

function example(): ServiceTemplate {
  return structuredClone(fixtureTemplate('examples/sim-references.yaml'));
}

function template(doc: ServiceTemplate, name: string): NodeTemplate {
  const found = doc.topology_template?.node_templates?.[name];
  if (found === undefined) {
    throw new Error(`fixture without node template ${name}`);
  }
  return found;
}

function problemsOf(doc: ServiceTemplate): Array<{ rule: string; path: string; message: string }> {
  const result = validateServiceTemplate(doc, OPTIONS);
  return result.ok ? [] : result.problems.map(({ rule, path, message }) => ({ rule, path, message }));
}

describe('references between elements (get_attribute, get_property)', () => {
  it('make the referenced element an implicit dependency, typed properties accepting the function', () => {
    const result = validateServiceTemplate(example(), OPTIONS);

    expect(result.ok ? result.definition.elements.map((element) => [element.name, element.dependsOn]) : result).toEqual(
      [
        [DB, []],
        [WEB, [DB]],
      ],
    );
  });

  it('draw the implicit dependency as an edge of the composition graph', () => {
    const result = validateServiceTemplate(example(), OPTIONS);

    expect(result.ok ? compositionGraph(result.definition).edges : result).toEqual([{ from: DB, to: WEB }]);
  });

  it('name the sensitive properties of each element, for the history to mask what references read', () => {
    const result = validateServiceTemplate(fixtureTemplate('examples/sim-sensitive.yaml'), OPTIONS);

    expect(result.ok ? result.definition.elements.map((element) => element.sensitive) : result).toEqual([
      ['baseUrl', 'password'],
    ]);
  });

  it('find references nested in mappings and lists, with their paths', () => {
    const found = readReferences(
      { a: [{ get_attribute: ['db', 'url', 0, 'host'] }], b: { c: { get_property: ['SELF', 'x'] } }, d: 'plain' },
      ['p'],
    );

    expect(found.problems).toEqual([]);
    expect(found.value).toEqual([
      { fn: 'get_attribute', element: 'db', name: 'url', path: [0, 'host'], at: ['p', 'a', 0] },
      { fn: 'get_property', element: 'SELF', name: 'x', path: [], at: ['p', 'b', 'c'] },
    ]);
  });

  it('read a mapping with another key beside the function name as a plain value', () => {
    expect(readReferences({ get_attribute: ['db', 'url'], other: 1 }, []).value).toEqual([]);
  });

  it('allow get_property on SELF (its own property) without making an edge', () => {
    const doc = example();
    template(doc, DB).properties = { provider: 'x', baseUrl: { get_property: ['SELF', 'provider'] } };
    const result = validateServiceTemplate(doc, OPTIONS);

    expect(result.ok ? result.definition.elements.find((element) => element.name === DB)?.dependsOn : result).toEqual(
      [],
    );
  });

  const baseUrl = `${at(WEB)}.properties.baseUrl`;
  it.each<[string, unknown, { rule: string; path: string; message: string }]>([
    [
      'arguments that are not a list',
      { get_attribute: 'db.url' },
      { rule: 'reference', path: `${baseUrl}.get_attribute`, message: 'get_attribute must be a list' },
    ],
    [
      'fewer than two arguments',
      { get_attribute: [DB] },
      { rule: 'reference', path: `${baseUrl}.get_attribute`, message: 'needs at least an element and a name' },
    ],
    [
      'an element that is not a string',
      { get_property: [7, 'url'] },
      { rule: 'reference', path: `${baseUrl}.get_property[0]`, message: 'must name an element node template' },
    ],
    [
      'a name that is not a string',
      { get_attribute: [DB, 3] },
      { rule: 'reference', path: `${baseUrl}.get_attribute[1]`, message: 'must name a property or attribute' },
    ],
    [
      'a negative list index in the path',
      { get_attribute: [DB, 'hosts', -1] },
      { rule: 'reference', path: `${baseUrl}.get_attribute[2]`, message: 'non-negative integers' },
    ],
    [
      'an unknown element',
      { get_attribute: ['acm.example.refs.Ghost', 'url'] },
      {
        rule: 'reference',
        path: `${baseUrl}.get_attribute[0]`,
        message: 'refers to acm.example.refs.Ghost, which is not an element node template',
      },
    ],
    [
      'get_attribute on SELF',
      { get_attribute: ['SELF', 'url'] },
      { rule: 'reference', path: `${baseUrl}.get_attribute[0]`, message: 'cannot read element' },
    ],
    [
      'get_attribute on its own name',
      { get_attribute: [WEB, 'url'] },
      { rule: 'reference', path: `${baseUrl}.get_attribute[0]`, message: 'cannot read element' },
    ],
  ])('refuse %s, naming the field and the rule', (_label, value, expected) => {
    const doc = example();
    template(doc, WEB).properties = { startPhase: 0, baseUrl: value };
    const [found, ...others] = problemsOf(doc);

    expect(others).toEqual([]);
    expect(found).toMatchObject({ rule: expected.rule, path: expected.path });
    expect(found?.message).toContain(expected.message);
  });

  it('refuse a reference to an element of a later start phase', () => {
    const doc = example();
    template(doc, DB).properties = { startPhase: 1 };

    expect(problemsOf(doc).map(({ rule, path }) => ({ rule, path }))).toEqual([
      { rule: 'depends-on-later-phase', path: `${at(WEB)}.properties.baseUrl.get_attribute[0]` },
      {
        rule: 'depends-on-later-phase',
        path: `${at(WEB)}.properties.configurationEntities.database.provider.get_property[0]`,
      },
      {
        rule: 'depends-on-later-phase',
        path: `${at(WEB)}.properties.configurationEntities.database.url.get_attribute[0]`,
      },
    ]);
    expect(problemsOf(doc)[0]?.message).toContain('refers to (get_attribute [acm.example.refs.Database, url])');
  });

  it('refuse a cycle through references with its path, where its first edge is written', () => {
    const doc = example();
    template(doc, DB).properties = { startPhase: 0, baseUrl: { get_property: [WEB, 'baseUrl'] } };

    expect(problemsOf(doc)).toEqual([
      {
        rule: 'depends-on-cycle',
        path: `${at(DB)}.properties.baseUrl.get_property[0]`,
        message: `elements depend on each other in a loop: ${DB} -> ${WEB} -> ${DB}`,
      },
    ]);
  });

  it('list every problem of the template at once', () => {
    const doc = example();
    template(doc, WEB).properties = { baseUrl: { get_attribute: ['Ghost', 'url'] }, x: { get_property: [] } };

    expect(problemsOf(doc).map(({ rule, path }) => ({ rule, path }))).toEqual([
      { rule: 'reference', path: `${at(WEB)}.properties.x.get_property` },
      { rule: 'reference', path: `${at(WEB)}.properties.baseUrl.get_attribute[0]` },
    ]);
  });
});

describe('references in instance element properties', () => {
  const definition = (): Parameters<typeof checkInstanceReferences>[0] => {
    const result = validateServiceTemplate(example(), OPTIONS);
    if (!result.ok) {
      throw new Error('the example must be valid');
    }
    return result.definition.elements;
  };
  const element = (id: string, name: string, properties: Record<string, unknown> = {}) => ({ id, name, properties });

  it('accept a reference to another element of the instance', () => {
    expect(
      checkInstanceReferences(definition(), [
        element('d', DB),
        element('w', WEB, { baseUrl: { get_attribute: [DB, 'url', 'host'] } }),
      ]),
    ).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, { rule: string; path: string; text: string }]>([
    [
      'an element that is not in the instance',
      {},
      { baseUrl: { get_attribute: ['Ghost', 'url'] } },
      { rule: 'reference', path: 'elements.w.properties.baseUrl.get_attribute[0]', text: 'Ghost' },
    ],
    [
      'bad syntax',
      {},
      { baseUrl: { get_property: [DB] } },
      { rule: 'reference', path: 'elements.w.properties.baseUrl.get_property', text: 'at least' },
    ],
    [
      'a cycle with the definition',
      { baseUrl: { get_attribute: [WEB, 'url'] } },
      {},
      {
        rule: 'depends-on-cycle',
        path: 'elements.d.properties.baseUrl.get_attribute[0]',
        text: `${DB} -> ${WEB} -> ${DB}`,
      },
    ],
  ])('refuse %s at elements.<id>.properties.<path>', (_label, dbProperties, webProperties, expected) => {
    const problems = checkInstanceReferences(definition(), [
      element('d', DB, dbProperties),
      element('w', WEB, webProperties),
    ]);

    expect(problems.map(({ rule, path }) => ({ rule, path }))).toEqual([{ rule: expected.rule, path: expected.path }]);
    expect(problems[0]?.message).toContain(expected.text);
  });

  it('refuse a reference to an element of a later start phase', () => {
    const later = definition().map((info) => (info.name === WEB ? { ...info, startPhase: 1 } : info));
    const problems = checkInstanceReferences(later, [
      element('d', DB, { baseUrl: { get_attribute: [WEB, 'url'] } }),
      element('w', WEB),
    ]);

    expect(problems.map(({ rule }) => rule)).toEqual(['depends-on-later-phase']);
  });
});

describe('references to a member of a group', () => {
  it('read an integer second as the member index, and describe it as written', () => {
    const read = readReferences({ url: { get_attribute: ['Worker', 2, 'url', 'host'] } }, ['properties']);

    expect(read.problems).toEqual([]);
    expect(read.value).toEqual([
      { fn: 'get_attribute', element: 'Worker', member: 2, name: 'url', path: ['host'], at: ['properties', 'url'] },
    ]);
    expect(describeReference(read.value[0]!)).toBe('get_attribute [Worker, 2, url, host]');
  });

  it('refuse a member index with no name after it, naming the field', () => {
    const read = readReferences({ url: { get_property: ['Worker', 1] } }, ['properties']);

    expect(read.problems.map(({ path, message }) => [path, message])).toEqual([
      [
        'properties.url.get_property[1]',
        'get_property must name a property or attribute after the member index 1, got nothing',
      ],
    ]);
  });
});
