export * from './data-source';
export { asStoreUnavailable, describeStoreFailure, isDatabaseUnavailable } from './database-unavailable';
export type { StoreFailure, StoreFailureCause } from './database-unavailable';
export { TypeOrmStore } from './typeorm-store';
export { TypeOrmRetentionStore } from './retention-store';
export type { QueuedRecord } from './engine-repositories';
export { isTransientDatabaseError } from './transient-errors';
export { readEngineGauges } from './engine-gauges';
export type { EngineGauges } from './engine-gauges';
