import type { Participant, ParticipantRepository } from '@acm/domain';
import type { Database, Session } from './database';
import { compareText } from './database';

export class InMemoryParticipantRepository implements ParticipantRepository {
  constructor(private readonly session: Session) {}

  private get db(): Database {
    return this.session.db;
  }

  /** Supported types come back ordered by type name, as the PostgreSQL mapper orders them. */
  private view(participant: Participant): Participant {
    const types = Object.values(participant.participantSupportedElementTypes).sort((a, b) =>
      a.typeName.localeCompare(b.typeName),
    );
    return { ...participant, participantSupportedElementTypes: Object.fromEntries(types.map((t) => [t.id, t])) };
  }

  list(): Promise<Participant[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'participant')
        .map(([, participant]) => this.view(participant))
        .sort((a, b) => compareText(a.participantId, b.participantId)),
    );
  }

  find(participantId: string): Promise<Participant | null> {
    return this.session.run((tx) => {
      const participant = this.db.get(tx, 'participant', participantId);
      return participant === null ? null : this.view(participant);
    });
  }

  save(participant: Participant): Promise<void> {
    return this.session.run((tx) => this.db.put(tx, 'participant', participant.participantId, participant));
  }

  deleteReplica(participantId: string, replicaId: string): Promise<void> {
    return this.session.run((tx) => {
      const participant = this.db.get(tx, 'participant', participantId);
      if (participant?.replicas[replicaId] !== undefined) {
        const { [replicaId]: _removed, ...replicas } = participant.replicas;
        this.db.put(tx, 'participant', participantId, { ...participant, replicas });
      }
    });
  }

  touchReplica(participantId: string, replicaId: string, now: number): Promise<boolean> {
    return this.session.run((tx) => {
      const participant = this.db.get(tx, 'participant', participantId);
      const replica = participant?.replicas[replicaId];
      if (participant === null || replica === undefined) {
        return false;
      }
      this.db.put(tx, 'participant', participantId, {
        ...participant,
        replicas: { ...participant.replicas, [replicaId]: { ...replica, participantState: 'ON_LINE', lastMsg: now } },
      });
      return true;
    });
  }

  markSilentReplicasOffline(cutoff: number): Promise<string[]> {
    return this.session.run((tx) => {
      const changed: string[] = [];
      for (const [participantId, participant] of this.db.scan(tx, 'participant')) {
        const silent = Object.values(participant.replicas).filter(
          (replica) => replica.participantState === 'ON_LINE' && replica.lastMsg < cutoff,
        );
        if (silent.length === 0) {
          continue;
        }
        const replicas = { ...participant.replicas };
        for (const replica of silent) {
          replicas[replica.replicaId] = { ...replica, participantState: 'OFF_LINE' };
        }
        this.db.put(tx, 'participant', participantId, { ...participant, replicas });
        changed.push(participantId);
      }
      return changed;
    });
  }
}
