import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'automation_composition' })
export class AutomationCompositionEntity {
  @PrimaryColumn({ name: 'instance_id', type: 'uuid' })
  instanceId!: string;

  @Column({ name: 'composition_id', type: 'uuid' })
  compositionId!: string;

  @Column({ name: 'composition_target_id', type: 'uuid', nullable: true })
  compositionTargetId!: string | null;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  version!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ name: 'derived_from', type: 'text', nullable: true })
  derivedFrom!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  metadata!: Record<string, unknown> | null;

  @Column({ type: 'boolean', nullable: true })
  precheck!: boolean | null;

  @Column({ name: 'deploy_state', type: 'text' })
  deployState!: string;

  @Column({ name: 'lock_state', type: 'text' })
  lockState!: string;

  @Column({ name: 'sub_state', type: 'text' })
  subState!: string;

  @Column({ name: 'state_change_result', type: 'text' })
  stateChangeResult!: string;

  @Column({ type: 'integer', nullable: true })
  phase!: number | null;

  @Column({ name: 'last_msg', type: 'timestamptz' })
  lastMsg!: Date;

  @Column({ name: 'revision_id', type: 'uuid' })
  revisionId!: string;

  @Column({ name: 'row_version', type: 'integer' })
  rowVersion!: number;
}
