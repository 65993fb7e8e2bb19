/**
 * The contract of the `RetentionStore` port, run against the in-memory twin (unit project) and PostgreSQL
 * (integration project). Tests share one store per adapter and look only at the subjects they wrote (fresh ids).
 */
import { randomUUID } from 'node:crypto';

import { detailOf, rankOperations, runtimeActor } from '@acm/domain';
import type { Operation, OperationRecord, RetentionStore, Store, UnitOfWork } from '@acm/domain';

import { operationOf } from './builders';

export interface RetentionContractFixture {
  readonly unitOfWork: UnitOfWork;
  readonly retention: RetentionStore;
  close(): Promise<void>;
}

/** A promise with its resolver: one transaction opens it, another waits on it. */
function gate(): { readonly opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const T0 = 1_764_000_000_000;
const LONG_AGO = T0 - 1_000_000_000;

export function describeRetentionContract(name: string, open: () => Promise<RetentionContractFixture>): void {
  describe(`RetentionStore contract: ${name}`, () => {
    let fixture: RetentionContractFixture;
    let retention: RetentionStore;

    beforeAll(async () => {
      fixture = await open();
      retention = fixture.retention;
    }, 60_000);

    afterAll(async () => {
      await fixture.close();
    }, 60_000);

    const write = (work: (store: Store) => Promise<void>): Promise<void> => fixture.unitOfWork.transaction(work);

    /** A finished operation started `minute` minutes after T0, with one message, one answer and two events. */
    async function finished(subjectId: string, minute: number, overrides: Partial<OperationRecord> = {}) {
      const operation = operationOf(subjectId, {
        state: 'COMPLETED',
        startedAt: T0 + minute * 60_000,
        finishedAt: T0 + minute * 60_000 + 1_000,
        ...overrides,
      });
      const messageId = randomUUID();
      await write(async (store) => {
        await store.operations.insert(operation);
        await store.operations.recordMessage(messageId, operation.operationId, 0, null);
        await store.operations.recordAnswer(messageId, 'participant', 'replica');
        await store.events.append(
          [0, 1].map((index) => ({
            subjectId,
            operationId: operation.operationId,
            event: 'PHASE_COMPLETED' as const,
            detail: { phase: minute },
            actor: runtimeActor('supervision'),
            at: operation.startedAt + index,
          })),
        );
      });
      return { operation, messageId };
    }

    it('walks every subject with operations or events, in id order, page by page', async () => {
      const ids: string[] = [randomUUID(), randomUUID(), randomUUID()].sort();
      await finished(ids[0]!, 0);
      await write((store) =>
        store.events.append([
          {
            subjectId: ids[1]!,
            operationId: null,
            event: 'PROPERTY_PROBLEMS',
            detail: { order: 'DEPLOY', mode: 'warn', problems: [] },
            actor: runtimeActor('supervision'),
            at: T0,
          },
        ]),
      );
      await finished(ids[2]!, 0);
      const all = await retention.subjectsAfter(null, 1_000_000);
      expect(all.filter((id) => ids.includes(id))).toEqual(ids);
      expect(all).toEqual([...all].sort());
      const [next] = await retention.subjectsAfter(ids[0]!, 1);
      expect(next! > ids[0]! && next! <= ids[1]!).toBe(true);
      expect(await retention.subjectsAfter('ffffffff-ffff-ffff-ffff-ffffffffffff', 10)).toEqual([]);
    });

    it('ranks finished operations as the domain does, running ones counted and never answered', async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      const written: Operation[] = [
        (await finished(a, 1)).operation,
        (await finished(a, 2, { state: 'FAILED' })).operation,
        (await finished(a, 3, { timedOut: true })).operation,
        (await finished(a, 4, { state: 'CANCELLED' })).operation,
        (await finished(b, 1)).operation,
      ];
      const running = operationOf(a, { startedAt: T0 + 5 * 60_000 });
      await write((store) => store.operations.insert(running));
      const byId = (list: ReadonlyArray<{ operationId: string }>) =>
        [...list].sort((x, y) => (x.operationId < y.operationId ? -1 : 1));
      expect(byId(await retention.candidates([a, b]))).toEqual(byId(rankOperations([...written, running])));
      expect(await retention.candidates([])).toEqual([]);
    });

    it('prunes an operation with its messages, answers and events, and nothing of the others', async () => {
      const subject = randomUUID();
      const old = await finished(subject, 1);
      const kept = await finished(subject, 2);
      const running = operationOf(subject, { startedAt: T0 + 3 * 60_000 });
      await write((store) => store.operations.insert(running));

      expect(await retention.prune([old.operation.operationId, running.operationId, randomUUID()])).toEqual({
        operations: 1,
        messages: 1,
        answers: 1,
        events: 2,
      });
      const left = await fixture.unitOfWork.read(async (store) => ({
        old: await store.operations.find(old.operation.operationId),
        oldMessage: await store.operations.findByMessage(old.messageId),
        kept: await store.operations.findByMessage(kept.messageId),
        running: await store.operations.find(running.operationId),
        events: await store.events.list(subject, 100),
      }));
      expect(left.old).toBeNull();
      expect(left.oldMessage).toBeNull();
      expect(left.kept?.operation.operationId).toBe(kept.operation.operationId);
      expect(left.running?.state).toBe('RUNNING');
      expect(left.events.map((event) => event.operationId)).toEqual([
        kept.operation.operationId,
        kept.operation.operationId,
      ]);
      expect(await fixture.unitOfWork.read((store) => store.operations.workers(['replica']))).toEqual(
        new Set(['replica']),
      );
      expect(await retention.prune([])).toEqual({ operations: 0, messages: 0, answers: 0, events: 0 });
    });

    it('skips an operation another transaction holds locked, without waiting for it', async () => {
      const subject = randomUUID();
      const { operation } = await finished(subject, 1);
      const locked = gate();
      const release = gate();
      const holder = write(async (store) => {
        await store.operations.update({ ...operation, phase: 1 });
        locked.open();
        await release.opened;
      });
      await locked.opened;
      expect((await retention.prune([operation.operationId])).operations).toBe(0);
      release.open();
      await holder;
      expect((await retention.prune([operation.operationId])).operations).toBe(1);
    });

    it('prunes events of no operation older than the cutoff, at most the limit, oldest first', async () => {
      const subject = randomUUID();
      const { operation } = await finished(subject, 0);
      await write((store) =>
        store.events.append(
          [1, 2, 3, 10].map((minute) => ({
            subjectId: subject,
            operationId: null,
            event: 'PROPERTY_PROBLEMS' as const,
            detail: { order: `LOOSE_${minute}`, mode: 'warn' as const, problems: [] },
            actor: runtimeActor('supervision'),
            at: LONG_AGO + minute * 60_000,
          })),
        ),
      );
      const events = async () =>
        (await fixture.unitOfWork.read((store) => store.events.list(subject, 100))).map(
          (event) => detailOf(event, 'PROPERTY_PROBLEMS')?.order ?? event.event,
        );
      // Other tests write their loose events at T0: these are the oldest of the store.
      expect(await retention.pruneLooseEvents(LONG_AGO + 5 * 60_000, 1)).toBe(1);
      expect(await events()).not.toContain('LOOSE_1');
      expect(await retention.pruneLooseEvents(LONG_AGO + 5 * 60_000, 1000)).toBe(2);
      expect(await events()).toEqual(['PHASE_COMPLETED', 'PHASE_COMPLETED', 'LOOSE_10']);
      expect(await fixture.unitOfWork.read((store) => store.operations.find(operation.operationId))).not.toBeNull();
    });

    it('pages a subject operations oldest first and its events in sequence order', async () => {
      const subject = randomUUID();
      const written = [];
      for (const minute of [3, 1, 2]) {
        written.push((await finished(subject, minute)).operation);
      }
      const twin = operationOf(subject, { state: 'COMPLETED', startedAt: T0 + 60_000, finishedAt: T0 + 61_000 });
      await write((store) => store.operations.insert(twin));
      const expected = [...written, twin]
        .sort((a, b) => a.startedAt - b.startedAt || (a.operationId < b.operationId ? -1 : 1))
        .map((operation) => operation.operationId);
      const first = await retention.operationsPage(subject, null, 2);
      const last = first[first.length - 1]!;
      const rest = await retention.operationsPage(subject, last, 10);
      expect([...first, ...rest].map((operation) => operation.operationId)).toEqual(expected);
      expect(first[0]).toEqual([...written, twin].find((operation) => operation.operationId === expected[0]));

      const all = await fixture.unitOfWork.read((store) => store.events.list(subject, 100));
      const page = await retention.eventsPage(subject, 0, 4);
      const next = await retention.eventsPage(subject, page[page.length - 1]!.sequence, 100);
      expect([...page, ...next]).toEqual(all);
      expect(all.map((event) => detailOf(event, 'PHASE_COMPLETED')?.phase)).toEqual([3, 3, 1, 1, 2, 2]);
    });
  });
}
