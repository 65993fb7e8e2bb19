import type { Participant, ParticipantState } from '@acm/domain';
import {
  ParticipantEntity,
  ParticipantReplicaEntity,
  ParticipantSupportedElementEntity,
} from '../entities/participant.entity';

export function participantToDomain(row: ParticipantEntity): Participant {
  return {
    participantId: row.participantId,
    participantSupportedElementTypes: Object.fromEntries(
      [...row.supportedElementTypes]
        .sort((a, b) => a.typeName.localeCompare(b.typeName))
        .map((type) => [type.id, { id: type.id, typeName: type.typeName, typeVersion: type.typeVersion }]),
    ),
    replicas: Object.fromEntries(
      row.replicas.map((replica) => [
        replica.replicaId,
        {
          replicaId: replica.replicaId,
          participantState: replica.participantState as ParticipantState,
          lastMsg: replica.lastMsg.getTime(),
        },
      ]),
    ),
  };
}

export function participantToPersistence(participant: Participant): ParticipantEntity {
  const row = new ParticipantEntity();
  row.participantId = participant.participantId;
  row.supportedElementTypes = Object.values(participant.participantSupportedElementTypes).map((type) => {
    const typeRow = new ParticipantSupportedElementEntity();
    typeRow.id = type.id;
    typeRow.participantId = participant.participantId;
    typeRow.typeName = type.typeName;
    typeRow.typeVersion = type.typeVersion;
    return typeRow;
  });
  row.replicas = Object.values(participant.replicas).map((replica) => {
    const replicaRow = new ParticipantReplicaEntity();
    replicaRow.replicaId = replica.replicaId;
    replicaRow.participantId = participant.participantId;
    replicaRow.participantState = replica.participantState;
    replicaRow.lastMsg = new Date(replica.lastMsg);
    return replicaRow;
  });
  return row;
}
