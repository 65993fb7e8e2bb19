import { randomUUID } from 'node:crypto';

import { describeObservationContract } from '../contracts/observations.contract';
import { InMemoryObservationStore } from './observations';

describeObservationContract('InMemoryObservationStore', () => {
  const observations = new InMemoryObservationStore();
  return Promise.resolve({
    observations,
    instance: (count: number) =>
      Promise.resolve({ instanceId: randomUUID(), elementIds: Array.from({ length: count }, () => randomUUID()) }),
    events: (subjectId: string) =>
      Promise.resolve(observations.events.filter((event) => event.subjectId === subjectId)),
    close: () => Promise.resolve(),
  });
});
