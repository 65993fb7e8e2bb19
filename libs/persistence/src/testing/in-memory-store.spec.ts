import {
  InMemoryUnitOfWork,
  describeAuditContract,
  describeRetentionContract,
  describeRolloutContract,
  describeStoreContract,
} from '@acm/persistence/testing';

describeStoreContract('InMemoryUnitOfWork', () => {
  const unitOfWork = new InMemoryUnitOfWork();
  return Promise.resolve({
    unitOfWork,
    queuedOutbox: () => Promise.resolve(unitOfWork.queuedRecords()),
    close: () => Promise.resolve(),
  });
});

describe('InMemoryUnitOfWork specifics', () => {
  it('forgets the outbox rows a relay deleted and keeps the others in order', async () => {
    const unitOfWork = new InMemoryUnitOfWork();
    await unitOfWork.transaction((store) =>
      store.outbox.add(['a', 'b', 'c'].map((value) => ({ topic: 'topic', key: null, value }))),
    );
    const [first, , third] = unitOfWork.queuedOutbox();
    await unitOfWork.deleteOutbox([first!.id, third!.id]);
    expect(unitOfWork.queuedOutbox().map((record) => record.value)).toEqual(['b']);
  });
});

describeRetentionContract('InMemoryUnitOfWork', () => {
  const unitOfWork = new InMemoryUnitOfWork();
  return Promise.resolve({ unitOfWork, retention: unitOfWork.retention(), close: () => Promise.resolve() });
});

describeAuditContract('InMemoryUnitOfWork', () => {
  const unitOfWork = new InMemoryUnitOfWork();
  return Promise.resolve({ unitOfWork, audit: unitOfWork.audit(), close: () => Promise.resolve() });
});

describeRolloutContract('InMemoryUnitOfWork', () => {
  const unitOfWork = new InMemoryUnitOfWork();
  return Promise.resolve({ unitOfWork, rollouts: unitOfWork.rollouts(), close: () => Promise.resolve() });
});
