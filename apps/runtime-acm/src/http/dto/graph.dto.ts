import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** An element of a graph: a node template, or (instance graphs) an element with its state. */
export class GraphNode {
  @ApiProperty()
  id!: string;

  @ApiProperty({ description: 'Node template name' })
  name!: string;

  @ApiProperty()
  version!: string;

  @ApiProperty()
  type!: string;

  @ApiProperty({ type: 'integer' })
  startPhase!: number;

  @ApiPropertyOptional({ description: 'Instance graphs only: deployState/lockState', example: 'DEPLOYED/LOCKED' })
  state?: string;
}

/** A dependency: `from` must be deployed before `to`. */
export class GraphEdge {
  @ApiProperty()
  from!: string;

  @ApiProperty()
  to!: string;
}

/** Beyond ONAP: a composition's elements by start phase with their dependsOn edges. */
export class CompositionGraph {
  @ApiProperty()
  name!: string;

  @ApiProperty({ type: [GraphNode] })
  nodes!: GraphNode[];

  @ApiProperty({ type: [GraphEdge] })
  edges!: GraphEdge[];
}
