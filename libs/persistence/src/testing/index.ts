/**
 * @acm/persistence/testing — the store's in-memory twin and the one contract suite every store adapter
 * passes. For tests only: the build leaves `testing/` out.
 */
export { InMemoryUnitOfWork } from './in-memory-store';
export type { InMemoryQueuedRecord } from './in-memory/database';
export { describeStoreContract } from './store.contract';
export type { StoreContractFixture, StoreContractOptions } from './store.contract';
export { NOT_DUE, definitionOf, elementOf, instanceOf, operationOf, participantOf, token } from './builders';
export { describeRetentionContract } from './retention.contract';
export type { RetentionContractFixture } from './retention.contract';
export { describeAuditContract } from './contracts/audit.contract';
export type { AuditContractFixture } from './contracts/audit.contract';
export { describeRolloutContract } from './rollout.contract';
export type { RolloutContractFixture } from './rollout.contract';
export { InMemoryRolloutStore } from './in-memory/rollouts';
export { describeSubscriptionContract } from './contracts/subscriptions.contract';
export type { SubscriptionContractFixture } from './contracts/subscriptions.contract';
export { InMemorySubscriptionStore } from './in-memory/subscriptions';
export { InMemoryObservationStore } from './in-memory/observations';
export { describeObservationContract } from './contracts/observations.contract';
export type { ObservationContractFixture } from './contracts/observations.contract';
export { describeWindowContract } from './contracts/windows.contract';
export type { WindowContractFixture } from './contracts/windows.contract';
export { InMemoryWindowStore } from './in-memory/windows';
