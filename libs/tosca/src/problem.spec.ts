import { formatPath, formatProblems, problem } from './problem';

describe(formatPath.name, () => {
  it.each<[Array<string | number>, string]>([
    [[], ''],
    [['metadata'], 'metadata'],
    [['metadata', 'primeTimeoutMs'], 'metadata.primeTimeoutMs'],
    [['topology_template', 'node_templates', 'x', 'version'], 'topology_template.node_templates.x.version'],
    [['topology_template', 'node_templates', 'a.b-c', 'version'], 'topology_template.node_templates["a.b-c"].version'],
    [['data_types', 'say "hi"'], 'data_types["say \\"hi\\""]'],
    [['topology_template', 'policies', 0, 'p.q', 'type'], 'topology_template.policies[0]["p.q"].type'],
    [['1abc'], '["1abc"]'],
  ])('renders %j as %s', (segments, expected) => {
    expect(formatPath(segments)).toBe(expected);
  });
});

describe(formatProblems.name, () => {
  it('puts one problem per line, naming the whole document when the path is empty', () => {
    const text = formatProblems([
      problem([], 'shape', 'The body is a list'),
      problem(['metadata', 'primeTimeoutMs'], 'metadata-timeout', 'must be positive'),
    ]);

    expect(text).toBe('(document): The body is a list\nmetadata.primeTimeoutMs: must be positive');
  });
});
