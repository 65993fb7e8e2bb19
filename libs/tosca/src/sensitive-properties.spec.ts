import type { ServiceTemplate } from './service-template';
import { sensitivePropertiesOf } from './sensitive-properties';

const template: ServiceTemplate = {
  tosca_definitions_version: 'tosca_simple_yaml_1_3',
  data_types: {
    'acm.Credentials': {
      properties: {
        user: { type: 'string' },
        password: { type: 'string', metadata: { sensitive: 'true' } },
      },
    },
    'acm.TokenCredentials': {
      derived_from: 'acm.Credentials',
      properties: { token: { type: 'string', metadata: { sensitive: true } } },
    },
  },
  node_types: {
    'acm.Base': {
      properties: { apiKey: { type: 'string', metadata: { sensitive: true } } },
    },
    'acm.Element': {
      derived_from: 'acm.Base',
      properties: {
        baseUrl: { type: 'string', metadata: { sensitive: 'true' } },
        plain: { type: 'string', metadata: { sensitive: 'false' } },
        login: { type: 'acm.Credentials' },
        tokens: { type: 'list', entry_schema: { type: 'acm.TokenCredentials' } },
      },
    },
    'acm.Loop': { derived_from: 'acm.Loop', properties: { secret: { type: 'string', metadata: { sensitive: true } } } },
  },
  topology_template: {
    node_templates: {
      element: { type: 'acm.Element' },
      looping: { type: 'acm.Loop' },
      untyped: { type: 'acm.Unknown' },
    },
  },
};

describe(sensitivePropertiesOf.name, () => {
  it.each<[string, string[], string[]]>([
    ['element', ['baseUrl', 'apiKey'], ['password', 'token']],
    ['looping', ['secret'], []],
    ['untyped', [], []],
    ['absent', [], []],
  ])('finds the sensitive properties of %s', (elementName, topLevel, nested) => {
    const found = sensitivePropertiesOf(template, elementName);
    expect([...found.topLevel].sort()).toEqual([...topLevel].sort());
    expect([...found.nested].sort()).toEqual([...nested].sort());
  });
});
