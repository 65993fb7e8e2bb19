/**
 * The one behavioural contract of the MessageBus port, run against every adapter (in-memory in the unit
 * project, Kafka in the integration project) so they cannot drift apart. Every test uses fresh random
 * topic and group names and waits on events, never on fixed sleeps, except to show that something
 * did NOT happen, where a barrier record is used first.
 */
import { randomUUID } from 'node:crypto';

import type { IncomingRecord, MessageBus, OutgoingRecord, SubscribeBatchOptions, Subscription } from '../message-bus';

/** What the suite needs from an adapter under test. */
export interface MessageBusContractFixture {
  bus: MessageBus;
  /** Creates a topic with this many partitions (adapter-specific; not part of the port). */
  createTopic(topic: string, partitions: number): Promise<void>;
}

export interface MessageBusContractOptions {
  /** How long to wait for expected records. Default 15 s. */
  receiveTimeoutMs?: number;
  /** Timeout of each test and hook (jest ignores per-project `testTimeout`). Default 60 s. */
  testTimeoutMs?: number;
}

/** Collects delivered records and lets a test wait for a count. */
class Inbox {
  readonly records: IncomingRecord[] = [];
  private waiters: Array<() => void> = [];

  readonly handler = (record: IncomingRecord): Promise<void> => {
    this.records.push(record);
    this.notify();
    return Promise.resolve();
  };

  push(record: IncomingRecord): void {
    this.records.push(record);
    this.notify();
  }

  values(): string[] {
    return this.records.map((record) => record.value);
  }

  async waitFor(predicate: (records: IncomingRecord[]) => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.records)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}; got ${JSON.stringify(this.values())}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(remaining, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  waitForCount(count: number, timeoutMs: number): Promise<void> {
    return this.waitFor((records) => records.length >= count, timeoutMs, `${count} records`);
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) {
      wake();
    }
  }
}

const unique = (prefix: string): string => `${prefix}-${randomUUID()}`;
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `accept` takes its value; fails with the last value once `timeoutMs` passed. */
async function until<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    }
    await delay(50);
  }
}

