import type { Participant, ParticipantRepository } from '@acm/domain';
import type { EntityManager } from 'typeorm';
import {
  ParticipantEntity,
  ParticipantReplicaEntity,
  ParticipantSupportedElementEntity,
} from '../entities/participant.entity';
import { participantToDomain, participantToPersistence } from '../mappers/participant.mapper';

export class TypeOrmParticipantRepository implements ParticipantRepository {
  constructor(private readonly manager: EntityManager) {}

  async list(): Promise<Participant[]> {
    const rows = await this.manager.find(ParticipantEntity, {
      relations: { supportedElementTypes: true, replicas: true },
      order: { participantId: 'ASC' },
    });
    return rows.map(participantToDomain);
  }

  async find(participantId: string): Promise<Participant | null> {
    const row = await this.manager.findOne(ParticipantEntity, {
      where: { participantId },
      relations: { supportedElementTypes: true, replicas: true },
    });
    return row ? participantToDomain(row) : null;
  }

  async save(participant: Participant): Promise<void> {
    const row = participantToPersistence(participant);
    await this.manager.upsert(ParticipantEntity, { participantId: row.participantId }, ['participantId']);
    await this.manager.query(`DELETE FROM participant_supported_element WHERE participant_id = $1`, [
      participant.participantId,
    ]);
    if (row.supportedElementTypes.length > 0) {
      await this.manager.insert(ParticipantSupportedElementEntity, row.supportedElementTypes);
    }
    await this.manager.query(
      `DELETE FROM participant_replica WHERE participant_id = $1 AND NOT (replica_id = ANY($2::uuid[]))`,
      [participant.participantId, row.replicas.map((replica) => replica.replicaId)],
    );
    if (row.replicas.length > 0) {
      await this.manager.upsert(ParticipantReplicaEntity, row.replicas, ['replicaId']);
    }
  }

  async deleteReplica(participantId: string, replicaId: string): Promise<void> {
    await this.manager.delete(ParticipantReplicaEntity, { participantId, replicaId });
  }

  async touchReplica(participantId: string, replicaId: string, now: number): Promise<boolean> {
    const result: [unknown[], number] = await this.manager.query(
      `UPDATE participant_replica SET last_msg = $3, participant_state = 'ON_LINE'
       WHERE replica_id = $2 AND participant_id = $1`,
      [participantId, replicaId, new Date(now)],
    );
    return result[1] === 1;
  }

  async markSilentReplicasOffline(cutoff: number): Promise<string[]> {
    // The driver answers an UPDATE with [returned rows, affected count].
    const [rows]: [Array<{ participant_id: string }>, number] = await this.manager.query(
      `UPDATE participant_replica SET participant_state = 'OFF_LINE'
       WHERE participant_state = 'ON_LINE' AND last_msg < $1 RETURNING participant_id`,
      [new Date(cutoff)],
    );
    return [...new Set(rows.map((row) => row.participant_id))];
  }
}
