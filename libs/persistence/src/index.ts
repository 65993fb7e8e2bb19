export * from './data-source';
export { TypeOrmStore } from './typeorm-store';
