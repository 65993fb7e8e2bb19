import { describeSubscriptionContract } from '../contracts/subscriptions.contract';
import { InMemorySubscriptionStore } from './subscriptions';

describeSubscriptionContract('InMemorySubscriptionStore', async () => ({
  subscriptions: new InMemorySubscriptionStore(),
  close: async () => undefined,
}));
