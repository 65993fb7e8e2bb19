import { describeWindowContract } from '../contracts/windows.contract';
import { InMemoryWindowStore } from './windows';

describeWindowContract('InMemoryWindowStore', () =>
  Promise.resolve({
    windows: new InMemoryWindowStore(),
    close: () => Promise.resolve(),
  }),
);
