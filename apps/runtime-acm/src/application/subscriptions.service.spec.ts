import { EventFeed } from '@acm/domain';
import type { FeedEvent } from '@acm/domain';
import { InMemorySubscriptionStore } from '@acm/persistence/testing';
import { loadRuntimeConfig } from '../config/runtime.config';
import { SubscriptionsService } from './subscriptions.service';

class StillFeed extends EventFeed {
  override stamp(): Promise<number> {
    return Promise.resolve(0);
  }
  override after(): Promise<FeedEvent[]> {
    return Promise.resolve([]);
  }
  override head(): Promise<number> {
    return Promise.resolve(17);
  }
}

function service(env: Record<string, string>): SubscriptionsService {
  let id = 0;
  return new SubscriptionsService(
    new InMemorySubscriptionStore(),
    new StillFeed(),
    { now: () => 1_000 },
    { uuid: () => `00000000-0000-4000-8000-${String(++id).padStart(12, '0')}` },
    loadRuntimeConfig({ PORT: '6969', ...env }, false),
  );
}

const refusal = async (subscriptions: SubscriptionsService, body: unknown): Promise<string> =>
  subscriptions.create(body).then(
    () => 'accepted',
    (error: Error) => error.message,
  );

describe('SubscriptionsService.create', () => {
  it('refuses the runtime itself: its port on this machine, or its PUBLIC_URL origin', async () => {
    const subscriptions = service({ PUBLIC_URL: 'https://acm.example.com/base' });
    for (const url of ['http://127.0.0.1:6969/x', 'http://[::1]:6969/x', 'https://acm.example.com/hook']) {
      expect(await refusal(subscriptions, { url })).toBe(
        'url: points at this runtime itself; a subscription must post to another service',
      );
    }
    expect(await refusal(subscriptions, { url: 'http://127.0.0.1:7000/hook' })).toBe('accepted');
    expect(await refusal(subscriptions, { url: 'https://acm.example.com:8443/hook' })).toBe('accepted');
  });

  it('starts a subscription at the feed head and names an unknown field', async () => {
    const subscriptions = service({});
    const created = await subscriptions.create({ url: 'https://hooks.example.com/x' });
    expect(created.delivery.position).toBe(17);
    expect(created.subscription.format).toBe('cloudevents');
    expect(await refusal(subscriptions, { url: 'https://hooks.example.com/x', headers: {} })).toMatch(
      /^headers: unknown field/,
    );
    expect(await refusal(subscriptions, [])).toMatch(/^The body must be/);
  });
});
