import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Rows are read and written per instance by id; the foreign key lives in the migration. */
@Entity({ name: 'automation_composition_element' })
export class AutomationCompositionElementEntity {
  @PrimaryColumn({ name: 'element_id', type: 'uuid' })
  elementId!: string;

  @Column({ name: 'instance_id', type: 'uuid' })
  instanceId!: string;

  @Column({ type: 'integer' })
  position!: number;

  @Column({ name: 'definition_name', type: 'text' })
  definitionName!: string;

  @Column({ name: 'definition_version', type: 'text' })
  definitionVersion!: string;

  @Column({ name: 'participant_id', type: 'uuid', nullable: true })
  participantId!: string | null;

  @Column({ name: 'deploy_state', type: 'text' })
  deployState!: string;

  @Column({ name: 'lock_state', type: 'text' })
  lockState!: string;

  @Column({ name: 'sub_state', type: 'text' })
  subState!: string;

  @Column({ name: 'migration_state', type: 'text' })
  migrationState!: string;

  @Column({ type: 'integer', nullable: true })
  stage!: number | null;

  @Column({ name: 'operational_state', type: 'text', nullable: true })
  operationalState!: string | null;

  @Column({ name: 'use_state', type: 'text', nullable: true })
  useState!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text', nullable: true })
  message!: string | null;

  @Column({ type: 'jsonb' })
  properties!: Record<string, unknown>;

  @Column({ name: 'out_properties', type: 'jsonb' })
  outProperties!: Record<string, unknown>;
}
