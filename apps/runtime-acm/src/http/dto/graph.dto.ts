import type * as tosca from '@acm/tosca';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * An element of a graph: a node template, or (instance graphs) an element with its state. The OpenAPI description
 * of the TOSCA library's `GraphNode` (same name, same meaning: it `implements` it, so the two cannot drift).
 */
export class GraphNode implements tosca.GraphNode {
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

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Instance graphs only: the child instance of a nested-composition element, once it has one',
  })
  nestedInstanceId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Instance graphs with depth > 0 only: the nested-composition element whose child instance holds this element',
  })
  nestedIn?: string;

  @ApiPropertyOptional({
    description: 'Beyond ONAP: the health condition of a gated element (metadata.health_condition)',
    example: 'ready == true',
  })
  gate?: string;

  @ApiPropertyOptional({
    description: 'Instance graphs only, while the element’s health gate waits: the waiting reason',
    example: 'waiting for Api: condition ready == true (observed ready=false)',
  })
  gateState?: string;

  @ApiPropertyOptional({
    description:
      'Beyond ONAP, instance graphs only, once a participant observed an element of the instance: the element’s ' +
      'observed health (Unknown when never observed)',
    enum: ['Healthy', 'Degraded', 'Missing', 'Unknown'],
    example: 'Missing',
  })
  health?: string;
}

/** A dependency: `from` must be deployed before `to`. */
export class GraphEdge implements tosca.GraphEdge {
  @ApiProperty()
  from!: string;

  @ApiProperty()
  to!: string;
}

/** Beyond ONAP: a composition's elements by start phase with their dependsOn edges. */
export class CompositionGraph implements tosca.CompositionGraph {
  @ApiProperty()
  name!: string;

  @ApiProperty({ type: [GraphNode] })
  nodes!: GraphNode[];

  @ApiProperty({ type: [GraphEdge] })
  edges!: GraphEdge[];
}
