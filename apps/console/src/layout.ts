import type { ElkNode } from 'elkjs/lib/elk.bundled.js';
import ELK from 'elkjs/lib/elk.bundled.js';
import type { Graph } from './model';

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 56;

export interface PlacedNode {
  readonly id: string;
  readonly x: number;
  readonly y: number;
}

export interface PlacedEdge {
  readonly from: string;
  readonly to: string;
  readonly points: ReadonlyArray<{ x: number; y: number }>;
}

export interface PhaseColumn {
  readonly phase: number;
  readonly x: number;
  readonly width: number;
}

export interface Layout {
  readonly width: number;
  readonly height: number;
  readonly nodes: ReadonlyMap<string, PlacedNode>;
  readonly edges: readonly PlacedEdge[];
  readonly columns: readonly PhaseColumn[];
}

const elk = new ELK();

/**
 * ELK's layered layout, left to right, with one partition per start phase: phases become columns in order,
 * and dependsOn edges (dependency → dependent) are routed between the boxes.
 */
export async function layOut(graph: Graph): Promise<Layout> {
  const input: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.partitioning.activate': 'true',
      // Elements without edges are components of their own; partitions order layers only within one component.
      'elk.separateConnectedComponents': 'false',
      'elk.spacing.nodeNode': '24',
      'elk.layered.spacing.nodeNodeBetweenLayers': '64',
      'elk.padding': '[top=36,left=16,bottom=16,right=16]',
      'elk.edgeRouting': 'ORTHOGONAL',
    },
    children: graph.nodes.map((node) => ({
      id: node.id,
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      layoutOptions: { 'elk.partitioning.partition': String(node.startPhase) },
    })),
    edges: graph.edges.map((edge, index) => ({ id: `e${index}`, sources: [edge.from], targets: [edge.to] })),
  };
  const laid = await elk.layout(input);
  const nodes = new Map<string, PlacedNode>();
  for (const child of laid.children ?? []) {
    nodes.set(child.id, { id: child.id, x: child.x ?? 0, y: child.y ?? 0 });
  }
  const edges = (laid.edges ?? []).map((edge, index) => {
    const section = edge.sections?.[0];
    const points = section ? [section.startPoint, ...(section.bendPoints ?? []), section.endPoint] : [];
    const source = graph.edges[index]!;
    return { from: source.from, to: source.to, points };
  });
  const columns = new Map<number, { min: number; max: number }>();
  for (const node of graph.nodes) {
    const placed = nodes.get(node.id);
    if (placed === undefined) {
      continue;
    }
    const column = columns.get(node.startPhase) ?? { min: placed.x, max: placed.x + NODE_WIDTH };
    columns.set(node.startPhase, {
      min: Math.min(column.min, placed.x),
      max: Math.max(column.max, placed.x + NODE_WIDTH),
    });
  }
  return {
    width: laid.width ?? 0,
    height: laid.height ?? 0,
    nodes,
    edges,
    columns: [...columns.entries()]
      .sort(([a], [b]) => a - b)
      .map(([phase, { min, max }]) => ({ phase, x: min - 8, width: max - min + 16 })),
  };
}
