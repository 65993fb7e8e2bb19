import { randomUUID } from 'node:crypto';
import type { Participant } from '@acm/domain';
import { participantOf } from '../builders';
import type { ContractContext } from './contract-support';

/**
 * The contract of `ParticipantRepository`,
 * run against every adapter (see `describeStoreContract`).
 */
export function describeParticipantsContract(context: ContractContext): void {
  const { it, inTransaction, read } = context;

  describe('ParticipantRepository', () => {
    it('saves, finds and lists participants in id order; an unknown one is null', async () => {
      const one = participantOf();
      const two = participantOf();
      await inTransaction(async (store) => {
        await store.participants.save(one);
        await store.participants.save(two);
      });
      await read(async (store) => {
        expect(await store.participants.find(one.participantId)).toEqual(one);
        expect(await store.participants.find(randomUUID())).toBeNull();
        const listed = (await store.participants.list()).map((participant) => participant.participantId);
        const ours = listed.filter((id) => id === one.participantId || id === two.participantId);
        expect(ours).toEqual([one.participantId, two.participantId].sort());
        expect([...listed].sort()).toEqual(listed);
      });
    });

    it('replaces supported types and replicas on save; types come back ordered by name', async () => {
      const participant = participantOf();
      await read((store) => store.participants.save(participant));
      const [zType, aType, replica] = [randomUUID(), randomUUID(), randomUUID()];
      const replaced: Participant = {
        participantId: participant.participantId,
        participantSupportedElementTypes: {
          [zType]: { id: zType, typeName: 'z.Element', typeVersion: '1.0.0' },
          [aType]: { id: aType, typeName: 'a.Element', typeVersion: '2.0.0' },
        },
        replicas: { [replica]: { replicaId: replica, participantState: 'OFF_LINE', lastMsg: 1_764_000_000_500 } },
      };
      await read((store) => store.participants.save(replaced));
      const found = await read((store) => store.participants.find(participant.participantId));
      expect(found).toEqual(replaced);
      expect(Object.keys(found!.participantSupportedElementTypes)).toEqual([aType, zType]);
    });

    it('deletes a replica and touches a known one (ON_LINE, now); an unknown one is false', async () => {
      const [kept, gone] = [randomUUID(), randomUUID()];
      const participant = participantOf({
        replicas: {
          [kept]: { replicaId: kept, participantState: 'OFF_LINE', lastMsg: 1_764_000_000_000 },
          [gone]: { replicaId: gone, participantState: 'ON_LINE', lastMsg: 1_764_000_000_000 },
        },
      });
      await read((store) => store.participants.save(participant));
      await inTransaction(async (store) => {
        await store.participants.deleteReplica(participant.participantId, gone);
        expect(await store.participants.touchReplica(participant.participantId, kept, 1_764_000_009_000)).toBe(true);
        expect(await store.participants.touchReplica(participant.participantId, gone, 1_764_000_009_000)).toBe(false);
        expect(await store.participants.touchReplica(randomUUID(), kept, 1_764_000_009_000)).toBe(false);
      });
      expect((await read((store) => store.participants.find(participant.participantId)))?.replicas).toEqual({
        [kept]: { replicaId: kept, participantState: 'ON_LINE', lastMsg: 1_764_000_009_000 },
      });
    });

    it('marks replicas silent since before the cutoff OFF_LINE and names their participants once', async () => {
      const [silentA, silentB, alive] = [randomUUID(), randomUUID(), randomUUID()];
      const silent = participantOf({
        replicas: {
          [silentA]: { replicaId: silentA, participantState: 'ON_LINE', lastMsg: 1_000 },
          [silentB]: { replicaId: silentB, participantState: 'ON_LINE', lastMsg: 1_500 },
        },
      });
      const lively = participantOf({
        replicas: { [alive]: { replicaId: alive, participantState: 'ON_LINE', lastMsg: 5_000 } },
      });
      await read(async (store) => {
        await store.participants.save(silent);
        await store.participants.save(lively);
      });
      const changed = await inTransaction((store) => store.participants.markSilentReplicasOffline(2_000));
      expect(changed.filter((id) => id === silent.participantId)).toEqual([silent.participantId]);
      expect(changed).not.toContain(lively.participantId);
      await read(async (store) => {
        const found = await store.participants.find(silent.participantId);
        expect(Object.values(found!.replicas).map((replica) => replica.participantState)).toEqual([
          'OFF_LINE',
          'OFF_LINE',
        ]);
        expect((await store.participants.find(lively.participantId))?.replicas[alive]?.participantState).toBe(
          'ON_LINE',
        );
        expect(await store.participants.markSilentReplicasOffline(2_000)).not.toContain(silent.participantId);
      });
    });
  });
}
