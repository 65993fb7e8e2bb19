/**
 * The one behavioural contract of the store ports (`UnitOfWork` and every repository), run against every
 * adapter (the in-memory twin in the unit project, PostgreSQL in the integration project) so they cannot
 * drift apart. Tests share one store per adapter: every test uses fresh random ids, names and topics, and
 * looks only at what it wrote. Concurrency is shown with gates (promises one transaction waits on), never
 * with sleeps.
 */
import { randomUUID } from 'node:crypto';

import { DomainError, freshControl } from '@acm/domain';
import type {
  Actor,
  AutomationComposition,
  CompositionDefinition,
  HistoryEventBody,
  InstanceElement,
  Operation,
  OperationEvent,
  OutboxRecord,
  Participant,
  Store,
  UnitOfWork,
  Versioned,
} from '@acm/domain';

import { definitionOf, elementOf, instanceOf, operationOf, participantOf, token } from './builders';

/** What the suite needs from an adapter under test. */
export interface StoreContractFixture {
  readonly unitOfWork: UnitOfWork;
  /** Committed outbox rows not yet relayed, oldest first: the relay's view (adapter-specific, not a port). */
  queuedOutbox(): Promise<OutboxRecord[]>;
  close(): Promise<void>;
}

export interface StoreContractOptions {
  /** Timeout of each test and hook. Default 60 s. */
  testTimeoutMs?: number;
}

/** A promise with its resolver: one transaction opens it, another waits on it. */
function gate(): { readonly opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

function codeOf(error: unknown): string {
  return error instanceof DomainError ? error.code : `not a DomainError: ${String(error)}`;
}

async function refusalOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return codeOf(error);
  }
  return 'resolved';
}

