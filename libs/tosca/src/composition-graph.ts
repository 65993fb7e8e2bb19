import type { CompositionTemplateInfo, ElementDefinitionInfo } from './service-template';

/** One element of a composition graph: a node template, or an instance element with its live state. */
export interface GraphNode {
  readonly id: string;
  /** Node template name. */
  readonly name: string;
  readonly version: string;
  readonly type: string;
  readonly startPhase: number;
  /** Instance graphs only: `deployState/lockState` of the element. */
  readonly state?: string;
  /** Instance graphs only: the child instance of a nested-composition element, once it has one. */
  readonly nestedInstanceId?: string;
  /**
   * Instance graphs expanded with `depth`: the id of the nested-composition element whose child instance this
   * element belongs to (its name is then prefixed with that element's name and a `/`).
   */
  readonly nestedIn?: string;
  /** The element's health condition (`metadata.health_condition`), when it has a gate. */
  readonly gate?: string;
  /** Instance graphs only, while the element's gate waits: the waiting reason (what it observed). */
  readonly gateState?: string;
  /**
   * Instance graphs only, once a participant observed an element of the instance: the element's observed health
   * (`Healthy`, `Degraded`, `Missing`, or `Unknown` when never observed).
   */
  readonly health?: string;
}

/** `from` must be done before `to` starts (deploy direction); `to` lists `from` in its `dependsOn`. */
export interface GraphEdge {
  readonly from: string;
  readonly to: string;
}

export interface CompositionGraph {
  readonly name: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

/** The deepest `depth` an instance graph expands nested compositions to. */
export const MAX_GRAPH_DEPTH = 10;

/**
 * An instance graph with a nested child's graph folded in: the child's nodes keep their ids (element ids are
 * unique across instances) and edges, their names are prefixed with the nested element's name, and each names
 * the element it is nested in.
 */
export function withNestedGraph(graph: CompositionGraph, elementId: string, child: CompositionGraph): CompositionGraph {
  const element = graph.nodes.find((node) => node.id === elementId);
  const prefix = element === undefined ? child.name : element.name;
  return {
    name: graph.name,
    nodes: [
      ...graph.nodes,
      ...child.nodes.map((node) => ({
        ...node,
        name: `${prefix}/${node.name}`,
        nestedIn: node.nestedIn ?? elementId,
      })),
    ],
    edges: [...graph.edges, ...child.edges],
  };
}

export const GRAPH_FORMATS = ['json', 'dot', 'mermaid'] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

/** What an instance contributes to its graph: each element's template name and current state. */
export interface GraphInstanceElement {
  readonly id: string;
  readonly name: string;
  readonly state: string;
  readonly nestedInstanceId?: string;
  /** While its health gate waits: the waiting reason. */
  readonly gateState?: string;
  /** Its observed health, once the instance has observations. */
  readonly health?: string;
}

/** The health condition a node template's metadata gives its element, when it gives a string one. */
function gateOf(element: ElementDefinitionInfo | undefined): { gate?: string } {
  const condition = element?.gateMetadata?.['health_condition'];
  return typeof condition === 'string' ? { gate: condition } : {};
}

/**
 * The graph of a composition (`tofu graph`): its element node templates grouped by start phase, with an edge
 * from each dependency to its dependent. Given an instance's elements, the nodes are those elements (by id)
 * with their live state.
 */
export function compositionGraph(
  info: CompositionTemplateInfo,
  instanceElements?: readonly GraphInstanceElement[],
): CompositionGraph {
  const templates = new Map(info.elements.map((element) => [element.name, element]));
  const listed = new Set(info.listedElements.map((element) => element.name));
  const members = info.elements.filter((element) => listed.size === 0 || listed.has(element.name));
  const nodes: GraphNode[] =
    instanceElements === undefined
      ? members.map((element) => ({
          id: element.name,
          name: element.name,
          version: element.version,
          type: element.type,
          startPhase: element.startPhase,
          ...gateOf(element),
        }))
      : instanceElements.map((element) => {
          const template = templates.get(element.name);
          return {
            id: element.id,
            name: element.name,
            version: template?.version ?? '',
            type: template?.type ?? '',
            startPhase: template?.startPhase ?? 0,
            state: element.state,
            ...(element.nestedInstanceId === undefined ? {} : { nestedInstanceId: element.nestedInstanceId }),
            ...gateOf(template),
            ...(element.gateState === undefined ? {} : { gateState: element.gateState }),
            ...(element.health === undefined ? {} : { health: element.health }),
          };
        });
  const idsByName = new Map<string, string[]>();
  for (const node of nodes) {
    idsByName.set(node.name, [...(idsByName.get(node.name) ?? []), node.id]);
  }
  const edges: GraphEdge[] = nodes.flatMap((node) =>
    (templates.get(node.name)?.dependsOn ?? []).flatMap((dependency) =>
      (idsByName.get(dependency) ?? []).map((from) => ({ from, to: node.id })),
    ),
  );
  return { name: info.compositionNodeTemplate.name, nodes, edges };
}

function phasesOf(graph: CompositionGraph): number[] {
  return [...new Set(graph.nodes.map((node) => node.startPhase))].sort((a, b) => a - b);
}

/** The node's name, then its live state and its observed health (instance graphs). */
function labelOf(node: GraphNode): string {
  const live = [node.state, node.health].filter((part) => part !== undefined).join(' ');
  return live === '' ? node.name : `${node.name}\n${live}`;
}

/** A DOT double-quoted string: backslashes and quotes escaped, line breaks as DOT's `\n`. */
function dotString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}

