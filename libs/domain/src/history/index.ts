export * from './actor';
export * from './history-events';
