import parseDot from 'dotparser';
import type { Graph, Stmt } from 'dotparser';
import { ACM_COMPOSITION_TYPE, ACM_ELEMENT_TYPE } from './composition';
import type { CompositionGraph } from './composition-graph';
import { compositionGraph, toDot, toMermaid, withNestedGraph } from './composition-graph';
import type { CompositionTemplateInfo } from './service-template';
import { fixtureTemplate } from './testing/tosca-fixtures';
import { validateServiceTemplate } from './validate-service-template';

const OPTIONS = { elementTypeName: ACM_ELEMENT_TYPE, compositionTypeName: ACM_COMPOSITION_TYPE };

function infoOf(file: string): CompositionTemplateInfo {
  const result = validateServiceTemplate(fixtureTemplate(`examples/${file}`), OPTIONS);
  if (!result.ok) {
    throw new Error(`invalid fixture ${file}`);
  }
  return result.definition;
}

const short = (name: string): string => name.replace('acm.example.deps.', '').replace('acm.example.phases.', '');

/** The DOT statements of a parsed graph, flattened through its subgraphs, with each subgraph's id. */
function statements(
  children: readonly Stmt[],
  cluster?: string | number,
): Array<{ stmt: Stmt; cluster?: string | number }> {
  return children.flatMap((stmt) =>
    stmt.type === 'subgraph'
      ? statements(stmt.children, stmt.id)
      : [{ stmt, ...(cluster !== undefined ? { cluster } : {}) }],
  );
}

describe(compositionGraph.name, () => {
  it('has one node per element and an edge from each dependency to its dependent', () => {
    const graph = compositionGraph(infoOf('sim-dependencies.yaml'));
    expect(graph.nodes.map((node) => short(node.name))).toEqual(['Database', 'Backend', 'Frontend', 'Monitor']);
    expect(graph.edges.map((edge) => `${short(edge.from)}->${short(edge.to)}`).sort()).toEqual([
      'Backend->Frontend',
      'Database->Backend',
      'Database->Frontend',
    ]);
  });

  it('names the health condition of a gated element, and an instance’s waiting gate', () => {
    const info = infoOf('sim-dependencies.yaml');
    const [first, ...others] = info.elements;
    const gated: CompositionTemplateInfo = {
      ...info,
      elements: [{ ...first!, gateMetadata: { health_condition: 'ready == true', health_bake: 5 } }, ...others],
    };
    const nodes = compositionGraph(gated).nodes;
    expect(nodes.map((node) => node.gate ?? null)).toEqual(['ready == true', ...nodes.slice(1).map(() => null)]);
    const waiting = 'waiting for Database: condition ready == true (observed ready=false)';
    const instanceNodes = compositionGraph(gated, [
      { id: 'e-1', name: first!.name, state: 'DEPLOYING/NONE', gateState: waiting },
    ]).nodes;
    expect(instanceNodes).toEqual([expect.objectContaining({ id: 'e-1', gate: 'ready == true', gateState: waiting })]);
  });

  it('takes an instance’s elements as nodes, by id, with their state', () => {
    const graph = compositionGraph(infoOf('sim-dependencies.yaml'), [
      { id: 'e1', name: 'acm.example.deps.Database', state: 'DEPLOYED/LOCKED' },
      { id: 'e2', name: 'acm.example.deps.Backend', state: 'DEPLOYING/LOCKED' },
    ]);
    expect(graph.nodes.map((node) => [node.id, node.state])).toEqual([
      ['e1', 'DEPLOYED/LOCKED'],
      ['e2', 'DEPLOYING/LOCKED'],
    ]);
    expect(graph.edges).toEqual([{ from: 'e1', to: 'e2' }]);
  });

  it('shows each element’s observed health on its node and in the DOT and Mermaid labels', () => {
    const graph = compositionGraph(infoOf('sim-dependencies.yaml'), [
      { id: 'e1', name: 'acm.example.deps.Database', state: 'DEPLOYED/LOCKED', health: 'Missing' },
      { id: 'e2', name: 'acm.example.deps.Backend', state: 'DEPLOYED/LOCKED', health: 'Healthy' },
      { id: 'e3', name: 'acm.example.deps.Frontend', state: 'DEPLOYED/LOCKED' },
    ]);
    expect(graph.nodes.map((node) => [node.id, node.health ?? null])).toEqual([
      ['e1', 'Missing'],
      ['e2', 'Healthy'],
      ['e3', null],
    ]);
    expect(toDot(graph)).toContain('"e1" [label="acm.example.deps.Database\\nDEPLOYED/LOCKED Missing"];');
    expect(toDot(graph)).toContain('"e3" [label="acm.example.deps.Frontend\\nDEPLOYED/LOCKED"];');
    expect(toMermaid(graph)).toContain('["acm.example.deps.Backend<br/>DEPLOYED/LOCKED Healthy"]');
  });
});

