import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { NodeTemplateState } from '@acm/domain';

@Entity({ name: 'composition_definition' })
export class CompositionDefinitionEntity {
  @PrimaryColumn({ name: 'composition_id', type: 'uuid' })
  compositionId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  version!: string;

  @Column({ name: 'service_template', type: 'jsonb' })
  serviceTemplate!: Record<string, unknown>;

  @Column({ type: 'text' })
  state!: string;

  @Column({ name: 'state_change_result', type: 'text' })
  stateChangeResult!: string;

  @Column({ name: 'last_msg', type: 'timestamptz' })
  lastMsg!: Date;

  @Column({ name: 'element_state_map', type: 'jsonb' })
  elementStateMap!: Record<string, NodeTemplateState>;

  @Column({ name: 'revision_id', type: 'uuid' })
  revisionId!: string;

  @Column({ type: 'text' })
  project!: string;

  @Column({ name: 'row_version', type: 'integer' })
  rowVersion!: number;
}
