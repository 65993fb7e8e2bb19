import { resolveElementProperties } from './validate-properties';

const ELEMENT_PATH = ['elements', '709c62b3-8918-41b9-a747-d21eb79c6c20', 'properties'];
const PREFIX = 'elements["709c62b3-8918-41b9-a747-d21eb79c6c20"].properties';

const DATA_TYPES = {
  'acme.datatypes.Endpoint': {
    derived_from: 'tosca.datatypes.Root',
    properties: {
      host: { type: 'string', required: true },
      port: { type: 'integer', default: 443, constraints: [{ in_range: [1, 65535] }] },
    },
  },
  'acme.datatypes.SecureEndpoint': {
    derived_from: 'acme.datatypes.Endpoint',
    properties: { tls: { type: 'boolean', default: true } },
  },
  'acme.datatypes.Hostname': {
    derived_from: 'string',
    constraints: [{ pattern: '[a-z][a-z0-9.-]*' }],
  },
};

/** A one-element template whose leaf node type declares `properties`; the node template sets `templateValues`. */
function templateWith(properties: Record<string, unknown>, templateValues: Record<string, unknown> = {}): unknown {
  return {
    tosca_definitions_version: 'tosca_simple_yaml_1_3',
    data_types: DATA_TYPES,
    node_types: {
      'org.onap.policy.clamp.acm.AutomationCompositionElement': {
        version: '1.0.1',
        derived_from: 'tosca.nodetypes.Root',
        properties: {
          startPhase: { type: 'integer', required: false, default: 0, constraints: [{ greater_or_equal: 0 }] },
        },
      },
      'acme.nodes.Middle': {
        version: '1.0.0',
        derived_from: 'org.onap.policy.clamp.acm.AutomationCompositionElement',
        properties: {
          retries: { type: 'integer', required: false, default: 3 },
          timeout: { type: 'scalar-unit.time', required: false, default: '30 s' },
        },
      },
      'acme.nodes.Leaf': {
        version: '1.0.0',
        derived_from: 'acme.nodes.Middle',
        properties: { retries: { type: 'integer', required: false, default: 5 }, ...properties },
      },
    },
    topology_template: {
      node_templates: {
        'acme.element': {
          version: '1.0.0',
          type: 'acme.nodes.Leaf',
          type_version: '1.0.0',
          properties: templateValues,
        },
      },
    },
  };
}

function resolve(template: unknown, properties: Record<string, unknown>) {
  return resolveElementProperties(template, { nodeTemplateName: 'acme.element', properties, path: ELEMENT_PATH });
}

function problemsOf(schema: Record<string, unknown>, value: unknown): string[] {
  return resolve(templateWith({ p: { required: false, ...schema } }), { p: value }).problems.map(
    (found) => `${found.path}: ${found.message}`,
  );
}

