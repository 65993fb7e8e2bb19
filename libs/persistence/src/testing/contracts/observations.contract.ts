/**
 * The contract of the `ObservationStore` port, run against the in-memory twin (unit project) and PostgreSQL
 * (integration project). The fixture makes the instances whose elements are observed (PostgreSQL's rows reference
 * them); tests use fresh ids.
 */
import type { ObservationStore, ObservedElement, OperationEvent } from '@acm/domain';

export interface ObservationContractFixture {
  readonly observations: ObservationStore;
  /** Makes an instance with `count` elements; answers its id and its element ids. */
  instance(count: number): Promise<{ instanceId: string; elementIds: string[] }>;
  /** The history of a subject, as the ledger holds it. */
  events(subjectId: string): Promise<OperationEvent[]>;
  close(): Promise<void>;
}

const observed = (state: ObservedElement['health']['state'], drift: string[] = []): ObservedElement => ({
  health: { state, reason: state === 'Healthy' ? null : `${state} because`, since: 1_765_000_000_000 },
  drift,
});

export function describeObservationContract(name: string, open: () => Promise<ObservationContractFixture>): void {
  describe(`ObservationStore contract: ${name}`, () => {
    let fixture: ObservationContractFixture;
    let store: ObservationStore;

    beforeAll(async () => {
      fixture = await open();
      store = fixture.observations;
    }, 60_000);

    afterAll(async () => {
      await fixture.close();
    });

    it('keeps what it was given, per element and per instance, and overwrites it on a change', async () => {
      const { instanceId, elementIds } = await fixture.instance(2);
      const [first = '', second = ''] = elementIds;
      expect(await store.findMany(elementIds)).toEqual(new Map());
      await store.record(
        [
          { instanceId, elementId: first, observed: observed('Missing') },
          { instanceId, elementId: second, observed: observed('Healthy', ['/a', '/b~1c']) },
        ],
        [],
      );
      expect(await store.findMany([first])).toEqual(new Map([[first, observed('Missing')]]));
      expect(await store.ofInstance(instanceId)).toEqual({
        [first]: observed('Missing'),
        [second]: observed('Healthy', ['/a', '/b~1c']),
      });
      await store.record([{ instanceId, elementId: first, observed: observed('Degraded') }], []);
      expect((await store.findMany([first])).get(first)).toEqual(observed('Degraded'));
    });

    it('appends the events with the rows, into the ledger', async () => {
      const { instanceId, elementIds } = await fixture.instance(1);
      const elementId = elementIds[0] ?? '';
      const event: OperationEvent = {
        subjectId: instanceId,
        operationId: null,
        event: 'HEALTH_CHANGED',
        detail: { elementId, health: 'Missing', previous: 'Unknown', reason: 'gone' },
        actor: { kind: 'participant', participantId: instanceId, replicaId: null },
        at: 1_765_000_000_000,
      };
      await store.record([{ instanceId, elementId, observed: observed('Missing') }], [event]);
      expect(await fixture.events(instanceId)).toEqual([
        expect.objectContaining({ event: 'HEALTH_CHANGED', detail: event.detail }),
      ]);
    });

    it('counts the observed elements per health, and forgets an instance', async () => {
      const { instanceId, elementIds } = await fixture.instance(3);
      const before = await store.countByHealth();
      await store.record(
        elementIds.map((elementId, index) => ({
          instanceId,
          elementId,
          observed: observed(index === 0 ? 'Healthy' : 'Missing'),
        })),
        [],
      );
      const after = await store.countByHealth();
      expect(after.Healthy - before.Healthy).toBe(1);
      expect(after.Missing - before.Missing).toBe(2);
      await store.forgetInstance(instanceId);
      expect(await store.ofInstance(instanceId)).toEqual({});
      expect(await store.countByHealth()).toEqual(before);
    });
  });
}
