import { describeSubscriptionContract } from '../contracts/subscriptions.contract';
import { InMemorySubscriptionStore } from './subscriptions';

describeSubscriptionContract('InMemorySubscriptionStore', () =>
  Promise.resolve({
    subscriptions: new InMemorySubscriptionStore(),
    close: () => Promise.resolve(),
  }),
);
