/**
 * The contract of the `AuditLedger` port, run against the in-memory twin (unit project) and PostgreSQL
 * (integration project). Tests share one store per adapter and select only what they wrote (fresh ids and actors).
 */
import { randomUUID } from 'node:crypto';

import { runtimeActor } from '@acm/domain';
import type { Actor, AuditLedger, HistoryOrder, OperationEvent, StoredEvent, UnitOfWork } from '@acm/domain';

import { definitionOf, instanceOf, token } from '../builders';

export interface AuditContractFixture {
  readonly unitOfWork: UnitOfWork;
  readonly audit: AuditLedger;
  close(): Promise<void>;
}

const T0 = 1_765_000_000_000;
const MINUTE = 60_000;

const userActor = (user: string): Actor => ({ kind: 'request', user, requestId: `req-${user}` });

function ordered(subjectId: string, order: HistoryOrder, actor: Actor, at: number): OperationEvent {
  return { subjectId, operationId: randomUUID(), event: 'ORDERED', detail: { order }, actor, at };
}

function completed(subjectId: string, at: number): OperationEvent {
  return {
    subjectId,
    operationId: randomUUID(),
    event: 'PHASE_COMPLETED',
    detail: { phase: 0 },
    actor: runtimeActor('supervision'),
    at,
  };
}

const summary = (events: readonly StoredEvent[]) =>
  events.map((event) => ({
    subjectId: event.subjectId,
    event: event.event,
    order: event.event === 'ORDERED' ? event.detail.order : null,
    at: event.at,
  }));