/** Graphviz DOT: one cluster per start phase (ranked left to right), dependency edges between elements. */
export function toDot(graph: CompositionGraph): string {
  const lines = [`digraph ${dotString(graph.name)} {`, '  rankdir=LR;', '  node [shape=box];'];
  for (const phase of phasesOf(graph)) {
    lines.push(`  subgraph ${dotString(`cluster_phase_${phase}`)} {`, `    label=${dotString(`startPhase ${phase}`)};`);
    for (const node of graph.nodes.filter((candidate) => candidate.startPhase === phase)) {
      lines.push(`    ${dotString(node.id)} [label=${dotString(labelOf(node))}];`);
    }
    lines.push('  }');
  }
  for (const edge of graph.edges) {
    lines.push(`  ${dotString(edge.from)} -> ${dotString(edge.to)};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Mermaid node ids allow letters, digits and underscores only; the label keeps the real name. */
function mermaidId(index: number): string {
  return `n${index}`;
}

/** A Mermaid quoted label: quotes as the `#quot;` entity, line breaks as `<br/>`, `#` as an entity too. */
function mermaidLabel(text: string): string {
  return `"${text.replace(/#/g, '#35;').replace(/"/g, '#quot;').replace(/\r?\n/g, '<br/>')}"`;
}

/** A Mermaid flowchart: one subgraph per start phase, dependency edges between elements. */
export function toMermaid(graph: CompositionGraph): string {
  const ids = new Map(graph.nodes.map((node, index) => [node.id, mermaidId(index)]));
  const lines = ['flowchart LR'];
  for (const phase of phasesOf(graph)) {
    lines.push(`  subgraph phase${phase}[${mermaidLabel(`startPhase ${phase}`)}]`);
    for (const node of graph.nodes.filter((candidate) => candidate.startPhase === phase)) {
      lines.push(`    ${ids.get(node.id)}[${mermaidLabel(labelOf(node))}]`);
    }
    lines.push('  end');
  }
  for (const edge of graph.edges) {
    lines.push(`  ${ids.get(edge.from)} --> ${ids.get(edge.to)}`);
  }
  return `${lines.join('\n')}\n`;
}
