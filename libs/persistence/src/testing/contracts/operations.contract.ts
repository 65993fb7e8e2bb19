import { randomUUID } from 'node:crypto';
import { freshControl } from '@acm/domain';
import type { Operation } from '@acm/domain';
import { operationOf } from '../builders';
import { gate } from './contract-support';
import type { ContractContext } from './contract-support';

/**
 * The contract of `OperationRepository`: operations, message records, answers, probes and supervision's queries,
 * run against every adapter (see `describeStoreContract`).
 */
export function describeOperationsContract(context: ContractContext): void {
  const { it, inTransaction, read } = context;

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

    it('keeps the waiting health gates of an operation, through update and saveMany, and forgets them when none waits', async () => {
      const targetId = randomUUID();
      const gates = {
        [randomUUID()]: { startedAt: 1_764_000_000_100, holdingSince: null, observed: 'ready=null', requestedAt: 1 },
        [randomUUID()]: {
          startedAt: 1_764_000_000_200,
          holdingSince: 1_764_000_000_300,
          observed: 'ready=true',
          requestedAt: 2,
        },
      };
      const operation = operationOf(targetId);
      const gated: Operation = { ...operation, control: { ...operation.control, gates } };
      await inTransaction((store) => store.operations.insert(gated));
      expect(await read((store) => store.operations.find(operation.operationId))).toEqual(gated);
      const one = Object.fromEntries(Object.entries(gates).slice(1));
      const fewer: Operation = { ...gated, control: { ...gated.control, gates: one } };
      await inTransaction((store) => store.operations.saveMany([{ operation: fewer, isNew: false }]));
      expect(await read((store) => store.operations.findRunning(targetId))).toEqual(fewer);
      await inTransaction((store) => store.operations.update({ ...fewer, control: { ...fewer.control, gates: {} } }));
      const found = await read((store) => store.operations.find(operation.operationId));
      expect(Object.keys(found?.control.gates ?? {})).toEqual([]);
    });

    it('keeps the healed elements of a heal, inserted alone or with saveMany, through updates', async () => {
      const heal = [randomUUID(), randomUUID()].sort();
      const alone = operationOf(randomUUID(), { heal });
      const many = operationOf(randomUUID(), { heal });
      await inTransaction(async (store) => {
        await store.operations.insert(alone);
        await store.operations.saveMany([{ operation: many, isNew: true }]);
      });
      expect(await read((store) => store.operations.find(alone.operationId))).toEqual(alone);
      expect(await read((store) => store.operations.findRunning(many.targetId))).toEqual(many);
      const completed: Operation = { ...many, state: 'COMPLETED', finishedAt: many.startedAt + 1 };
      await inTransaction((store) => store.operations.saveMany([{ operation: completed, isNew: false }]));
      expect(await read((store) => store.operations.find(many.operationId))).toEqual(completed);
      const ordinary = operationOf(randomUUID());
      await inTransaction((store) => store.operations.insert(ordinary));
      expect(await read((store) => store.operations.find(ordinary.operationId))).not.toHaveProperty('heal');
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
          store.operations.recordAnswers([{ messageId: randomUUID(), participantId: participant, replicaId: replica }]),
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
        expect(listed.filter((o) => ours.has(o.operationId)).map((o) => o.control.progressAt)).toEqual([100, 200, 300]);
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
}