/** Registers the contract suite for one adapter; `open` is called once, before the tests. */
export function describeStoreContract(
  name: string,
  open: () => Promise<StoreContractFixture>,
  options: StoreContractOptions = {},
): void {
  const testTimeout = options.testTimeoutMs ?? 60_000;
  const it = (title: string, body: () => Promise<void>): void => test(title, body, testTimeout);

  describe(`Store contract: ${name}`, () => {
    let fixture: StoreContractFixture;
    let uow: UnitOfWork;

    beforeAll(async () => {
      fixture = await open();
      uow = fixture.unitOfWork;
    }, testTimeout);

    afterAll(async () => {
      await fixture.close();
    }, testTimeout);

    const inTransaction = <T>(work: (store: Store) => Promise<T>): Promise<T> => uow.transaction(work);
    const read = <T>(work: (store: Store) => Promise<T>): Promise<T> => uow.read(work);

    async function storedDefinition(overrides: Partial<CompositionDefinition> = {}): Promise<CompositionDefinition> {
      const definition = definitionOf(overrides);
      await inTransaction((store) => store.definitions.insert(definition));
      return definition;
    }

    async function storedInstance(
      elements: readonly InstanceElement[] = [elementOf(randomUUID())],
      overrides: Partial<AutomationComposition> = {},
    ): Promise<AutomationComposition> {
      const definition = await storedDefinition();
      const instance = instanceOf(definition.compositionId, elements, overrides);
      await inTransaction((store) => store.instances.insert(instance));
      return instance;
    }

    describe('Store', () => {
      it('saveAll writes instances, operations, messages, answers, outbox and history as the single calls would', async () => {
        const [kept, dropped] = [elementOf(randomUUID()), elementOf(randomUUID())];
        const instance = await storedInstance([kept, dropped]);
        const old = operationOf(instance.instanceId);
        await inTransaction((store) => store.operations.insert(old));
        const successor = operationOf(instance.instanceId, { order: 'UNDEPLOY' });
        const superseded: Operation = { ...old, state: 'SUPERSEDED', finishedAt: 1_764_000_001_000 };
        const changed: AutomationComposition = {
          ...instance,
          deployState: 'UNDEPLOYING',
          phase: 0,
          elements: { [kept.id]: { ...kept, deployState: 'UNDEPLOYING' } },
        };
        const [messageId, topic] = [randomUUID(), `t${token()}`];
        await inTransaction(async (store) => {
          await store.instances.findForUpdate(instance.instanceId);
          await store.saveAll({
            instances: [{ instance: changed, expectedVersion: 1 }],
            operations: [
              { operation: successor, isNew: true },
              { operation: superseded, isNew: false },
            ],
            messages: [{ messageId, operationId: successor.operationId, phase: 0, elementIds: [kept.id] }],
            answers: [{ messageId, participantId: 'p', replicaId: 'r' }],
            outbox: [
              { topic, key: 'k1', value: 'first' },
              { topic, key: null, value: 'second', headers: { traceparent: 'x' } },
            ],
            events: [
              {
                subjectId: instance.instanceId,
                operationId: successor.operationId,
                event: 'TIMEOUT',
                detail: {},
                actor: { kind: 'runtime', rule: 'timeout' },
                at: 1,
              },
              {
                subjectId: instance.instanceId,
                operationId: null,
                event: 'PAUSED',
                detail: { phase: 2 },
                actor: { kind: 'request', user: 'runtimeUser', requestId: 'r-2' },
                at: 2,
              },
            ],
          });
          // Nothing to write is no write at all.
          await store.saveAll({ instances: [], operations: [], messages: [], answers: [], outbox: [], events: [] });
        });
        await read(async (store) => {
          expect(await store.instances.find(instance.instanceId)).toEqual({ value: changed, version: 2 });
          expect(await store.operations.find(old.operationId)).toEqual(superseded);
          expect(await store.operations.findRunning(instance.instanceId)).toEqual(successor);
          expect(await store.operations.findByMessage(messageId)).toEqual({ operation: successor, phase: 0 });
          expect(await store.operations.phaseMessages(successor.operationId, 0)).toEqual([
            { messageId, elementIds: [kept.id], answeredBy: [{ participantId: 'p', replicaId: 'r' }] },
          ]);
          const events = await store.events.list(instance.instanceId, 10);
          expect(
            events.map(({ event, detail, actor, at, operationId }) => ({ event, detail, actor, at, operationId })),
          ).toEqual([
            {
              event: 'TIMEOUT',
              detail: {},
              actor: { kind: 'runtime', rule: 'timeout' },
              at: 1,
              operationId: successor.operationId,
            },
            {
              event: 'PAUSED',
              detail: { phase: 2 },
              actor: { kind: 'request', user: 'runtimeUser', requestId: 'r-2' },
              at: 2,
              operationId: null,
            },
          ]);
        });
        expect((await fixture.queuedOutbox()).filter((record) => record.topic === topic)).toEqual([
          { topic, key: 'k1', value: 'first' },
          { topic, key: null, value: 'second', headers: { traceparent: 'x' } },
        ]);
      });

      it('saveAll with a stale instance version is refused and writes no other row', async () => {
        const instance = await storedInstance();
        await inTransaction((store) => store.instances.update({ ...instance, description: 'moved on' }, 1));
        const operation = operationOf(instance.instanceId);
        const topic = `t${token()}`;
        await inTransaction(async (store) => {
          const refusal = await refusalOf(
            store.saveAll({
              instances: [{ instance: { ...instance, deployState: 'DEPLOYING' }, expectedVersion: 1 }],
              operations: [{ operation, isNew: true }],
              messages: [],
              answers: [],
              outbox: [{ topic, key: null, value: 'lost' }],
              events: [
                {
                  subjectId: instance.instanceId,
                  operationId: null,
                  event: 'TIMEOUT',
                  detail: {},
                  actor: { kind: 'runtime', rule: 'timeout' },
                  at: 1,
                },
              ],
            }),
          );
          expect(refusal).toBe('CONCURRENT_MODIFICATION');
          expect(await store.operations.find(operation.operationId)).toBeNull();
        });
        expect((await read((store) => store.instances.find(instance.instanceId)))?.version).toBe(2);
        expect(await read((store) => store.events.list(instance.instanceId, 10))).toEqual([]);
        expect((await fixture.queuedOutbox()).filter((record) => record.topic === topic)).toEqual([]);
      });

      it('readContext answers a definition as it is stored now, however often it was read before', async () => {
        const definition = await storedDefinition({ state: 'PRIMED' });
        const contextOf = (): Promise<unknown> =>
          inTransaction(async (store) =>
            (
              await store.readContext({
                runningOf: [],
                definitions: [definition.compositionId],
                messages: [],
                participants: false,
              })
            ).definitions.get(definition.compositionId),
          );
        expect(await contextOf()).toEqual({ value: definition, version: 1 });
        expect(await contextOf()).toEqual({ value: definition, version: 1 });
        const deprimed: CompositionDefinition = {
          ...definition,
          state: 'COMMISSIONED',
          serviceTemplate: { ...definition.serviceTemplate, changed: true },
        };
        await inTransaction((store) => store.definitions.update(deprimed, 1));
        expect(await contextOf()).toEqual({ value: deprimed, version: 2 });
        // Written and read in one transaction: the read sees the write.
        const primed: CompositionDefinition = { ...deprimed, state: 'PRIMED' };
        await inTransaction(async (store) => {
          await store.definitions.update(primed, 2);
          const context = await store.readContext({
            runningOf: [],
            definitions: [definition.compositionId],
            messages: [],
            participants: false,
          });
          expect(context.definitions.get(definition.compositionId)).toEqual({ value: primed, version: 3 });
        });
        expect(await contextOf()).toEqual({ value: primed, version: 3 });
        // Deleted and created again under the same id: a new row, read in full.
        const again: CompositionDefinition = { ...definition, serviceTemplate: { name: 'again' } };
        await inTransaction(async (store) => {
          await store.definitions.delete(definition.compositionId, 3);
          await store.definitions.insert(again);
        });
        expect(await contextOf()).toEqual({ value: again, version: 1 });
      });

      it('readContext answers what findManyRunning, definitions.find, findManyByMessage and participants.list do', async () => {
        const instance = await storedInstance();
        const target = await storedDefinition({ state: 'PRIMED' });
        const participant = participantOf();
        const running = operationOf(instance.instanceId);
        const [messageId, unknown] = [randomUUID(), randomUUID()];
        await inTransaction(async (store) => {
          await store.participants.save(participant);
          await store.operations.insert(running);
          await store.operations.recordMessage(messageId, running.operationId, 2);
        });
        await inTransaction(async (store) => {
          const context = await store.readContext({
            runningOf: [instance.instanceId, randomUUID(), instance.instanceId],
            definitions: [instance.compositionId, target.compositionId, randomUUID()],
            messages: [messageId, unknown],
            participants: true,
          });
          expect(context.running).toEqual(await store.operations.findManyRunning([instance.instanceId]));
          expect(context.running.get(instance.instanceId)).toEqual(running);
          expect(context.definitions).toEqual(
            new Map([
              [instance.compositionId, await store.definitions.find(instance.compositionId)],
              [target.compositionId, await store.definitions.find(target.compositionId)],
            ]),
          );
          expect(context.answered).toEqual(new Map([[messageId, { operation: running, phase: 2 }]]));
          expect(context.participants).toEqual(await store.participants.list());
          expect(context.participants).toContainEqual(participant);
          expect(
            await store.readContext({ runningOf: [], definitions: [], messages: [], participants: false }),
          ).toEqual({ running: new Map(), definitions: new Map(), answered: new Map(), participants: null });
        });
      });
    });

    describe('UnitOfWork', () => {
      it('answers ping', async () => {
        await expect(uow.ping()).resolves.toBeUndefined();
      });

      it('returns what the work returned and commits it; read sees it', async () => {
        const definition = definitionOf();
        const result = await inTransaction(async (store) => {
          await store.definitions.insert(definition);
          return 'done';
        });
        expect(result).toBe('done');
        expect(await read((store) => store.definitions.find(definition.compositionId))).toEqual({
          value: definition,
          version: 1,
        });
      });

      it('writes outside a transaction commit statement by statement', async () => {
        const definition = definitionOf();
        await read((store) => store.definitions.insert(definition));
        await read((store) => store.definitions.update({ ...definition, state: 'PRIMING' }, 1));
        expect(await inTransaction((store) => store.definitions.find(definition.compositionId))).toEqual({
          value: { ...definition, state: 'PRIMING' },
          version: 2,
        });
      });

      it('shows a transaction its own writes and nobody else until it commits (no dirty reads)', async () => {
        const definition = definitionOf();
        const written = gate();
        const checked = gate();
        const writer = inTransaction(async (store) => {
          await store.definitions.insert(definition);
          expect(await store.definitions.find(definition.compositionId)).toEqual({ value: definition, version: 1 });
          written.open();
          await checked.opened;
        });
        await written.opened;
        const seenBeforeCommit = await read((store) => store.definitions.find(definition.compositionId));
        checked.open();
        await writer;
        expect(seenBeforeCommit).toBeNull();
        expect(await read((store) => store.definitions.find(definition.compositionId))).not.toBeNull();
      });

      it('rolls back everything a failing transaction wrote, in every repository, and rethrows', async () => {
        const instance = await storedInstance();
        const participant = participantOf();
        const operation = operationOf(instance.instanceId);
        const topic = `t${token()}`;
        const failure = new Error('work failed half-way');
        await expect(
          inTransaction(async (store) => {
            const found = await store.instances.findForUpdate(instance.instanceId);
            await store.instances.update({ ...found!.value, deployState: 'DEPLOYING' }, found!.version);
            await store.definitions.insert(definitionOf({ compositionId: operation.operationId }));
            await store.participants.save(participant);
            await store.operations.insert(operation);
            await store.operations.recordMessage(operation.operationId, operation.operationId, 0);
            await store.rollbacks.save({
              instanceId: instance.instanceId,
              compositionId: instance.compositionId,
              elements: instance.elements,
              createdAt: 1,
            });
            await store.outbox.add([{ topic, key: null, value: 'never sent' }]);
            await store.events.append([
              {
                subjectId: instance.instanceId,
                operationId: null,
                event: 'ORDERED',
                detail: { order: 'DEPLOY' },
                actor: { kind: 'request', user: null, requestId: null },
                at: 1,
              },
            ]);
            throw failure;
          }),
        ).rejects.toBe(failure);

        await read(async (store) => {
          expect(await store.instances.find(instance.instanceId)).toEqual({ value: instance, version: 1 });
          expect(await store.definitions.find(operation.operationId)).toBeNull();
          expect(await store.participants.find(participant.participantId)).toBeNull();
          expect(await store.operations.find(operation.operationId)).toBeNull();
          expect(await store.operations.findByMessage(operation.operationId)).toBeNull();
          expect(await store.rollbacks.find(instance.instanceId)).toBeNull();
          expect(await store.events.list(instance.instanceId, 10)).toEqual([]);
        });
        expect((await fixture.queuedOutbox()).filter((record) => record.topic === topic)).toEqual([]);
      });

      it('releases row locks when a transaction fails', async () => {
        const instance = await storedInstance();
        await expect(
          inTransaction(async (store) => {
            await store.instances.findForUpdate(instance.instanceId);
            throw new Error('give up');
          }),
        ).rejects.toThrow('give up');
        const locked = await inTransaction((store) => store.instances.findForUpdate(instance.instanceId));
        expect(locked?.version).toBe(1);
      });
    });

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
        await expect(
          inTransaction((store) => store.definitions.delete(instance.compositionId, 1)),
        ).rejects.toBeDefined();
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
          expect(names(await store.definitions.list({}))).toEqual([
            a1.compositionId,
            b1.compositionId,
            b2.compositionId,
          ]);
          expect(await store.definitions.list({ name: `${prefix}b` })).toEqual([b1, b2]);
          expect(await store.definitions.list({ name: `${prefix}b`, version: '2.0.0' })).toEqual([b2]);
          expect(await store.definitions.list({ participantId })).toEqual([b1, b2]);
          expect(await store.definitions.list({ name: `${prefix}b`, page: 1, size: 1 })).toEqual([b2]);
          expect(await store.definitions.list({ name: `${prefix}b`, page: 2, size: 1 })).toEqual([]);
          // Paging applies only when both page and size are given.
          expect(await store.definitions.list({ name: `${prefix}b`, size: 1 })).toEqual([b1, b2]);
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

    describe('OperationRepository', () => {
      it('inserts, finds, updates the mutable fields and finds the running one of a target', async () => {
        const targetId = randomUUID();
        const operation = operationOf(targetId);
        await inTransaction((store) => store.operations.insert(operation));
        await read(async (store) => {
          expect(await store.operations.find(operation.operationId)).toEqual(operation);
          expect(await store.operations.findRunning(targetId)).toEqual(operation);
          expect(await store.operations.find(randomUUID())).toBeNull();
          expect(await store.operations.findRunning(randomUUID())).toBeNull();
        });
        const finished: Operation = {
          ...operation,
          state: 'COMPLETED',
          timedOut: true,
          phase: 2,
          deadlineAt: 1_764_000_100_000,
          finishedAt: 1_764_000_050_000,
          control: {
            progressAt: 1_764_000_040_000,
            resent: 2,
            pausedAt: 1_764_000_045_000,
            pausedMs: 1_234,
            retried: 1,
            retryAt: 1_764_000_060_000,
            inFlight: 3,
            slotWait: 'ELEMENTS',
            dueAt: 1_764_000_070_000,
          },
        };
        await inTransaction((store) => store.operations.update(finished));
        await read(async (store) => {
          expect(await store.operations.find(operation.operationId)).toEqual(finished);
          expect(await store.operations.findRunning(targetId)).toBeNull();
        });
      });

      it('refuses a second running operation of one target', async () => {
        const targetId = randomUUID();
        await inTransaction((store) => store.operations.insert(operationOf(targetId)));
        const second = operationOf(targetId);
        await expect(inTransaction((store) => store.operations.insert(second))).rejects.toBeDefined();
        expect(await read((store) => store.operations.find(second.operationId))).toBeNull();
      });

      it('maps a recorded message to its operation and phase', async () => {
        const operation = operationOf(randomUUID(), { targetKind: 'DEFINITION', order: 'PRIME', phase: null });
        const [phased, unphased] = [randomUUID(), randomUUID()];
        await inTransaction(async (store) => {
          await store.operations.insert(operation);
          await store.operations.recordMessage(phased, operation.operationId, 3);
          await store.operations.recordMessage(unphased, operation.operationId, null);
        });
        await read(async (store) => {
          expect(await store.operations.findByMessage(phased)).toEqual({ operation, phase: 3 });
          expect(await store.operations.findByMessage(unphased)).toEqual({ operation, phase: null });
          expect(await store.operations.findByMessage(randomUUID())).toBeNull();
        });
      });

      it('saveMany updates, then inserts: a superseded operation makes room for its successor in one call', async () => {
        const targetId = randomUUID();
        const other = randomUUID();
        const old = operationOf(targetId);
        const idle = operationOf(other);
        await inTransaction(async (store) => {
          await store.operations.insert(old);
          await store.operations.insert(idle);
        });
        const successor = operationOf(targetId, { order: 'UNDEPLOY' });
        const superseded: Operation = { ...old, state: 'SUPERSEDED', finishedAt: 1_764_000_001_000 };
        const progressed: Operation = { ...idle, phase: 1, control: { ...idle.control, resent: 1 } };
        await inTransaction((store) =>
          store.operations.saveMany([
            { operation: successor, isNew: true },
            { operation: superseded, isNew: false },
            { operation: progressed, isNew: false },
          ]),
        );
        await read(async (store) => {
          expect(await store.operations.find(old.operationId)).toEqual(superseded);
          expect(await store.operations.findManyRunning([targetId, other, randomUUID()])).toEqual(
            new Map([
              [targetId, successor],
              [other, progressed],
            ]),
          );
          expect(await store.operations.findManyRunning([])).toEqual(new Map());
        });
        await expect(
          inTransaction((store) => store.operations.saveMany([{ operation: operationOf(targetId), isNew: true }])),
        ).rejects.toBeDefined();
      });

      it('records many messages and answers at once and finds many messages by id', async () => {
        const operation = operationOf(randomUUID());
        const [listed, unlisted] = [randomUUID(), randomUUID()];
        const elementIds = [randomUUID()];
        const [participant, replica] = [randomUUID(), randomUUID()];
        await inTransaction(async (store) => {
          await store.operations.insert(operation);
          await store.operations.recordMessages([
            { messageId: listed, operationId: operation.operationId, phase: 1, elementIds },
            { messageId: unlisted, operationId: operation.operationId, phase: null, elementIds: null },
          ]);
          await store.operations.recordAnswers([
            { messageId: listed, participantId: participant, replicaId: replica },
            { messageId: listed, participantId: participant, replicaId: replica },
          ]);
          await store.operations.recordAnswers([]);
          await store.operations.recordMessages([]);
        });
        await read(async (store) => {
          expect(await store.operations.findManyByMessage([listed, unlisted, randomUUID()])).toEqual(
            new Map([
              [listed, { operation, phase: 1 }],
              [unlisted, { operation, phase: null }],
            ]),
          );
          expect(await store.operations.findManyByMessage([])).toEqual(new Map());
          const messages = await store.operations.phaseMessages(operation.operationId, 1);
          expect(messages).toEqual([
            { messageId: listed, elementIds, answeredBy: [{ participantId: participant, replicaId: replica }] },
          ]);
        });
        await expect(
          inTransaction((store) =>
            store.operations.recordAnswers([
              { messageId: randomUUID(), participantId: participant, replicaId: replica },
            ]),
          ),
        ).rejects.toBeDefined();
      });

      it('returns the history of a target newest first, up to the limit', async () => {
        const targetId = randomUUID();
        const operations = [1_000, 3_000, 2_000].map((startedAt) =>
          operationOf(targetId, { startedAt, state: 'COMPLETED', finishedAt: startedAt + 1 }),
        );
        await inTransaction(async (store) => {
          for (const operation of operations) {
            await store.operations.insert(operation);
          }
        });
        await read(async (store) => {
          expect((await store.operations.history(targetId, 10)).map((operation) => operation.startedAt)).toEqual([
            3_000, 2_000, 1_000,
          ]);
          expect(await store.operations.history(targetId, 2)).toEqual([operations[1], operations[2]]);
          expect(await store.operations.history(randomUUID(), 10)).toEqual([]);
        });
      });

      /** Overdue operations of one test; completed at the end so no later claim sees them. */
      async function overdue(deadlines: readonly number[], extra: Partial<Operation> = {}): Promise<Operation[]> {
        const operations = deadlines.map((deadlineAt) => operationOf(randomUUID(), { deadlineAt, ...extra }));
        await inTransaction(async (store) => {
          for (const operation of operations) {
            await store.operations.insert(operation);
          }
        });
        return operations;
      }

      async function finish(operations: readonly Operation[]): Promise<void> {
        await inTransaction(async (store) => {
          for (const operation of operations) {
            await store.operations.update({ ...operation, state: 'COMPLETED', finishedAt: 1 });
          }
        });
      }

      it('finds running, not timed-out operations past their deadline, earliest first, up to the limit', async () => {
        const due = await overdue([1_300, 1_100, 1_200]);
        const notDueYet = await overdue([9_000]);
        const timedOut = await overdue([1_000], { timedOut: true });
        const finished = await overdue([1_000]);
        await finish(finished);
        try {
          const found = await read((store) => store.operations.findOverdue(5_000, 100));
          const ours = new Set([...due, ...notDueYet, ...timedOut, ...finished].map((o) => o.operationId));
          expect(found.filter((o) => ours.has(o.operationId)).map((o) => o.deadlineAt)).toEqual([1_100, 1_200, 1_300]);
          const limited = await read((store) => store.operations.findOverdue(5_000, 2));
          expect(limited.map((o) => o.deadlineAt)).toEqual([1_100, 1_200]);
          expect(await read((store) => store.operations.findOverdue(1_100, 100))).toEqual([]);
        } finally {
          await finish([...due, ...notDueYet, ...timedOut]);
        }
      });

      it('leaves a paused operation out of the overdue ones: paused time does not count against its deadline', async () => {
        const [paused, running] = await overdue([1_000, 1_000]);
        try {
          await inTransaction((store) =>
            store.operations.update({ ...paused!, control: { ...paused!.control, pausedAt: 900 } }),
          );
          const found = (await read((store) => store.operations.findOverdue(5_000, 100))).map((o) => o.operationId);
          expect(found).toContain(running!.operationId);
          expect(found).not.toContain(paused!.operationId);
        } finally {
          await finish([paused!, running!]);
        }
      });

      it('lists running operations least recently progressed first, up to the limit', async () => {
        const operations = [300, 100, 200].map((progressAt) =>
          operationOf(randomUUID(), { control: { ...freshControl(progressAt) } }),
        );
        const finished = operationOf(randomUUID(), { control: freshControl(50) });
        await inTransaction(async (store) => {
          for (const operation of [...operations, finished]) {
            await store.operations.insert(operation);
          }
        });
        await finish([finished]);
        try {
          const ours = new Set(operations.map((o) => o.operationId));
          const listed = await read((store) => store.operations.listRunning(1_000));
          expect(listed.filter((o) => ours.has(o.operationId)).map((o) => o.control.progressAt)).toEqual([
            100, 200, 300,
          ]);
          expect(listed.map((o) => o.operationId)).not.toContain(finished.operationId);
          const limited = await read((store) => store.operations.listRunning(2));
          expect(limited.map((o) => o.control.progressAt)).toEqual([100, 200]);
        } finally {
          await finish(operations);
        }
      });

      it('lists running operations with a due time, earliest due first, up to the limit', async () => {
        const due = [3_300, 1_100, 2_200].map((dueAt) =>
          operationOf(randomUUID(), { control: { ...freshControl(1_000), dueAt } }),
        );
        const never = operationOf(randomUUID(), { control: freshControl(1_000) });
        const finished = operationOf(randomUUID(), { control: { ...freshControl(1_000), dueAt: 500 } });
        await inTransaction(async (store) => {
          await store.operations.saveMany([...due, never, finished].map((operation) => ({ operation, isNew: true })));
        });
        await finish([finished]);
        try {
          const ours = new Set([...due, never, finished].map((o) => o.operationId));
          const listed = await read((store) => store.operations.listDue(1_000));
          expect(listed.filter((o) => ours.has(o.operationId)).map((o) => o.control.dueAt)).toEqual([
            1_100, 2_200, 3_300,
          ]);
          const first = await read((store) => store.operations.listDue(1));
          expect(first.map((o) => o.control.dueAt)).toEqual([1_100]);
          // A due time written by an update moves the operation in the order.
          await inTransaction((store) =>
            store.operations.saveMany([
              { operation: { ...due[0]!, control: { ...due[0]!.control, dueAt: 900 } }, isNew: false },
            ]),
          );
          expect((await read((store) => store.operations.listDue(1)))[0]?.operationId).toBe(due[0]!.operationId);
        } finally {
          await finish([...due, never]);
        }
      });

      it('sums the runtime-wide slots in use over running operations only', async () => {
        const before = await read((store) => store.operations.slotsInUse());
        const counting = [2, 3].map((inFlight) =>
          operationOf(randomUUID(), { control: { ...freshControl(1_000), inFlight } }),
        );
        const ended = operationOf(randomUUID(), {
          state: 'COMPLETED',
          finishedAt: 2_000,
          control: { ...freshControl(1_000), inFlight: 7 },
        });
        await inTransaction(async (store) => {
          for (const operation of [...counting, ended]) {
            await store.operations.insert(operation);
          }
        });
        try {
          expect(await read((store) => store.operations.slotsInUse())).toBe(before + 5);
        } finally {
          await finish(counting);
        }
        expect(await read((store) => store.operations.slotsInUse())).toBe(before);
      });

      it('lists operations waiting for a slot oldest first, not paused ones, up to the limit', async () => {
        const waiting = [3_000, 1_000, 2_000].map((startedAt) =>
          operationOf(randomUUID(), { startedAt, control: { ...freshControl(startedAt), slotWait: 'PHASE' } }),
        );
        const paused = operationOf(randomUUID(), {
          startedAt: 500,
          control: { ...freshControl(500), slotWait: 'ELEMENTS', pausedAt: 600 },
        });
        const notWaiting = operationOf(randomUUID(), { startedAt: 400 });
        await inTransaction(async (store) => {
          for (const operation of [...waiting, paused, notWaiting]) {
            await store.operations.insert(operation);
          }
        });
        try {
          const ours = new Set(waiting.map((o) => o.operationId));
          const listed = await read((store) => store.operations.listSlotWaiting(1_000));
          expect(listed.filter((o) => ours.has(o.operationId)).map((o) => o.startedAt)).toEqual([1_000, 2_000, 3_000]);
          expect(listed.map((o) => o.operationId)).not.toContain(paused.operationId);
          expect(listed.map((o) => o.operationId)).not.toContain(notWaiting.operationId);
          expect(listed.find((o) => o.operationId === waiting[1]!.operationId)?.control.slotWait).toBe('PHASE');
          expect(await read((store) => store.operations.listSlotWaiting(1))).toHaveLength(1);
        } finally {
          await finish([...waiting, paused, notWaiting]);
        }
      });

      it('lockSlots serialises transactions until each ends (each sees the previous commit)', async () => {
        const operation = operationOf(randomUUID());
        await inTransaction((store) => store.operations.insert(operation));
        const takers = 5;
        try {
          // A read-modify-write without a row lock: only the slots lock keeps the updates from being lost.
          await Promise.all(
            Array.from({ length: takers }, () =>
              inTransaction(async (store) => {
                await store.operations.lockSlots();
                const found = (await store.operations.find(operation.operationId))!;
                await store.events.list(operation.targetId, 1);
                await store.operations.update({
                  ...found,
                  control: { ...found.control, inFlight: found.control.inFlight + 1 },
                });
              }),
            ),
          );
          expect((await read((store) => store.operations.find(operation.operationId)))?.control.inFlight).toBe(takers);
        } finally {
          await finish([operation]);
        }
      });

      it('takes no lock: an update of an operation another transaction found proceeds at once', async () => {
        const [operation] = await overdue([3_100]);
        const found = gate();
        const updated = gate();
        try {
          const holder = inTransaction(async (store) => {
            const overdueNow = await store.operations.findOverdue(3_200, 100);
            found.open();
            await updated.opened;
            return overdueNow.map((o) => o.operationId);
          });
          await found.opened;
          await inTransaction((store) => store.operations.update({ ...operation!, phase: 7 }));
          updated.open();
          expect(await holder).toContain(operation!.operationId);
          expect(await read((store) => store.operations.find(operation!.operationId))).toMatchObject({ phase: 7 });
        } finally {
          updated.open();
          await finish([operation!]);
        }
      });

      it('records which elements of its phase each message set going (null when not said)', async () => {
        const operation = operationOf(randomUUID());
        const [listed, unlisted] = [randomUUID(), randomUUID()];
        const elementIds = [randomUUID(), randomUUID()];
        await inTransaction(async (store) => {
          await store.operations.insert(operation);
          await store.operations.recordMessage(listed, operation.operationId, 0, elementIds);
          await store.operations.recordMessage(unlisted, operation.operationId, 0);
        });
        await read(async (store) => {
          const messages = await store.operations.phaseMessages(operation.operationId, 0);
          expect(messages.find((message) => message.messageId === listed)?.elementIds).toEqual(elementIds);
          expect(messages.find((message) => message.messageId === unlisted)?.elementIds).toBeNull();
        });
      });

      it('records who answered each message of a phase, once per replica, and which replicas did work', async () => {
        const operation = operationOf(randomUUID());
        const [first, second, otherPhase] = [randomUUID(), randomUUID(), randomUUID()];
        const [participant, worker, idle] = [randomUUID(), randomUUID(), randomUUID()];
        await inTransaction(async (store) => {
          await store.operations.insert(operation);
          await store.operations.recordMessage(first, operation.operationId, 0);
          await store.operations.recordMessage(second, operation.operationId, 0);
          await store.operations.recordMessage(otherPhase, operation.operationId, 1);
          await store.operations.recordAnswer(first, participant, worker);
          await store.operations.recordAnswer(first, participant, worker);
        });
        await read(async (store) => {
          const messages = await store.operations.phaseMessages(operation.operationId, 0);
          expect(messages.map((message) => message.messageId).sort()).toEqual([first, second].sort());
          expect(messages.find((message) => message.messageId === first)?.answeredBy).toEqual([
            { participantId: participant, replicaId: worker },
          ]);
          expect(messages.find((message) => message.messageId === second)?.answeredBy).toEqual([]);
          expect(await store.operations.phaseMessages(operation.operationId, 2)).toEqual([]);
          expect(await store.operations.workers([worker, idle])).toEqual(new Set([worker]));
          expect(await store.operations.workers([])).toEqual(new Set());
        });
        await expect(
          inTransaction((store) => store.operations.recordAnswer(randomUUID(), participant, worker)),
        ).rejects.toBeDefined();
      });

      it('keeps the newest probe per participant and hands each out once', async () => {
        const [early, late] = [randomUUID(), randomUUID()];
        await inTransaction(async (store) => {
          await store.operations.recordProbe(early, 1_000);
          await store.operations.recordProbe(early, 1_500);
          await store.operations.recordProbe(early, 1_200);
          await store.operations.recordProbe(late, 9_000);
        });
        const mine = (probes: Array<{ participantId: string; probedAt: number }>) =>
          probes.filter((probe) => probe.participantId === early || probe.participantId === late);
        expect(mine(await inTransaction((store) => store.operations.takeProbes(2_000)))).toEqual([
          { participantId: early, probedAt: 1_500 },
        ]);
        expect(mine(await inTransaction((store) => store.operations.takeProbes(2_000)))).toEqual([]);
        expect(mine(await inTransaction((store) => store.operations.takeProbes(10_000)))).toEqual([
          { participantId: late, probedAt: 9_000 },
        ]);
      });
    });

    describe('RollbackRepository', () => {
      it('saves one snapshot per instance, replacing the previous one', async () => {
        const instance = await storedInstance([elementOf(null)]);
        const snapshot = {
          instanceId: instance.instanceId,
          compositionId: instance.compositionId,
          elements: instance.elements,
          createdAt: 1_764_000_000_123,
        };
        await inTransaction((store) => store.rollbacks.save(snapshot));
        expect(await read((store) => store.rollbacks.find(instance.instanceId))).toEqual(snapshot);
        const target = await storedDefinition();
        const [element] = Object.values(instance.elements);
        const replaced = {
          ...snapshot,
          compositionId: target.compositionId,
          elements: { [element!.id]: { ...element!, deployState: 'DEPLOYED' as const } },
          createdAt: 1_764_000_000_456,
        };
        await inTransaction((store) => store.rollbacks.save(replaced));
        await read(async (store) => {
          expect(await store.rollbacks.find(instance.instanceId)).toEqual(replaced);
          expect(await store.rollbacks.find(randomUUID())).toBeNull();
        });
      });
    });

    describe('OutboxRepository', () => {
      it('queues records in the order they were added, transaction after transaction', async () => {
        const topic = `t${token()}`;
        await inTransaction(async (store) => {
          await store.outbox.add([
            { topic, key: 'k1', value: '1' },
            { topic, key: null, value: '2' },
          ]);
          await store.outbox.add([]);
          await store.outbox.add([{ topic, key: 'k1', value: '3' }]);
        });
        await inTransaction((store) => store.outbox.add([{ topic, key: 'k2', value: '4' }]));
        await read((store) => store.outbox.add([{ topic, key: 'k3', value: '5' }]));
        expect((await fixture.queuedOutbox()).filter((record) => record.topic === topic)).toEqual([
          { topic, key: 'k1', value: '1' },
          { topic, key: null, value: '2' },
          { topic, key: 'k1', value: '3' },
          { topic, key: 'k2', value: '4' },
          { topic, key: 'k3', value: '5' },
        ]);
      });

      it('keeps each record’s headers (the trace context it leaves with), none when it had none', async () => {
        const topic = `t${token()}`;
        const traced = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'acm=1' };
        await inTransaction((store) =>
          store.outbox.add([
            { topic, key: 'k1', value: '1', headers: traced },
            { topic, key: 'k1', value: '2' },
          ]),
        );
        expect((await fixture.queuedOutbox()).filter((record) => record.topic === topic)).toEqual([
          { topic, key: 'k1', value: '1', headers: traced },
          { topic, key: 'k1', value: '2' },
        ]);
      });

      it('queues nothing before the commit', async () => {
        const topic = `t${token()}`;
        const added = gate();
        const looked = gate();
        const writer = inTransaction(async (store) => {
          await store.outbox.add([{ topic, key: null, value: 'later' }]);
          added.open();
          await looked.opened;
        });
        await added.opened;
        const before = (await fixture.queuedOutbox()).filter((record) => record.topic === topic);
        looked.open();
        await writer;
        expect(before).toEqual([]);
        expect((await fixture.queuedOutbox()).filter((record) => record.topic === topic)).toHaveLength(1);
      });
    });

    describe('EventRepository', () => {
      it('lists a subject’s events in append order with increasing sequences, up to the limit', async () => {
        const subjectId = randomUUID();
        const other = randomUUID();
        const operationId = randomUUID();
        const bodies: HistoryEventBody[] = [
          { event: 'ORDERED', detail: { order: 'DEPLOY' } },
          { event: 'PHASE_STARTED', detail: { phase: 0, messageId: randomUUID(), elementIds: ['e-1', 'e-2'] } },
          {
            event: 'ELEMENT_RESULT',
            detail: {
              elementId: 'e-1',
              participantId: 'p-1',
              phase: 0,
              deployState: 'DEPLOYED',
              lockState: 'LOCKED',
              result: true,
              message: null,
            },
          },
          { event: 'COMPLETED', detail: { deployState: 'DEPLOYED', lockState: 'LOCKED' } },
        ];
        const actors: Actor[] = [
          { kind: 'request', user: 'runtimeUser', requestId: 'r-1' },
          { kind: 'runtime', rule: 'slots' },
          { kind: 'participant', participantId: 'p-1', replicaId: null },
          { kind: 'participant', participantId: 'p-1', replicaId: 'r-9' },
        ];
        const events: OperationEvent[] = bodies.map((body, index) => ({
          ...body,
          subjectId,
          operationId: index === 0 ? null : operationId,
          actor: actors[index]!,
          at: 1_764_000_000_000 + index,
        }));
        await inTransaction(async (store) => {
          await store.events.append(events.slice(0, 2));
          await store.events.append([{ ...events[0]!, subjectId: other }]);
          await store.events.append([]);
          // A transaction reads its own appends.
          expect(await store.events.list(subjectId, 10)).toHaveLength(2);
        });
        await read((store) => store.events.append(events.slice(2)));
        await read(async (store) => {
          const listed = await store.events.list(subjectId, 10);
          expect(listed.map(({ sequence: _sequence, ...event }) => event)).toEqual(events);
          const sequences = listed.map((event) => event.sequence);
          expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
          expect(new Set(sequences).size).toBe(sequences.length);
          expect(sequences.every(Number.isInteger)).toBe(true);
          expect((await store.events.list(subjectId, 2)).map((event) => event.event)).toEqual([
            'ORDERED',
            'PHASE_STARTED',
          ]);
          expect(await store.events.list(other, 10)).toHaveLength(1);
          expect(await store.events.list(randomUUID(), 10)).toEqual([]);
        });
      });
    });
  });
}