describe('resolveElementProperties, one row per TOSCA type', () => {
  const rows: Array<[string, Record<string, unknown>, unknown, unknown, string]> = [
    ['string', { type: 'string' }, 'https://example.org', 42, 'expected string, got 42'],
    ['integer', { type: 'integer' }, 7, 7.5, 'expected integer, got 7.5'],
    ['integer (no string spelling)', { type: 'integer' }, -3, '7', 'expected integer, got "7"'],
    ['float', { type: 'float' }, 0.25, 'fast', 'expected float, got "fast"'],
    ['boolean', { type: 'boolean' }, false, 'true', 'expected boolean, got "true"'],
    ['timestamp', { type: 'timestamp' }, '2026-12-01T10:00:00Z', '1 December', 'expected timestamp'],
    ['timestamp (date only)', { type: 'timestamp' }, '2026-12-01', '2026-13-45', 'expected timestamp'],
    ['version', { type: 'version' }, '1.2.3.beta-4', 'v1', 'expected version'],
    ['list', { type: 'list' }, [1, 'two'], 'one,two', 'expected list, got "one,two"'],
    ['map', { type: 'map' }, { a: 1 }, [1], 'expected map, got [1]'],
    [
      'list with entry_schema',
      { type: 'list', entry_schema: { type: 'integer' } },
      [1, 2],
      [1, 'x'],
      '.p[1]: expected integer',
    ],
    [
      'map with entry_schema',
      { type: 'map', entry_schema: { type: 'string' } },
      { a: 'b' },
      { a: 1 },
      '.p.a: expected string',
    ],
    ['scalar-unit.size', { type: 'scalar-unit.size' }, '512 MiB', '512 parsecs', 'expected scalar-unit.size'],
    ['scalar-unit.time', { type: 'scalar-unit.time' }, '250 ms', 250, 'expected scalar-unit.time'],
    ['scalar-unit.frequency', { type: 'scalar-unit.frequency' }, '2.4 GHz', '2.4', 'expected scalar-unit.frequency'],
    ['scalar-unit.bitrate', { type: 'scalar-unit.bitrate' }, '10 Mbps', '10 M', 'expected scalar-unit.bitrate'],
    ['range', { type: 'range' }, [1, 'UNBOUNDED'], [5, 1], 'expected range'],
    [
      'data type',
      { type: 'acme.datatypes.Endpoint' },
      { host: 'a', port: 80 },
      { host: 1 },
      '.p.host: expected string',
    ],
    [
      'data type (unknown field)',
      { type: 'acme.datatypes.Endpoint' },
      { host: 'a' },
      { host: 'a', hots: 'b' },
      '.p.hots: unknown property',
    ],
    [
      'data type (required field)',
      { type: 'acme.datatypes.Endpoint' },
      { host: 'a' },
      { port: 1 },
      '.p.host: required by data type',
    ],
    [
      'data type (not a mapping)',
      { type: 'acme.datatypes.Endpoint' },
      { host: 'a' },
      'a:1',
      'expected acme.datatypes.Endpoint (a mapping)',
    ],
    ['data type derived from string', { type: 'acme.datatypes.Hostname' }, 'db.local', 'DB!', 'pattern'],
    [
      'list of data types',
      { type: 'list', entry_schema: { type: 'acme.datatypes.SecureEndpoint' } },
      [{ host: 'a', tls: false }],
      [{ host: 'a', tls: 'no' }],
      '.p[0].tls: expected boolean',
    ],
  ];

  it.each(rows)('%s: accepts a good value', (_name, schema, good) => {
    expect(problemsOf(schema, good)).toEqual([]);
  });

  it.each(rows)('%s: refuses a bad value, naming the path and the rule', (_name, schema, _good, bad, expected) => {
    const problems = problemsOf(schema, bad);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`${PREFIX}.p`);
    expect(problems[0]).toContain(expected);
  });
});

describe('resolveElementProperties, one row per TOSCA constraint', () => {
  const rows: Array<[string, Record<string, unknown>, unknown, unknown, string]> = [
    [
      'equal',
      { type: 'string', constraints: [{ equal: 'on' }] },
      'on',
      'off',
      'must be equal to "on" (equal), got "off"',
    ],
    ['greater_than', { type: 'integer', constraints: [{ greater_than: 1 }] }, 2, 1, 'greater than 1 (greater_than)'],
    [
      'greater_or_equal',
      { type: 'integer', constraints: [{ greater_or_equal: 1 }] },
      1,
      0,
      '(greater_or_equal), got 0',
    ],
    ['less_than', { type: 'float', constraints: [{ less_than: 1.5 }] }, 1.4, 1.5, 'less than 1.5 (less_than)'],
    ['less_or_equal', { type: 'integer', constraints: [{ less_or_equal: 9 }] }, 9, 10, '(less_or_equal), got 10'],
    ['in_range', { type: 'integer', constraints: [{ in_range: [100, 599] }] }, 599, 600, 'in the range [100,599]'],
    ['in_range UNBOUNDED', { type: 'integer', constraints: [{ in_range: [1, 'UNBOUNDED'] }] }, 10 ** 9, 0, 'in_range'],
    [
      'valid_values',
      { type: 'string', constraints: [{ valid_values: ['GET', 'POST'] }] },
      'GET',
      'PATCH',
      'one of ["GET","POST"]',
    ],
    ['length (string)', { type: 'string', constraints: [{ length: 3 }] }, 'abc', 'ab', 'of length 3 (length)'],
    ['length (list)', { type: 'list', constraints: [{ length: 2 }] }, [1, 2], [1], 'of length 2 (length)'],
    ['min_length', { type: 'string', constraints: [{ min_length: 2 }] }, 'ab', 'a', 'of length 2 or more'],
    ['max_length', { type: 'map', constraints: [{ max_length: 1 }] }, { a: 1 }, { a: 1, b: 2 }, 'of length 1 or less'],
    ['pattern (whole value)', { type: 'string', constraints: [{ pattern: '[a-z]+' }] }, 'abc', 'abc1', '(pattern)'],
    [
      'scalar-unit compared in base units',
      { type: 'scalar-unit.time', constraints: [{ less_or_equal: '1 m' }] },
      '59 s',
      '61 s',
      '(less_or_equal)',
    ],
    [
      'timestamp compared in time',
      { type: 'timestamp', constraints: [{ greater_than: '2026-01-01' }] },
      '2026-06-01',
      '2025-12-31',
      '(greater_than)',
    ],
    [
      'version compared by component',
      { type: 'version', constraints: [{ greater_or_equal: '1.10.0' }] },
      '1.10.1',
      '1.9.9',
      '(greater_or_equal)',
    ],
    [
      'entry_schema constraint',
      { type: 'list', entry_schema: { type: 'integer', constraints: [{ greater_than: 0 }] } },
      [1],
      [0],
      '.p[0]: must be greater than 0',
    ],
  ];

  it.each(rows)('%s: accepts a value that meets it', (_name, schema, good) => {
    expect(problemsOf(schema, good)).toEqual([]);
  });

  it.each(rows)('%s: refuses a value that breaks it', (_name, schema, _good, bad, expected) => {
    const problems = problemsOf(schema, bad);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(expected);
  });

  it('ignores an operator TOSCA does not define, as ONAP does (ONAP writes greater-or-equal)', () => {
    expect(problemsOf({ type: 'integer', constraints: [{ 'greater-or-equal': 0 }] }, -1)).toEqual([]);
  });
});

