import { InMemoryUnitOfWork, describeStoreContract } from '@acm/persistence/testing';

describeStoreContract('InMemoryUnitOfWork', () => {
  const unitOfWork = new InMemoryUnitOfWork();
  return Promise.resolve({
    unitOfWork,
    queuedOutbox: () =>
      Promise.resolve(unitOfWork.queuedOutbox().map(({ topic, key, value }) => ({ topic, key, value }))),
    close: () => Promise.resolve(),
  });
});