describe(withNestedGraph.name, () => {
  const node = (id: string, name: string, nestedIn?: string): CompositionGraph['nodes'][number] => ({
    id,
    name,
    version: '1.0.0',
    type: 't',
    startPhase: 0,
    ...(nestedIn === undefined ? {} : { nestedIn }),
  });
  const parent: CompositionGraph = {
    name: 'Site',
    nodes: [{ ...node('e1', 'Slice'), nestedInstanceId: 'c1' }, node('e2', 'Policies')],
    edges: [{ from: 'e1', to: 'e2' }],
  };
  const child: CompositionGraph = {
    name: 'SliceComposition',
    nodes: [node('n1', 'Network'), node('g1', 'Gateway'), node('x1', 'Gateway/Inner', 'g1')],
    edges: [{ from: 'n1', to: 'g1' }],
  };

  it('adds the child’s nodes prefixed with the nested element’s name, naming it, with the child’s edges', () => {
    const folded = withNestedGraph(parent, 'e1', child);
    expect(folded.name).toBe('Site');
    expect(folded.nodes.map((each) => [each.id, each.name, each.nestedIn])).toEqual([
      ['e1', 'Slice', undefined],
      ['e2', 'Policies', undefined],
      ['n1', 'Slice/Network', 'e1'],
      ['g1', 'Slice/Gateway', 'e1'],
      // A grandchild keeps the element of its own level.
      ['x1', 'Slice/Gateway/Inner', 'g1'],
    ]);
    expect(folded.edges).toEqual([
      { from: 'e1', to: 'e2' },
      { from: 'n1', to: 'g1' },
    ]);
  });
});

describe(toDot.name, () => {
  it('is DOT a parser reads back: one cluster per start phase, every node and edge', () => {
    const graph = compositionGraph(infoOf('sim-three-phase.yaml'));
    const [parsed] = parseDot(toDot(graph)) as [Graph];
    expect(parsed.type).toBe('digraph');
    const nodes = statements(parsed.children).flatMap(({ stmt, cluster }) =>
      stmt.type === 'node_stmt' ? [`${String(cluster)}:${short(String(stmt.node_id.id))}`] : [],
    );
    expect(nodes).toEqual([
      'cluster_phase_0:Phase0A',
      'cluster_phase_0:Phase0B',
      'cluster_phase_1:Phase1A',
      'cluster_phase_1:Phase1B',
      'cluster_phase_2:Phase2A',
      'cluster_phase_2:Phase2B',
    ]);
  });

  it('escapes names and states so that no input breaks the document', () => {
    const graph = {
      name: 'a "quoted" \\ name',
      nodes: [{ id: 'x"y', name: 'x"y', version: '1.0.0', type: 't', startPhase: 0, state: 'A\nB' }],
      edges: [{ from: 'x"y', to: 'x"y' }],
    };
    const [parsed] = parseDot(toDot(graph)) as [Graph];
    // DOT keeps escapes other than \" as written; Graphviz renders "\\" in a label as one backslash.
    expect(parsed.id).toBe('a "quoted" \\\\ name');
    const edges = statements(parsed.children).filter(({ stmt }) => stmt.type === 'edge_stmt');
    expect(edges).toHaveLength(1);
  });
});

describe(toMermaid.name, () => {
  it('is a flowchart with a subgraph per start phase and the dependency edges', () => {
    const text = toMermaid(compositionGraph(infoOf('sim-dependencies.yaml')));
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('flowchart LR');
    // Every line is one of the four statement forms the renderer emits.
    const forms = [
      /^ {2}subgraph phase\d+\["[^"\n]*"\]$/,
      /^ {4}n\d+\["[^"\n]*"\]$/,
      /^ {2}end$/,
      /^ {2}n\d+ --> n\d+$/,
    ];
    expect(lines.slice(1).filter((line) => !forms.some((form) => form.test(line)))).toEqual([]);
    expect(lines.filter((line) => line.includes('-->'))).toHaveLength(3);
    expect(lines.filter((line) => line.trim() === 'end')).toHaveLength(1);
  });

  it('keeps quotes and line breaks of labels inside the label', () => {
    const text = toMermaid({
      name: 'g',
      nodes: [{ id: 'a', name: 'say "hi" #1', version: '1', type: 't', startPhase: 0, state: 'X\nY' }],
      edges: [],
    });
    expect(text).toContain('n0["say #quot;hi#quot; #35;1<br/>X<br/>Y"]');
  });
});