describe('resolveElementProperties, defaults, required and unknown properties', () => {
  it('applies defaults through two levels of derived_from and inside a data type', () => {
    const template = templateWith({ endpoint: { type: 'acme.datatypes.SecureEndpoint', required: true } });
    const resolved = resolve(template, { endpoint: { host: 'db' } });
    expect(resolved.problems).toEqual([]);
    expect(resolved.properties).toEqual({
      startPhase: 0,
      retries: 5,
      timeout: '30 s',
      endpoint: { host: 'db', port: 443, tls: true },
    });
  });

  it('lets the node template value win over the type default, and the instance value over both', () => {
    const template = templateWith({ mode: { type: 'string', default: 'fast' } }, { retries: 9, mode: 'safe' });
    const fromTemplate = resolve(template, {});
    expect(fromTemplate.problems).toEqual([]);
    // Template values travel with the composition, so only what the template does not set is stored.
    expect(fromTemplate.properties).toEqual({ startPhase: 0, timeout: '30 s' });
    expect(resolve(template, { mode: 'slow' }).properties).toEqual({ startPhase: 0, timeout: '30 s', mode: 'slow' });
  });

  it('reports a required property that nothing sets', () => {
    const problems = resolve(templateWith({ baseUrl: { type: 'string', required: true } }), {}).problems;
    expect(problems).toEqual([
      {
        path: `${PREFIX}.baseUrl`,
        rule: 'property-required',
        message:
          'required by node type acme.nodes.Leaf, set neither by the instance nor by the node template, and no default',
      },
    ]);
  });

  it('treats a property without "required" as required, as TOSCA does', () => {
    const problems = resolve(templateWith({ baseUrl: { type: 'string' } }), {}).problems;
    expect(problems.map((found) => found.rule)).toEqual(['property-required']);
  });

  it('accepts a required property the node template sets', () => {
    const template = templateWith({ baseUrl: { type: 'string', required: true } }, { baseUrl: 'https://x' });
    expect(resolve(template, {}).problems).toEqual([]);
  });

  it('reports a bad node template value at the node template path', () => {
    const template = templateWith({ baseUrl: { type: 'string', required: true } }, { baseUrl: 42 });
    expect(resolve(template, {}).problems.map((found) => found.path)).toEqual([
      'topology_template.node_templates["acme.element"].properties.baseUrl',
    ]);
  });

  it('reports an unknown instance property and keeps it in what is stored', () => {
    const resolved = resolve(templateWith({}), { colour: 'blue' });
    expect(resolved.problems).toEqual([
      {
        path: `${PREFIX}.colour`,
        rule: 'property-unknown',
        message: 'unknown property: node type acme.nodes.Leaf and its parents do not define it',
      },
    ]);
    expect(resolved.properties['colour']).toBe('blue');
  });

  it('lists every problem of a request at once', () => {
    const template = templateWith({
      baseUrl: { type: 'string' },
      method: { type: 'string', constraints: [{ valid_values: ['GET'] }] },
    });
    const problems = resolve(template, { baseUrl: 42, method: 'PUT', retries: 'x', extra: 1 }).problems;
    expect(problems.map((found) => `${found.path}: ${found.rule}`)).toEqual([
      `${PREFIX}.retries: property-type`,
      `${PREFIX}.baseUrl: property-type`,
      `${PREFIX}.method: property-constraint`,
      `${PREFIX}.extra: property-unknown`,
    ]);
    expect(problems[1]?.message).toBe('expected string, got 42');
  });
});
