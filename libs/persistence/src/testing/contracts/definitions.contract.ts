import { randomUUID } from 'node:crypto';
import type { CompositionDefinition } from '@acm/domain';
import { definitionOf, elementOf, instanceOf, token } from '../builders';
import { refusalOf } from './contract-support';
import type { ContractContext } from './contract-support';

/**
 * The contract of `DefinitionRepository`,
 * run against every adapter (see `describeStoreContract`).
 */
export function describeDefinitionsContract(context: ContractContext): void {
  const { it, inTransaction, read, storedDefinition, storedInstance } = context;

  describe('DefinitionRepository', () => {
    it('inserts at version 1 and finds by id; an unknown id is null', async () => {
      const definition = await storedDefinition({
        elementStateMap: {
          element: {
            nodeTemplateStateId: randomUUID(),
            participantId: randomUUID(),
            nodeTemplateId: { name: 'element', version: '1.0.0' },
            state: 'COMMISSIONED',
            message: null,
            outProperties: { a: 1 },
          },
        },
      });
      // Row locks belong to transactions: findForUpdate is only promised inside one.
      await inTransaction(async (store) => {
        expect(await store.definitions.find(definition.compositionId)).toEqual({ value: definition, version: 1 });
        expect(await store.definitions.findForUpdate(definition.compositionId)).toEqual({
          value: definition,
          version: 1,
        });
        expect(await store.definitions.find(randomUUID())).toBeNull();
        expect(await store.definitions.findForUpdate(randomUUID())).toBeNull();
      });
    });

    it('updates only at the expected version, bumping it; a stale version is CONCURRENT_MODIFICATION', async () => {
      const definition = await storedDefinition();
      const primed = { ...definition, state: 'PRIMED' as const, lastMsg: definition.lastMsg + 5 };
      await inTransaction((store) => store.definitions.update(primed, 1));
      expect(await read((store) => store.definitions.find(definition.compositionId))).toEqual({
        value: primed,
        version: 2,
      });
      expect(await refusalOf(inTransaction((store) => store.definitions.update(definition, 1)))).toBe(
        'CONCURRENT_MODIFICATION',
      );
      expect(await refusalOf(inTransaction((store) => store.definitions.update(definitionOf(), 1)))).toBe(
        'CONCURRENT_MODIFICATION',
      );
      expect((await read((store) => store.definitions.find(definition.compositionId)))?.value).toEqual(primed);
    });

    it('deletes only at the expected version', async () => {
      const definition = await storedDefinition();
      expect(await refusalOf(inTransaction((store) => store.definitions.delete(definition.compositionId, 2)))).toBe(
        'CONCURRENT_MODIFICATION',
      );
      await inTransaction((store) => store.definitions.delete(definition.compositionId, 1));
      expect(await read((store) => store.definitions.find(definition.compositionId))).toBeNull();
      expect(await refusalOf(inTransaction((store) => store.definitions.delete(definition.compositionId, 1)))).toBe(
        'CONCURRENT_MODIFICATION',
      );
    });

    it('refuses to delete a definition an instance still uses', async () => {
      const instance = await storedInstance();
      await expect(inTransaction((store) => store.definitions.delete(instance.compositionId, 1))).rejects.toBeDefined();
      expect(await read((store) => store.definitions.find(instance.compositionId))).not.toBeNull();
    });

    it('lists by name, version and participant, ordered by name, version, id, and pages', async () => {
      const prefix = `d${token()}`;
      const participantId = randomUUID();
      const served = {
        element: {
          nodeTemplateStateId: randomUUID(),
          participantId,
          nodeTemplateId: { name: 'element', version: '1.0.0' },
          state: 'PRIMED' as const,
          message: null,
          outProperties: {},
        },
      };
      const b2 = await storedDefinition({ name: `${prefix}b`, version: '2.0.0', elementStateMap: served });
      const a1 = await storedDefinition({ name: `${prefix}a`, version: '1.0.0' });
      const b1 = await storedDefinition({ name: `${prefix}b`, version: '1.0.0', elementStateMap: served });
      await read(async (store) => {
        const names = (definitions: CompositionDefinition[]): string[] =>
          definitions.filter((d) => d.name.startsWith(prefix)).map((d) => d.compositionId);
        expect(names(await store.definitions.list({}))).toEqual([a1.compositionId, b1.compositionId, b2.compositionId]);
        expect(await store.definitions.list({ name: `${prefix}b` })).toEqual([b1, b2]);
        expect(await store.definitions.list({ name: `${prefix}b`, version: '2.0.0' })).toEqual([b2]);
        expect(await store.definitions.list({ participantId })).toEqual([b1, b2]);
        expect(await store.definitions.list({ name: `${prefix}b`, page: 1, size: 1 })).toEqual([b2]);
        expect(await store.definitions.list({ name: `${prefix}b`, page: 2, size: 1 })).toEqual([]);
        // Paging applies only when both page and size are given.
        expect(await store.definitions.list({ name: `${prefix}b`, size: 1 })).toEqual([b1, b2]);
      });
    });

    it('keeps a definition in its project, and lists definitions and instances by project', async () => {
      const [teamA, teamB] = [`a-${token()}`, `b-${token()}`];
      const a = await storedDefinition({ project: teamA });
      const b = await storedDefinition({ project: teamB });
      const instanceOfA = instanceOf(a.compositionId, [elementOf(randomUUID())]);
      const instanceOfB = instanceOf(b.compositionId, [elementOf(randomUUID())]);
      await inTransaction(async (store) => {
        await store.instances.insert(instanceOfA);
        await store.instances.insert(instanceOfB);
      });
      await inTransaction(async (store) => {
        const found = await store.definitions.findForUpdate(a.compositionId);
        const { project: _project, ...withoutProject } = found!.value;
        await store.definitions.update({ ...withoutProject, lastMsg: found!.value.lastMsg + 1 }, found!.version);
      });
      await read(async (store) => {
        const ids = (list: ReadonlyArray<{ compositionId: string }>) => list.map((entry) => entry.compositionId);
        expect(ids(await store.definitions.list({ projects: [teamA] }))).toEqual([a.compositionId]);
        expect(ids(await store.definitions.list({ projects: [teamA, teamB] })).sort()).toEqual(
          [a.compositionId, b.compositionId].sort(),
        );
        expect(await store.definitions.list({ projects: [] })).toEqual([]);
        expect(ids(await store.instances.list({ projects: [teamB] }))).toEqual([b.compositionId]);
        expect((await store.instances.list({ projects: [teamB] })).map((i) => i.instanceId)).toEqual([
          instanceOfB.instanceId,
        ]);
      });
    });

    it('findForUpdate serialises read-modify-write transactions', async () => {
      const definition = await storedDefinition();
      const writers = 5;
      await Promise.all(
        Array.from({ length: writers }, () =>
          inTransaction(async (store) => {
            const found = await store.definitions.findForUpdate(definition.compositionId);
            await store.events.list(definition.compositionId, 1);
            await store.definitions.update({ ...found!.value, lastMsg: found!.value.lastMsg + 1 }, found!.version);
          }),
        ),
      );
      expect(await read((store) => store.definitions.find(definition.compositionId))).toEqual({
        value: { ...definition, lastMsg: definition.lastMsg + writers },
        version: 1 + writers,
      });
    });
  });
}