/** Registers the contract suite for one adapter. `factory` is called once per test. */
export function describeMessageBusContract(
  name: string,
  factory: () => Promise<MessageBusContractFixture>,
  options: MessageBusContractOptions = {},
): void {
  const timeout = options.receiveTimeoutMs ?? 15_000;
  const testTimeout = options.testTimeoutMs ?? 60_000;
  const it = (title: string, body: () => Promise<void>): void => test(title, body, testTimeout);

  describe(`MessageBus contract: ${name}`, () => {
    let fixture: MessageBusContractFixture;
    let bus: MessageBus;
    const subscriptions: Subscription[] = [];

    const subscribe = async (
      topic: string,
      groupId: string,
      handler: (record: IncomingRecord) => Promise<void>,
      fromBeginning?: boolean,
      isTransientFailure?: (error: unknown) => boolean,
    ): Promise<Subscription> => {
      const subscription = await bus.subscribe({ topic, groupId, handler, fromBeginning, isTransientFailure });
      subscriptions.push(subscription);
      return subscription;
    };

    const subscribeBatch = async (options: SubscribeBatchOptions): Promise<Subscription> => {
      const subscription = await bus.subscribeBatch(options);
      subscriptions.push(subscription);
      return subscription;
    };

    /** Publishes 1-partition topic records before the group exists, so the first fetch finds them all ready. */
    const readyTopic = async (prefix: string, values: readonly string[]): Promise<string> => {
      const topic = unique(prefix);
      await fixture.createTopic(topic, 1);
      await bus.publish(
        topic,
        values.map((value) => ({ key: 'same', value })),
      );
      return topic;
    };

    beforeEach(async () => {
      fixture = await factory();
      bus = fixture.bus;
    }, testTimeout);

    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((subscription) => subscription.close()));
      await bus.close();
    }, testTimeout);

    it('delivers a published record with its key, value, headers and position', async () => {
      const topic = unique('contract-basic');
      const inbox = new Inbox();
      await subscribe(topic, unique('group'), inbox.handler);

      await bus.publish(topic, [{ key: 'k1', value: '{"hello":"world"}', headers: { 'x-trace': 't1' } }]);
      await inbox.waitForCount(1, timeout);

      const [record] = inbox.records;
      expect(record).toMatchObject({ topic, key: 'k1', value: '{"hello":"world"}', headers: { 'x-trace': 't1' } });
      expect(Number.isInteger(record!.partition)).toBe(true);
      expect(record!.offset).toMatch(/^\d+$/);
      expect(record!.timestamp).toMatch(/^\d+$/);
      expect(Math.abs(Number(record!.timestamp) - Date.now())).toBeLessThan(60_000);
    });

    it('delivers every header of a record as it was sent, and none to a record sent without', async () => {
      const topic = unique('contract-headers');
      const inbox = new Inbox();
      await subscribe(topic, unique('group'), inbox.handler);
      // What a signed record carries beside a trace context: a principal, a time and a base64url signature.
      const headers = {
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        'acm-principal': 'User:participant-ä',
        'acm-signed-at': '1760000000000',
        'acm-signature': 'v1=Xy-_0aZ9Xy-_0aZ9Xy-_0aZ9Xy-_0aZ9Xy-_0aZ9Xy-',
      };

      await bus.publish(topic, [
        { key: 'k', value: 'signed', headers },
        { key: 'k', value: 'plain' },
      ]);
      await inbox.waitForCount(2, timeout);

      expect(inbox.records.map((record) => [record.value, record.headers])).toEqual([
        ['signed', headers],
        ['plain', {}],
      ]);
    });

    it('delivers records without a key', async () => {
      const topic = unique('contract-nokey');
      const inbox = new Inbox();
      await subscribe(topic, unique('group'), inbox.handler);

      await bus.publish(topic, [
        { key: null, value: 'a' },
        { key: null, value: 'b' },
      ]);
      await inbox.waitForCount(2, timeout);
      expect(inbox.values().sort()).toEqual(['a', 'b']);
      expect(inbox.records.every((record) => record.key === null)).toBe(true);
    });

    it('gives every record to each group', async () => {
      const topic = unique('contract-groups');
      await fixture.createTopic(topic, 3);
      const first = new Inbox();
      const second = new Inbox();
      await subscribe(topic, unique('group-a'), first.handler);
      await subscribe(topic, unique('group-b'), second.handler);

      const values = Array.from({ length: 10 }, (_, index) => `v${index}`);
      await bus.publish(
        topic,
        values.map((value, index) => ({ key: `key-${index}`, value })),
      );
      await first.waitForCount(10, timeout);
      await second.waitForCount(10, timeout);
      expect(first.values().sort()).toEqual([...values].sort());
      expect(second.values().sort()).toEqual([...values].sort());
    });

    it('gives each record to exactly one member of a group, and shares partitions between members', async () => {
      const topic = unique('contract-members');
      await fixture.createTopic(topic, 4);
      const groupId = unique('group');
      const inboxes = [new Inbox(), new Inbox()];
      for (const inbox of inboxes) {
        await subscribe(topic, groupId, inbox.handler);
      }

      const count = 40;
      await bus.publish(
        topic,
        Array.from({ length: count }, (_, index) => ({ key: `key-${index}`, value: `v${index}` })),
      );
      const all = (): string[] => inboxes.flatMap((inbox) => inbox.values());
      await inboxes[0]!.waitFor(() => all().length >= count, timeout, `${count} records over both members`);
      await delay(300);

      expect(all()).toHaveLength(count);
      expect(new Set(all()).size).toBe(count);
      expect(inboxes.every((inbox) => inbox.records.length > 0)).toBe(true);
      // A partition is owned by one member at a time.
      const owners = new Map<number, Set<number>>();
      inboxes.forEach((inbox, member) => {
        for (const record of inbox.records) {
          owners.set(record.partition, (owners.get(record.partition) ?? new Set()).add(member));
        }
      });
      expect([...owners.values()].every((members) => members.size === 1)).toBe(true);
    });

    it('keeps the publish order of 100 records per key while handling keys in parallel', async () => {
      const topic = unique('contract-order');
      await fixture.createTopic(topic, 4);
      const keys = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
      const seen = new Map<string, number[]>();
      const inbox = new Inbox();
      let active = 0;
      let maxActive = 0;
      await subscribe(topic, unique('group'), async (record) => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        // Uneven, asynchronous work: any reordering within a key would show.
        await delay((Number(record.value.split(':')[1]) * 7) % 3);
        const sequence = seen.get(record.key ?? '') ?? [];
        sequence.push(Number(record.value.split(':')[1]));
        seen.set(record.key ?? '', sequence);
        active -= 1;
        inbox.push(record);
      });

      const records: OutgoingRecord[] = Array.from({ length: 100 }, (_, index) => ({
        key: keys[index % keys.length]!,
        value: `${keys[index % keys.length]!}:${index}`,
      }));
      for (let start = 0; start < records.length; start += 10) {
        await bus.publish(topic, records.slice(start, start + 10));
      }
      await inbox.waitForCount(100, timeout);

      for (const key of keys) {
        const sequence = seen.get(key) ?? [];
        expect(sequence).toHaveLength(20);
        expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
      }
      expect(maxActive).toBeGreaterThanOrEqual(1);
    });

    it('logs and skips a record whose handler throws; the next record of the key still arrives', async () => {
      const topic = unique('contract-throw');
      const groupId = unique('group');
      const inbox = new Inbox();
      let poisonDeliveries = 0;
      const handler = (record: IncomingRecord): Promise<void> => {
        if (record.value === 'poison') {
          poisonDeliveries += 1;
          return Promise.reject(new Error('handler failure on purpose'));
        }
        if (record.value === 'sync-throw') {
          throw new Error('synchronous handler failure on purpose');
        }
        inbox.push(record);
        return Promise.resolve();
      };
      const first = await subscribe(topic, groupId, handler);

      await bus.publish(topic, [
        { key: 'same', value: 'poison' },
        { key: 'same', value: 'sync-throw' },
        { key: 'same', value: 'after' },
      ]);
      await inbox.waitForCount(1, timeout);
      expect(inbox.values()).toEqual(['after']);
      expect(poisonDeliveries).toBe(1);

      // The failed records were committed: the group does not see them again after re-subscribing.
      await first.close();
      await subscribe(topic, groupId, handler);
      await bus.publish(topic, [{ key: 'same', value: 'later' }]);
      await inbox.waitForCount(2, timeout);
      expect(inbox.values()).toEqual(['after', 'later']);
      expect(poisonDeliveries).toBe(1);
    });

    it('retries a record whose handler fails transiently until it applies, keeping the key order', async () => {
      const topic = unique('contract-transient');
      const inbox = new Inbox();
      const attempts = new Map<string, number>();
      const transient = new Error('dependency unavailable on purpose');
      const handler = (record: IncomingRecord): Promise<void> => {
        const attempt = (attempts.get(record.value) ?? 0) + 1;
        attempts.set(record.value, attempt);
        if (record.value === 'flaky' && attempt <= 3) {
          return Promise.reject(transient);
        }
        if (record.value === 'bad') {
          return Promise.reject(new Error('permanent failure on purpose'));
        }
        inbox.push(record);
        return Promise.resolve();
      };
      await subscribe(topic, unique('group'), handler, false, (error) => error === transient);

      await bus.publish(topic, [
        { key: 'same', value: 'flaky' },
        { key: 'same', value: 'bad' },
        { key: 'same', value: 'after' },
      ]);
      await inbox.waitForCount(2, timeout);
      expect(inbox.values()).toEqual(['flaky', 'after']);
      expect(Object.fromEntries(attempts)).toEqual({ flaky: 4, bad: 1, after: 1 });
    });

    it('leaves a record being retried uncommitted when the subscription closes; the group resumes at it', async () => {
      const topic = unique('contract-transient-close');
      const groupId = unique('group');
      const transient = new Error('dependency unavailable on purpose');
      let failedAttempts = 0;
      const alwaysFailing = (): Promise<void> => {
        failedAttempts += 1;
        return Promise.reject(transient);
      };
      const first = await subscribe(topic, groupId, alwaysFailing, false, (error) => error === transient);
      await bus.publish(topic, [
        { key: 'same', value: 'pending' },
        { key: 'same', value: 'next' },
      ]);
      const deadline = Date.now() + timeout;
      while (failedAttempts < 2 && Date.now() < deadline) {
        await delay(20);
      }
      expect(failedAttempts).toBeGreaterThanOrEqual(2);
      await first.close();

      const inbox = new Inbox();
      await subscribe(topic, groupId, inbox.handler);
      await inbox.waitForCount(2, timeout);
      expect(inbox.values()).toEqual(['pending', 'next']);
    });

    it('stops delivering to a closed subscription', async () => {
      const topic = unique('contract-close');
      const closed = new Inbox();
      const barrier = new Inbox();
      const subscription = await subscribe(topic, unique('group-closed'), closed.handler);
      await subscribe(topic, unique('group-barrier'), barrier.handler);

      await bus.publish(topic, [{ key: 'k', value: 'before' }]);
      await closed.waitForCount(1, timeout);
      await subscription.close();
      await subscription.close(); // idempotent

      await bus.publish(topic, [{ key: 'k', value: 'after' }]);
      await barrier.waitForCount(2, timeout);
      await delay(300);
      expect(closed.values()).toEqual(['before']);
    });

    it('refuses to publish or subscribe once the bus is closed', async () => {
      await bus.close();
      await expect(bus.publish(unique('contract-closed'), [{ key: null, value: 'x' }])).rejects.toThrow();
      await expect(
        bus.subscribe({ topic: unique('contract-closed'), groupId: unique('group'), handler: () => Promise.resolve() }),
      ).rejects.toThrow();
    });

    it('starts a new group at the end of the topic unless asked to start from the beginning', async () => {
      const topic = unique('contract-start');
      await bus.publish(topic, [{ key: 'k', value: 'old' }]);

      const latest = new Inbox();
      const earliest = new Inbox();
      await subscribe(topic, unique('group-latest'), latest.handler);
      await subscribe(topic, unique('group-earliest'), earliest.handler, true);
      await bus.publish(topic, [{ key: 'k', value: 'new' }]);

      await latest.waitForCount(1, timeout);
      await earliest.waitForCount(2, timeout);
      expect(latest.values()).toEqual(['new']);
      expect(earliest.values()).toEqual(['old', 'new']);
    });

    it('delivers values as opaque strings: non-JSON, empty and non-ASCII values arrive unchanged', async () => {
      const topic = unique('contract-opaque');
      const inbox = new Inbox();
      await subscribe(topic, unique('group'), inbox.handler);
      const values = ['{not json', '', 'héllo ✓ 🚀', '{"messageType":"PARTICIPANT_STATUS"}'];

      await bus.publish(
        topic,
        values.map((value) => ({ key: 'same', value })),
      );
      await inbox.waitForCount(values.length, timeout);
      expect(inbox.values()).toEqual(values);
    });

    it('answers a ping while open and refuses once closed', async () => {
      await expect(bus.ping()).resolves.toBeUndefined();
      await bus.close();
      await expect(bus.ping()).rejects.toThrow();
    });

    it('reports the records a group has not handled yet as its lag, and none once they are handled', async () => {
      const topic = unique('contract-lag');
      const groupId = unique('group-lag');
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const inbox = new Inbox();
      await subscribe(topic, groupId, async (record) => {
        await held;
        await inbox.handler(record);
      });
      await bus.publish(topic, [
        { key: 'k', value: '1' },
        { key: 'k', value: '2' },
        { key: 'k', value: '3' },
      ]);
      // The first record is held in its handler, so none of the three is committed.
      await until(
        () => bus.lag(topic, groupId),
        (lag) => lag === 3,
        timeout,
      );
      release();
      await inbox.waitForCount(3, timeout);
      await until(
        () => bus.lag(topic, groupId),
        (lag) => lag === 0,
        timeout,
      );
      expect(await bus.lag(topic, unique('group-unknown'))).toBe(0);
    });

    it('subscribeBatch hands over the ready records of a partition together, in publish order', async () => {
      const values = Array.from({ length: 50 }, (_, index) => `r${index}`);
      const topic = await readyTopic('contract-batch', values);
      const inbox = new Inbox();
      const sizes: number[] = [];
      await subscribeBatch({
        topic,
        groupId: unique('group'),
        fromBeginning: true,
        handler: (records) => {
          sizes.push(records.length);
          records.forEach((record) => inbox.push(record));
          return Promise.resolve();
        },
      });
      await inbox.waitForCount(50, timeout);
      expect(inbox.values()).toEqual(values);
      expect(inbox.records.map((record) => Number(record.offset))).toEqual(values.map((_, index) => index));
      expect(Math.max(...sizes)).toBeGreaterThan(1);

      // Published after the subscription: delivered too.
      await bus.publish(topic, [{ key: 'same', value: 'later' }]);
      await inbox.waitForCount(51, timeout);
      expect(inbox.values().at(-1)).toBe('later');
    });

    it('subscribeBatch retries a transiently failed batch whole and commits none of it before it applies', async () => {
      const topic = await readyTopic('contract-batch-transient', ['a', 'b', 'c']);
      const groupId = unique('group');
      const transient = new Error('dependency unavailable on purpose');
      const attempts: string[][] = [];
      const inbox = new Inbox();
      const first = await subscribeBatch({
        topic,
        groupId,
        fromBeginning: true,
        isTransientFailure: (error) => error === transient,
        handler: (records) => {
          attempts.push(records.map((record) => record.value));
          if (attempts.length <= 2) {
            return Promise.reject(transient);
          }
          records.forEach((record) => inbox.push(record));
          return Promise.resolve();
        },
      });
      await inbox.waitForCount(3, timeout);
      expect(inbox.values()).toEqual(['a', 'b', 'c']);
      // The first batch was handed over again as it was, never split.
      expect(attempts[1]).toEqual(attempts[0]);
      expect(attempts[2]!.slice(0, attempts[0]!.length)).toEqual(attempts[0]);

      // Applied means committed: the group resumes after them.
      await first.close();
      const again = new Inbox();
      await subscribeBatch({
        topic,
        groupId,
        handler: (records) => {
          records.forEach((record) => again.push(record));
          return Promise.resolve();
        },
      });
      await bus.publish(topic, [{ key: 'same', value: 'later' }]);
      await again.waitForCount(1, timeout);
      expect(again.values()).toEqual(['later']);
    });

    it('subscribeBatch skips and reports only the record that can never apply, and commits past it', async () => {
      const topic = await readyTopic('contract-batch-poison', ['a', 'poison', 'b']);
      const groupId = unique('group');
      const inbox = new Inbox();
      const skipped: string[] = [];
      const transient = new Error('never thrown here');
      const handler = (records: readonly IncomingRecord[]): Promise<void> => {
        if (records.some((record) => record.value === 'poison')) {
          return Promise.reject(new Error('permanent failure on purpose'));
        }
        records.forEach((record) => inbox.push(record));
        return Promise.resolve();
      };
      const first = await subscribeBatch({
        topic,
        groupId,
        fromBeginning: true,
        isTransientFailure: (error) => error === transient,
        handler,
        onSkipped: (record) => skipped.push(record.value),
      });
      await inbox.waitForCount(2, timeout);
      expect(inbox.values()).toEqual(['a', 'b']);
      expect(skipped).toEqual(['poison']);

      await first.close();
      await subscribeBatch({ topic, groupId, handler, onSkipped: (record) => skipped.push(record.value) });
      await bus.publish(topic, [{ key: 'same', value: 'later' }]);
      await inbox.waitForCount(3, timeout);
      expect(inbox.values()).toEqual(['a', 'b', 'later']);
      expect(skipped).toEqual(['poison']);
    });

    it('subscribeBatch leaves a batch being retried uncommitted when closed; the group resumes at it', async () => {
      const topic = await readyTopic('contract-batch-close', ['pending', 'next']);
      const groupId = unique('group');
      const transient = new Error('dependency unavailable on purpose');
      let failedAttempts = 0;
      const first = await subscribeBatch({
        topic,
        groupId,
        fromBeginning: true,
        isTransientFailure: (error) => error === transient,
        handler: () => {
          failedAttempts += 1;
          return Promise.reject(transient);
        },
      });
      const deadline = Date.now() + timeout;
      while (failedAttempts < 2 && Date.now() < deadline) {
        await delay(20);
      }
      expect(failedAttempts).toBeGreaterThanOrEqual(2);
      await first.close();

      // fromBeginning applies only to a group with no committed position: had the batch been committed, the
      // group would resume after it.
      const inbox = new Inbox();
      await subscribeBatch({
        topic,
        groupId,
        fromBeginning: true,
        handler: (records) => {
          records.forEach((record) => inbox.push(record));
          return Promise.resolve();
        },
      });
      await inbox.waitForCount(2, timeout);
      expect(inbox.values()).toEqual(['pending', 'next']);
    });

    it('refuses invalid topic names', async () => {
      await expect(bus.publish('bad topic!', [{ key: null, value: 'x' }])).rejects.toThrow(/topic/i);
    });
  });
}
