export * from './data-source';
export { TypeOrmStore } from './typeorm-store';
export type { QueuedRecord } from './engine-repositories';
export { isTransientDatabaseError } from './transient-errors';
