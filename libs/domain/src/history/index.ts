export * from './actor';
export * from './history-events';
export * from './audit';
