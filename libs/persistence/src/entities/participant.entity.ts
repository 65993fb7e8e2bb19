import { Column, Entity, JoinColumn, ManyToOne, OneToMany, PrimaryColumn } from 'typeorm';

@Entity({ name: 'participant' })
export class ParticipantEntity {
  @PrimaryColumn({ name: 'participant_id', type: 'uuid' })
  participantId!: string;

  @OneToMany(() => ParticipantSupportedElementEntity, (type) => type.participant, { cascade: true })
  supportedElementTypes!: ParticipantSupportedElementEntity[];

  @OneToMany(() => ParticipantReplicaEntity, (replica) => replica.participant, { cascade: true })
  replicas!: ParticipantReplicaEntity[];
}

@Entity({ name: 'participant_supported_element' })
export class ParticipantSupportedElementEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'participant_id', type: 'uuid' })
  participantId!: string;

  @ManyToOne(() => ParticipantEntity, (participant) => participant.supportedElementTypes, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'participant_id' })
  participant?: ParticipantEntity;

  @Column({ name: 'type_name', type: 'text' })
  typeName!: string;

  @Column({ name: 'type_version', type: 'text' })
  typeVersion!: string;
}

@Entity({ name: 'participant_replica' })
export class ParticipantReplicaEntity {
  @PrimaryColumn({ name: 'replica_id', type: 'uuid' })
  replicaId!: string;

  @Column({ name: 'participant_id', type: 'uuid' })
  participantId!: string;

  @ManyToOne(() => ParticipantEntity, (participant) => participant.replicas, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'participant_id' })
  participant?: ParticipantEntity;

  @Column({ name: 'participant_state', type: 'text' })
  participantState!: string;

  @Column({ name: 'last_msg', type: 'timestamptz' })
  lastMsg!: Date;
}
