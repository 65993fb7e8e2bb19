import { randomUUID } from 'node:crypto';
import type { AutomationComposition, InstanceElement, Versioned } from '@acm/domain';
import { elementOf, instanceOf, token } from '../builders';
import { gate, refusalOf } from './contract-support';
import type { ContractContext } from './contract-support';

/**
 * The contract of `InstanceRepository`,
 * run against every adapter (see `describeStoreContract`).
 */
export function describeInstancesContract(context: ContractContext): void {
  const { it, inTransaction, read, storedDefinition, storedInstance } = context;

  describe('InstanceRepository', () => {
    it('inserts at version 1 and reads it back with its elements in order', async () => {
      const participantId = randomUUID();
      const elements = [elementOf(participantId), elementOf(null, { stage: 2 }), elementOf(participantId)];
      const instance = await storedInstance(elements, {
        description: 'three elements',
        metadata: { owner: 'contract' },
        precheck: false,
      });
      await inTransaction(async (store) => {
        const found = await store.instances.find(instance.instanceId);
        expect(found).toEqual({ value: instance, version: 1 });
        expect(Object.keys(found!.value.elements)).toEqual(elements.map((element) => element.id));
        expect(await store.instances.findForUpdate(instance.instanceId)).toEqual({ value: instance, version: 1 });
        expect(await store.instances.find(randomUUID())).toBeNull();
        expect(await store.instances.findForUpdate(randomUUID())).toBeNull();
      });
    });

    it('refuses a taken name and version, and an element id in use, with ALREADY_EXISTS', async () => {
      const instance = await storedInstance();
      const sameName = instanceOf(instance.compositionId, [elementOf(null)], {
        name: instance.name,
        version: instance.version,
      });
      expect(await refusalOf(inTransaction((store) => store.instances.insert(sameName)))).toBe('ALREADY_EXISTS');
      const sameElement = instanceOf(instance.compositionId, Object.values(instance.elements));
      expect(await refusalOf(inTransaction((store) => store.instances.insert(sameElement)))).toBe('ALREADY_EXISTS');
      await read(async (store) => {
        expect(await store.instances.find(sameName.instanceId)).toBeNull();
        expect(await store.instances.find(sameElement.instanceId)).toBeNull();
      });
    });

    it('refuses an instance of an unknown definition', async () => {
      const instance = instanceOf(randomUUID(), [elementOf(null)]);
      await expect(inTransaction((store) => store.instances.insert(instance))).rejects.toBeDefined();
      expect(await read((store) => store.instances.find(instance.instanceId))).toBeNull();
    });

    it('tells taken names, element ids in use and how many instances use a definition', async () => {
      const instance = await storedInstance([elementOf(null), elementOf(null)]);
      const target = await storedDefinition();
      const migrating = await storedInstance([elementOf(null)], { compositionTargetId: target.compositionId });
      const [first, second] = Object.keys(instance.elements);
      const unused = randomUUID();
      await read(async (store) => {
        expect(await store.instances.isNameVersionTaken(instance.name, instance.version)).toBe(true);
        expect(await store.instances.isNameVersionTaken(instance.name, '9.9.9')).toBe(false);
        expect(await store.instances.isNameVersionTaken(instance.name, instance.version, instance.instanceId)).toBe(
          false,
        );
        expect((await store.instances.elementIdsInUse([first!, unused, second!])).sort()).toEqual(
          [first!, second!].sort(),
        );
        expect(await store.instances.elementIdsInUse([first!, unused], instance.instanceId)).toEqual([]);
        expect(await store.instances.elementIdsInUse([])).toEqual([]);
        expect(await store.instances.countUsingDefinition(instance.compositionId)).toBe(1);
        expect(await store.instances.countUsingDefinition(target.compositionId)).toBe(1);
        expect(await store.instances.countUsingDefinition(migrating.compositionId)).toBe(1);
        expect(await store.instances.countUsingDefinition(randomUUID())).toBe(0);
      });
    });

    it('updates at the expected version: changed, added and removed elements; a stale version is refused', async () => {
      const kept = elementOf(null);
      const changed = elementOf(null);
      const removed = elementOf(null);
      const instance = await storedInstance([kept, changed, removed]);
      const added = elementOf(randomUUID(), { deployState: 'DEPLOYING' });
      const next: AutomationComposition = {
        ...instance,
        deployState: 'DEPLOYING',
        phase: 1,
        lastMsg: instance.lastMsg + 10,
        compositionTargetId: instance.compositionId,
        elements: {
          [kept.id]: kept,
          [changed.id]: { ...changed, deployState: 'DEPLOYED', outProperties: { result: 'ok' } },
          [added.id]: added,
        },
      };
      await inTransaction(async (store) => {
        const found = await store.instances.findForUpdate(instance.instanceId);
        await store.instances.update({ ...next, elements: { ...found!.value.elements, ...next.elements } }, 1);
        // A second write in the same transaction starts from the first one.
        const again = await store.instances.find(instance.instanceId);
        expect(again?.version).toBe(2);
        await store.instances.update(next, 2);
      });
      await read(async (store) => {
        expect(await store.instances.find(instance.instanceId)).toEqual({ value: next, version: 3 });
        expect(await store.instances.elementIdsInUse([removed.id])).toEqual([]);
      });
      expect(await refusalOf(inTransaction((store) => store.instances.update(instance, 2)))).toBe(
        'CONCURRENT_MODIFICATION',
      );
      expect(
        await refusalOf(inTransaction((store) => store.instances.update(instanceOf(instance.compositionId, []), 1))),
      ).toBe('CONCURRENT_MODIFICATION');
      expect((await read((store) => store.instances.find(instance.instanceId)))?.value).toEqual(next);
    });

    it("updates a participant's own element information only; null keeps the stored value", async () => {
      const participantId = randomUUID();
      const mine = elementOf(participantId, { operationalState: 'RUNNING', useState: 'IDLE' });
      const theirs = elementOf(randomUUID());
      const instance = await storedInstance([mine, theirs]);
      await inTransaction(async (store) => {
        await store.instances.updateElementInfo(instance.instanceId, mine.id, participantId, {
          outProperties: { reported: true },
          operationalState: null,
          useState: 'BUSY',
        });
        await store.instances.updateElementInfo(instance.instanceId, theirs.id, participantId, {
          outProperties: { reported: true },
          operationalState: 'HACKED',
          useState: 'HACKED',
        });
        await store.instances.updateElementInfo(randomUUID(), mine.id, participantId, {
          outProperties: null,
          operationalState: 'WRONG_INSTANCE',
          useState: null,
        });
      });
      const found = await read((store) => store.instances.find(instance.instanceId));
      expect(found?.version).toBe(1);
      expect(found?.value.elements[mine.id]).toEqual({
        ...mine,
        outProperties: { reported: true },
        useState: 'BUSY',
      });
      expect(found?.value.elements[theirs.id]).toEqual(theirs);
    });

    it('deletes at the expected version, with its elements and rollback snapshot', async () => {
      const instance = await storedInstance([elementOf(null)]);
      await inTransaction((store) =>
        store.rollbacks.save({
          instanceId: instance.instanceId,
          compositionId: instance.compositionId,
          elements: instance.elements,
          createdAt: 5,
        }),
      );
      expect(await refusalOf(inTransaction((store) => store.instances.delete(instance.instanceId, 2)))).toBe(
        'CONCURRENT_MODIFICATION',
      );
      await inTransaction((store) => store.instances.delete(instance.instanceId, 1));
      await read(async (store) => {
        expect(await store.instances.find(instance.instanceId)).toBeNull();
        expect(await store.instances.elementIdsInUse(Object.keys(instance.elements))).toEqual([]);
        expect(await store.rollbacks.find(instance.instanceId)).toBeNull();
        expect(await store.instances.countUsingDefinition(instance.compositionId)).toBe(0);
      });
    });

    it('lists with every filter, sorts (ties by id) and pages', async () => {
      const definition = await storedDefinition();
      const participantId = randomUUID();
      const prefix = `i${token()}`;
      const make = (suffix: string, overrides: Partial<AutomationComposition>, participant: string | null) =>
        instanceOf(definition.compositionId, [elementOf(participant), elementOf(null)], {
          name: `${prefix}${suffix}`,
          ...overrides,
        });
      const a = make('a', { lastMsg: 3_000, deployState: 'DEPLOYED', lockState: 'LOCKED' }, participantId);
      const b = make('b', { lastMsg: 1_000, stateChangeResult: 'FAILED', version: '2.0.0' }, null);
      const c = make('c', { lastMsg: 2_000, deployState: 'DEPLOYING' }, participantId);
      await inTransaction(async (store) => {
        for (const instance of [b, a, c]) {
          await store.instances.insert(instance);
        }
      });
      const ids = (list: AutomationComposition[]): string[] => list.map((instance) => instance.name.slice(-1));
      await read(async (store) => {
        const all = { compositionId: definition.compositionId };
        expect(await store.instances.list(all)).toEqual([a, c, b]);
        expect(ids(await store.instances.list({ ...all, sortOrder: 'ASC' }))).toEqual(['b', 'c', 'a']);
        expect(ids(await store.instances.list({ ...all, sort: 'name', sortOrder: 'ASC' }))).toEqual(['a', 'b', 'c']);
        expect(ids(await store.instances.list({ ...all, sort: 'version', sortOrder: 'DESC' }))[0]).toBe('b');
        expect(ids(await store.instances.list({ ...all, sort: 'deployState', sortOrder: 'ASC' }))).toEqual([
          'a',
          'c',
          'b',
        ]);
        expect(ids(await store.instances.list({ ...all, sort: 'lockState', sortOrder: 'ASC' }))[0]).toBe('a');
        const byId = [a, b, c].map((instance) => instance.instanceId).sort();
        expect(
          (await store.instances.list({ ...all, sort: 'instanceId', sortOrder: 'ASC' })).map((i) => i.instanceId),
        ).toEqual(byId);
        expect(ids(await store.instances.list({ ...all, name: `${prefix}b` }))).toEqual(['b']);
        expect(ids(await store.instances.list({ ...all, version: '2.0.0' }))).toEqual(['b']);
        expect(ids(await store.instances.list({ ...all, participantId }))).toEqual(['a', 'c']);
        expect(ids(await store.instances.list({ ...all, instanceIds: [b.instanceId, c.instanceId] }))).toEqual([
          'c',
          'b',
        ]);
        expect(ids(await store.instances.list({ ...all, deployStates: ['DEPLOYED', 'DEPLOYING'] }))).toEqual([
          'a',
          'c',
        ]);
        expect(ids(await store.instances.list({ ...all, stateChangeResults: ['FAILED'] }))).toEqual(['b']);
        expect(ids(await store.instances.list({ ...all, page: 1, size: 2 }))).toEqual(['b']);
        expect(ids(await store.instances.list({ ...all, page: 0, size: 2 }))).toEqual(['a', 'c']);
        expect(ids(await store.instances.list({ ...all, page: 0 }))).toEqual(['a', 'c', 'b']);
        expect(await store.instances.list({ compositionId: randomUUID() })).toEqual([]);
      });
      // Equal sort keys fall back to the instance id.
      const tied = [make('x', { lastMsg: 7 }, null), make('y', { lastMsg: 7 }, null)];
      await inTransaction(async (store) => {
        for (const instance of tied) {
          await store.instances.insert(instance);
        }
      });
      const sevens = (await read((store) => store.instances.list({ compositionId: definition.compositionId })))
        .filter((instance) => instance.lastMsg === 7)
        .map((instance) => instance.instanceId);
      expect(sevens).toEqual(tied.map((instance) => instance.instanceId).sort());
    });

    it("pages a participant's elements across instances, by instance id then position", async () => {
      const participantId = randomUUID();
      const first = await storedInstance([elementOf(participantId), elementOf(null), elementOf(participantId)]);
      const second = await storedInstance([elementOf(participantId)]);
      const [low, high] = [first, second].sort((x, y) => (x.instanceId < y.instanceId ? -1 : 1));
      const mine = (instance: AutomationComposition): InstanceElement[] =>
        Object.values(instance.elements).filter((element) => element.participantId === participantId);
      const expected = [...mine(low!), ...mine(high!)];
      await read(async (store) => {
        expect(await store.instances.elementsOfParticipant(participantId, {})).toEqual(expected);
        expect(await store.instances.elementsOfParticipant(participantId, { page: 0, size: 2 })).toEqual(
          expected.slice(0, 2),
        );
        expect(await store.instances.elementsOfParticipant(participantId, { page: 1, size: 2 })).toEqual(
          expected.slice(2),
        );
        expect(await store.instances.elementsOfParticipant(randomUUID(), {})).toEqual([]);
      });
    });

    it('findForUpdate serialises read-modify-write transactions (each sees the previous commit)', async () => {
      const element = elementOf(null, { stage: 0 });
      const instance = await storedInstance([element], { phase: 0 });
      const writers = 5;
      // The elements too: a transaction that waited for the lock must read the ones the previous holder wrote.
      const bump = (found: Versioned<AutomationComposition>): AutomationComposition => ({
        ...found.value,
        phase: (found.value.phase ?? 0) + 1,
        elements: { [element.id]: { ...element, stage: (found.value.elements[element.id]?.stage ?? 0) + 1 } },
      });
      await Promise.all(
        Array.from({ length: writers }, (_, index) =>
          inTransaction(async (store) => {
            const found =
              index % 2 === 0
                ? await store.instances.findForUpdate(instance.instanceId)
                : (await store.instances.findManyForUpdate([instance.instanceId])).get(instance.instanceId);
            await store.events.list(instance.instanceId, 1);
            await store.instances.update(bump(found!), found!.version);
          }),
        ),
      );
      const found = await read((store) => store.instances.find(instance.instanceId));
      expect(found?.value.phase).toBe(writers);
      expect(found?.value.elements[element.id]?.stage).toBe(writers);
      expect(found?.version).toBe(1 + writers);
    });

    it('a versioned write waits for the row lock holder, then loses to its commit', async () => {
      const instance = await storedInstance();
      const locked = gate();
      const rivalIssued = gate();
      const holder = inTransaction(async (store) => {
        const found = await store.instances.findForUpdate(instance.instanceId);
        locked.open();
        await rivalIssued.opened;
        await store.instances.update({ ...found!.value, deployState: 'DEPLOYING' }, found!.version);
      });
      await locked.opened;
      const rival = inTransaction((store) => store.instances.update({ ...instance, description: 'rival' }, 1));
      rivalIssued.open();
      await holder;
      expect(await refusalOf(rival)).toBe('CONCURRENT_MODIFICATION');
      expect((await read((store) => store.instances.find(instance.instanceId)))?.value.deployState).toBe('DEPLOYING');
    });
    it('findManyForUpdate loads many instances with their elements, leaves unknown ids out, and locks them', async () => {
      const one = await storedInstance([elementOf(null), elementOf(null)]);
      const two = await storedInstance([elementOf(null)]);
      const locked = gate();
      const rivalIssued = gate();
      const holder = inTransaction(async (store) => {
        const found = await store.instances.findManyForUpdate([two.instanceId, randomUUID(), one.instanceId]);
        expect([...found.keys()].sort()).toEqual([one.instanceId, two.instanceId].sort());
        expect(found.get(one.instanceId)).toEqual({ value: one, version: 1 });
        expect(found.get(two.instanceId)).toEqual({ value: two, version: 1 });
        locked.open();
        await rivalIssued.opened;
        await store.instances.update({ ...two, description: 'holder' }, 1);
      });
      await locked.opened;
      const rival = inTransaction((store) => store.instances.update({ ...two, description: 'rival' }, 1));
      rivalIssued.open();
      await holder;
      expect(await refusalOf(rival)).toBe('CONCURRENT_MODIFICATION');
      expect(await read((store) => store.instances.findManyForUpdate([]))).toEqual(new Map());
    });

    it('updateMany writes each instance as its updates would one after another; a broken chain is refused', async () => {
      const [a1, a2] = [elementOf(null), elementOf(null)];
      const one = await storedInstance([a1, a2]);
      const two = await storedInstance([elementOf(null)]);
      const added = elementOf(null);
      const first = {
        ...one,
        phase: 1,
        elements: { ...one.elements, [a1.id]: { ...a1, deployState: 'DEPLOYING' as const } },
      };
      const second = {
        ...first,
        phase: 2,
        metadata: { k: 'v' },
        elements: { [a1.id]: { ...a1, deployState: 'DEPLOYED' as const }, [added.id]: added },
      };
      const other = { ...two, description: 'other', lastMsg: two.lastMsg + 5 };
      await inTransaction(async (store) => {
        await store.instances.findManyForUpdate([one.instanceId, two.instanceId]);
        await store.instances.updateMany([
          { instance: first, expectedVersion: 1 },
          { instance: other, expectedVersion: 1 },
          { instance: second, expectedVersion: 2 },
        ]);
        expect(await store.instances.find(one.instanceId)).toEqual({ value: second, version: 3 });
      });
      await read(async (store) => {
        expect(await store.instances.find(one.instanceId)).toEqual({ value: second, version: 3 });
        expect(await store.instances.find(two.instanceId)).toEqual({ value: other, version: 2 });
        expect(await store.instances.elementIdsInUse([a2.id])).toEqual([]);
      });
      expect(
        await refusalOf(
          inTransaction((store) =>
            store.instances.updateMany([
              { instance: other, expectedVersion: 2 },
              { instance: second, expectedVersion: 2 },
            ]),
          ),
        ),
      ).toBe('CONCURRENT_MODIFICATION');
      expect(
        await refusalOf(
          inTransaction((store) =>
            store.instances.updateMany([
              { instance: other, expectedVersion: 2 },
              { instance: other, expectedVersion: 4 },
            ]),
          ),
        ),
      ).toBe('CONCURRENT_MODIFICATION');
      await read(async (store) => {
        expect(await store.instances.find(one.instanceId)).toEqual({ value: second, version: 3 });
        expect(await store.instances.find(two.instanceId)).toEqual({ value: other, version: 2 });
      });
    });

    it('updateElementInfos applies reports in order, a later null keeping the earlier value, guarded as one', async () => {
      const participantId = randomUUID();
      const mine = elementOf(participantId);
      const theirs = elementOf(randomUUID());
      const instance = await storedInstance([mine, theirs]);
      const other = await storedInstance([elementOf(participantId)]);
      const otherElement = Object.values(other.elements)[0]!;
      await inTransaction((store) =>
        store.instances.updateElementInfos([
          {
            instanceId: instance.instanceId,
            elementId: mine.id,
            participantId,
            info: { outProperties: { n: 1 }, operationalState: 'A', useState: null },
          },
          {
            instanceId: instance.instanceId,
            elementId: mine.id,
            participantId,
            info: { outProperties: { n: 2 }, operationalState: null, useState: 'U' },
          },
          {
            instanceId: instance.instanceId,
            elementId: theirs.id,
            participantId,
            info: { outProperties: { n: 3 }, operationalState: 'X', useState: 'X' },
          },
          {
            instanceId: other.instanceId,
            elementId: otherElement.id,
            participantId,
            info: { outProperties: null, operationalState: 'B', useState: null },
          },
        ]),
      );
      await read(async (store) => {
        const found = await store.instances.find(instance.instanceId);
        expect(found?.version).toBe(1);
        expect(found?.value.elements[mine.id]).toEqual({
          ...mine,
          outProperties: { n: 2 },
          operationalState: 'A',
          useState: 'U',
        });
        expect(found?.value.elements[theirs.id]).toEqual(theirs);
        expect((await store.instances.find(other.instanceId))?.value.elements[otherElement.id]).toEqual({
          ...otherElement,
          operationalState: 'B',
        });
      });
      await inTransaction((store) => store.instances.updateElementInfos([]));
    });
  });
}