export function describeAuditContract(name: string, open: () => Promise<AuditContractFixture>): void {
  describe(`AuditLedger contract: ${name}`, () => {
    let fixture: AuditContractFixture;

    beforeAll(async () => {
      fixture = await open();
    }, 60_000);

    afterAll(async () => {
      await fixture.close();
    }, 60_000);

    const append = (events: readonly OperationEvent[]): Promise<void> =>
      fixture.unitOfWork.transaction((store) => store.events.append(events));

    it('answers who ordered each operation of an instance, in time order', async () => {
      const instanceId = randomUUID();
      const [alice, bob] = [`alice-${token()}`, `bob-${token()}`];
      await append([
        ordered(instanceId, 'UNDEPLOY', userActor(bob), T0 + 2 * MINUTE),
        ordered(instanceId, 'DEPLOY', userActor(alice), T0 + MINUTE),
        completed(instanceId, T0 + MINUTE + 1),
        ordered(randomUUID(), 'DEPLOY', userActor(alice), T0 + MINUTE),
      ]);
      const orders = await fixture.audit.events({ instanceId, kinds: ['ORDERED'] }, null, 0, 100);
      expect(orders.map((event) => [event.event === 'ORDERED' && event.detail.order, event.actor])).toEqual([
        ['DEPLOY', userActor(alice)],
        ['UNDEPLOY', userActor(bob)],
      ]);
      const deploys = await fixture.audit.events({ instanceId, orders: ['DEPLOY'] }, null, 0, 100);
      expect(summary(deploys)).toEqual([{ subjectId: instanceId, event: 'ORDERED', order: 'DEPLOY', at: T0 + MINUTE }]);
      const either = await fixture.audit.events(
        { instanceId, kinds: ['PHASE_COMPLETED'], orders: ['UNDEPLOY'] },
        null,
        0,
        100,
      );
      expect(summary(either).map((event) => event.event + String(event.order))).toEqual([
        'PHASE_COMPLETEDnull',
        'ORDEREDUNDEPLOY',
      ]);
    });

    it('answers what one user did between two times (from inclusive, to exclusive)', async () => {
      const user = `carol-${token()}`;
      const [first, second] = [randomUUID(), randomUUID()];
      await append([
        ordered(first, 'DEPLOY', userActor(user), T0),
        ordered(second, 'LOCK', userActor(user), T0 + 10 * MINUTE),
        ordered(first, 'UNDEPLOY', userActor(user), T0 + 20 * MINUTE),
        ordered(first, 'DELETE', userActor(`other-${token()}`), T0 + 10 * MINUTE),
      ]);
      const window = await fixture.audit.events(
        { actor: user, from: T0 + 10 * MINUTE, to: T0 + 20 * MINUTE },
        null,
        0,
        100,
      );
      expect(summary(window)).toEqual([{ subjectId: second, event: 'ORDERED', order: 'LOCK', at: T0 + 10 * MINUTE }]);
      const all = await fixture.audit.events({ actor: user }, null, 0, 100);
      expect(all.map((event) => event.at)).toEqual([T0, T0 + 10 * MINUTE, T0 + 20 * MINUTE]);
    });

    it('selects a definition with the instances stored under it', async () => {
      const definition = definitionOf();
      const instance = instanceOf(definition.compositionId, []);
      const stranger = instanceOf(definition.compositionId, []);
      const otherDefinition = definitionOf();
      const elsewhere = instanceOf(otherDefinition.compositionId, []);
      await fixture.unitOfWork.transaction(async (store) => {
        await store.definitions.insert(definition);
        await store.definitions.insert(otherDefinition);
        await store.instances.insert(instance);
        await store.instances.insert(elsewhere);
      });
      const user = `dave-${token()}`;
      await append([
        ordered(definition.compositionId, 'PRIME', userActor(user), T0),
        ordered(instance.instanceId, 'DEPLOY', userActor(user), T0 + 1),
        ordered(elsewhere.instanceId, 'DEPLOY', userActor(user), T0 + 2),
        ordered(stranger.instanceId, 'DEPLOY', userActor(user), T0 + 3),
      ]);
      const found = await fixture.audit.events({ compositionId: definition.compositionId }, null, 0, 100);
      expect(found.map((event) => event.subjectId)).toEqual([definition.compositionId, instance.instanceId]);
    });

    it("selects the events of a project's definitions and their instances", async () => {
      const project = `p-${token()}`;
      const definition = definitionOf({ project });
      const instance = instanceOf(definition.compositionId, []);
      const otherDefinition = definitionOf({ project: `q-${token()}` });
      const elsewhere = instanceOf(otherDefinition.compositionId, []);
      await fixture.unitOfWork.transaction(async (store) => {
        await store.definitions.insert(definition);
        await store.definitions.insert(otherDefinition);
        await store.instances.insert(instance);
        await store.instances.insert(elsewhere);
      });
      const user = `erin-${token()}`;
      await append([
        ordered(definition.compositionId, 'PRIME', userActor(user), T0),
        ordered(elsewhere.instanceId, 'DEPLOY', userActor(user), T0 + 1),
        ordered(instance.instanceId, 'DEPLOY', userActor(user), T0 + 2),
        ordered(otherDefinition.compositionId, 'PRIME', userActor(user), T0 + 3),
      ]);
      const found = await fixture.audit.events({ actor: user, projects: [project] }, null, 0, 100);
      expect(found.map((event) => event.subjectId)).toEqual([definition.compositionId, instance.instanceId]);
      expect(await fixture.audit.events({ actor: user, projects: [] }, null, 0, 100)).toEqual([]);
    });

    it('pages in (time, sequence) order, by offset and after a cursor', async () => {
      const user = `erin-${token()}`;
      const subjectId = randomUUID();
      await append([
        ordered(subjectId, 'DEPLOY', userActor(user), T0 + 5),
        ordered(subjectId, 'LOCK', userActor(user), T0 + 5),
        ordered(subjectId, 'UNLOCK', userActor(user), T0 + 1),
        ordered(subjectId, 'UNDEPLOY', userActor(user), T0 + 9),
      ]);
      const all = await fixture.audit.events({ actor: user }, null, 0, 100);
      expect(summary(all).map((event) => event.order)).toEqual(['UNLOCK', 'DEPLOY', 'LOCK', 'UNDEPLOY']);
      const second = await fixture.audit.events({ actor: user }, null, 2, 2);
      expect(second.map((event) => event.sequence)).toEqual(all.slice(2).map((event) => event.sequence));
      const afterFirstTwo = await fixture.audit.events({ actor: user }, all[1]!, 0, 1);
      expect(afterFirstTwo.map((event) => event.sequence)).toEqual([all[2]!.sequence]);
    });
  });
}
