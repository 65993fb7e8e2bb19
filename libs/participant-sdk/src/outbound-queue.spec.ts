import { InMemoryMessageBus, MessageBus } from '@acm/messaging';
import type { OutgoingRecord, SubscribeBatchOptions, SubscribeOptions, Subscription } from '@acm/messaging';
import { Participant } from '@acm/participant-sdk';
import { ScriptedRuntime, deployOrder, primeOrder } from '@acm/participant-sdk/testing';
import type { ParticipantLogLevel, RetryTimers } from '@acm/participant-sdk';
import type { TestElement } from '@acm/participant-sdk/testing';

import { OutboundQueue } from './outbound-queue';

/** Retry timers the test fires by hand; `delays` records what the queue asked for. */
class ManualRetryTimers implements RetryTimers {
  readonly delays: number[] = [];
  private pending = new Map<number, () => void>();
  private next = 0;

  setTimeout(callback: () => void, ms: number): unknown {
    this.next += 1;
    this.pending.set(this.next, callback);
    this.delays.push(ms);
    return this.next;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  get scheduled(): number {
    return this.pending.size;
  }

  /** Runs the due retries and lets the sends they start settle. */
  async fire(): Promise<void> {
    const due = [...this.pending.values()];
    this.pending.clear();
    due.forEach((callback) => callback());
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A broker double: takes records while up, refuses them while down. */
class FakeBroker {
  up = true;
  readonly taken: Array<{ topic: string; value: string }> = [];

  readonly send = (topic: string, records: readonly OutgoingRecord[]): Promise<void> => {
    if (!this.up) {
      return Promise.reject(new Error('broker unreachable'));
    }
    this.taken.push(...records.map((record) => ({ topic, value: record.value })));
    return Promise.resolve();
  };
}

const record = (value: string): OutgoingRecord => ({ key: 'k', value });

function recordingLogger(): {
  lines: Array<[ParticipantLogLevel, string]>;
  log: (l: ParticipantLogLevel, m: string) => void;
} {
  const lines: Array<[ParticipantLogLevel, string]> = [];
  return { lines, log: (level, message) => lines.push([level, message]) };
}

describe('OutboundQueue', () => {
  it('sends at once while the broker takes messages', async () => {
    const broker = new FakeBroker();
    const timers = new ManualRetryTimers();
    const queue = new OutboundQueue({ send: broker.send, logger: () => undefined, timers });

    await queue.publish('t', record('a'));
    await queue.publish('t', record('b'));

    expect(broker.taken.map((entry) => entry.value)).toEqual(['a', 'b']);
    expect(timers.scheduled).toBe(0);
    expect(queue.stats()).toEqual({ sent: 2, failedAttempts: 0, dropped: 0, waiting: 0 });
  });

  it('sends what is queued in one turn as one request, and what is queued during a send as the next', async () => {
    const broker = new FakeBroker();
    const sends: string[][] = [];
    const queue = new OutboundQueue({
      send: (topic, records) => {
        sends.push(records.map((entry) => entry.value));
        return broker.send(topic, records);
      },
      logger: () => undefined,
      timers: new ManualRetryTimers(),
    });

    const first = [queue.publish('t', record('info-1')), queue.publish('t', record('info-2'))];
    const ack = queue.publish('t', record('ack-1'));
    await Promise.all([...first, ack]);
    await queue.publish('t', record('later'));

    expect(sends).toEqual([['info-1', 'info-2', 'ack-1'], ['later']]);
    expect(queue.stats()).toEqual({ sent: 4, failedAttempts: 0, dropped: 0, waiting: 0 });
  });

  it('keeps what the broker refused and sends it, in order, once it is back, backing off meanwhile', async () => {
    const broker = new FakeBroker();
    const timers = new ManualRetryTimers();
    const logger = recordingLogger();
    const queue = new OutboundQueue({ send: broker.send, logger: logger.log, timers });

    broker.up = false;
    await queue.publish('acks', record('first'));
    await queue.publish('acks', record('second'));
    await queue.publish('status', record('third'));
    for (let attempt = 0; attempt < 8; attempt += 1) {
      await timers.fire();
    }
    expect(broker.taken).toEqual([]);
    expect(queue.stats()).toMatchObject({ sent: 0, waiting: 3, failedAttempts: 9 });
    // Doubling from 100 ms, capped at 5 s; one pending retry at a time.
    expect(timers.delays).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
    expect(timers.scheduled).toBe(1);
    expect(logger.lines.filter(([level]) => level === 'warn')).toHaveLength(1);

    broker.up = true;
    await timers.fire();
    expect(broker.taken).toEqual([
      { topic: 'acks', value: 'first' },
      { topic: 'acks', value: 'second' },
      { topic: 'status', value: 'third' },
    ]);
    expect(queue.stats()).toMatchObject({ sent: 3, waiting: 0, dropped: 0 });
    expect(logger.lines).toContainEqual(['info', 'Outbound messages are being delivered again']);

    // The backoff starts over after a recovery.
    broker.up = false;
    await queue.publish('acks', record('fourth'));
    expect(timers.delays.at(-1)).toBe(100);
  });

  it('queues behind waiting messages even when the broker is back, so the send order holds', async () => {
    const broker = new FakeBroker();
    const timers = new ManualRetryTimers();
    const queue = new OutboundQueue({ send: broker.send, logger: () => undefined, timers });

    broker.up = false;
    await queue.publish('t', record('old'));
    broker.up = true;
    await queue.publish('t', record('new'));
    expect(broker.taken).toEqual([]);
    await timers.fire();
    expect(broker.taken.map((entry) => entry.value)).toEqual(['old', 'new']);
  });

  it('drops the oldest past its capacity, counts every drop and logs the first as an error', async () => {
    const broker = new FakeBroker();
    const timers = new ManualRetryTimers();
    const logger = recordingLogger();
    const queue = new OutboundQueue({ send: broker.send, logger: logger.log, timers, capacity: 3 });

    broker.up = false;
    for (const value of ['m1', 'm2', 'm3', 'm4', 'm5']) {
      await queue.publish('t', record(value));
    }
    expect(queue.stats()).toMatchObject({ waiting: 3, dropped: 2 });
    expect(logger.lines.filter(([level]) => level === 'error')).toEqual([
      ['error', 'Outbound queue full: dropping the oldest waiting messages'],
    ]);

    broker.up = true;
    await timers.fire();
    expect(broker.taken.map((entry) => entry.value)).toEqual(['m3', 'm4', 'm5']);
  });

  it('stops retrying when closed and counts what still waited as dropped', async () => {
    const broker = new FakeBroker();
    const timers = new ManualRetryTimers();
    const queue = new OutboundQueue({ send: broker.send, logger: () => undefined, timers });

    broker.up = false;
    await queue.publish('t', record('never'));
    queue.close();
    expect(timers.scheduled).toBe(0);
    expect(queue.stats()).toMatchObject({ waiting: 0, dropped: 1 });
    await queue.publish('t', record('after close'));
    expect(queue.stats()).toMatchObject({ dropped: 2 });
  });
});

/** The participant's side of a bus whose broker can be taken down; delivery keeps working. */
class FlakyPublishBus extends MessageBus {
  down = false;

  constructor(private readonly inner: MessageBus) {
    super();
  }

  override publish(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    return this.down ? Promise.reject(new Error('broker unreachable')) : this.inner.publish(topic, records);
  }

  override subscribe(options: SubscribeOptions): Promise<Subscription> {
    return this.inner.subscribe(options);
  }

  override subscribeBatch(options: SubscribeBatchOptions): Promise<Subscription> {
    return this.inner.subscribeBatch(options);
  }

  override close(): Promise<void> {
    return Promise.resolve();
  }

  override ping(): Promise<void> {
    return this.down ? Promise.reject(new Error('broker unreachable')) : this.inner.ping();
  }

  override lag(topic: string, groupId: string): Promise<number> {
    return this.inner.lag(topic, groupId);
  }
}

/** Records each publish request the participant makes. */
class CountingBus extends FlakyPublishBus {
  readonly requests: string[][] = [];

  override publish(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    this.requests.push(records.map((entry) => /"messageType"\s*:\s*"([A-Z_]+)"/.exec(entry.value)?.[1] ?? '?'));
    return super.publish(topic, records);
  }
}

describe('Participant sends', () => {
  const P = '101c62b3-8918-41b9-a747-d21eb79c6c90';
  const COMPOSITION = 'c0c0c0c0-1111-4222-8333-444455556666';
  const INSTANCE = 'a1a1a1a1-2222-4333-8444-555566667777';
  const elements: TestElement[] = [
    {
      id: 'e1e1e1e1-3333-4444-8555-666677778881',
      definition: { name: 'onap.policy.clamp.ac.element.Sim_1', version: '1.2.3' },
    },
    {
      id: 'e1e1e1e1-3333-4444-8555-666677778882',
      definition: { name: 'onap.policy.clamp.ac.element.Sim_2', version: '1.2.3' },
    },
  ];

  it("sends the infos and acks of one order's elements in one request to the broker", async () => {
    const bus = new InMemoryMessageBus({ logger: () => undefined });
    const counting = new CountingBus(bus);
    const runtime = new ScriptedRuntime({ bus });
    await runtime.start();
    const participant = new Participant({
      participantId: P,
      supportedElementTypes: [
        { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' },
      ],
      bus: counting,
      handler: {
        deploy: async (ctx) => {
          await ctx.report.info({ outProperties: { InternalState: 'DEPLOYING' } });
          return { ok: true, outProperties: { InternalState: 'DEPLOYED' } };
        },
        undeploy: () => ({ ok: true }),
      },
      logger: () => undefined,
    });
    try {
      await participant.start();
      const prime = primeOrder({ participantId: P, compositionId: COMPOSITION, elements });
      await runtime.send(prime);
      await runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === prime.messageId);
      const deploy = deployOrder({
        participantId: P,
        compositionId: COMPOSITION,
        instanceId: INSTANCE,
        elements,
        startPhase: 0,
      });
      counting.requests.splice(0);
      await runtime.send(deploy);
      const acks = await runtime.waitForCount(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        2,
        (message) => message.responseTo === deploy.messageId,
      );
      expect(acks).toHaveLength(2);

      const carrying = counting.requests.filter((types) => types.includes('AUTOMATION_COMPOSITION_STATECHANGE_ACK'));
      expect(carrying).toEqual([
        [
          'PARTICIPANT_STATUS',
          'PARTICIPANT_STATUS',
          'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
          'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        ],
      ]);
    } finally {
      await participant.stop();
      await runtime.close();
      await bus.close();
    }
  });
});

describe('Participant during a broker outage', () => {
  const P = '101c62b3-8918-41b9-a747-d21eb79c6c90';
  const COMPOSITION = 'c0c0c0c0-1111-4222-8333-444455556666';
  const INSTANCE = 'a1a1a1a1-2222-4333-8444-555566667777';
  const element: TestElement = {
    id: 'e1e1e1e1-3333-4444-8555-666677778880',
    definition: { name: 'onap.policy.clamp.ac.element.Sim_0', version: '1.2.3' },
  };

  it('delivers an ACK finished while the broker refused publishes once the broker is back', async () => {
    const bus = new InMemoryMessageBus({ logger: () => undefined });
    const flaky = new FlakyPublishBus(bus);
    const runtime = new ScriptedRuntime({ bus });
    await runtime.start();
    const retryTimers = new ManualRetryTimers();
    let deployed!: () => void;
    const deployRan = new Promise<void>((resolve) => (deployed = resolve));
    const participant = new Participant({
      participantId: P,
      supportedElementTypes: [
        { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' },
      ],
      bus: flaky,
      handler: {
        deploy: () => {
          deployed();
          return { ok: true };
        },
        undeploy: () => ({ ok: true }),
      },
      logger: () => undefined,
      retryTimers,
    });
    try {
      await participant.start();
      const prime = primeOrder({ participantId: P, compositionId: COMPOSITION, elements: [element] });
      await runtime.send(prime);
      await runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === prime.messageId);

      flaky.down = true;
      const deploy = deployOrder({
        participantId: P,
        compositionId: COMPOSITION,
        instanceId: INSTANCE,
        elements: [element],
        startPhase: 0,
      });
      await runtime.send(deploy);
      await deployRan;
      const deadline = Date.now() + 5_000;
      while (retryTimers.scheduled === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(participant.outboundStats()).toMatchObject({ waiting: 1 });

      flaky.down = false;
      await retryTimers.fire();
      const ack = await runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (message) => message.responseTo === deploy.messageId,
      );
      expect(ack.automationCompositionResultMap?.[element.id]).toMatchObject({ deployState: 'DEPLOYED', result: true });
      expect(participant.outboundStats()).toMatchObject({ waiting: 0, dropped: 0 });
    } finally {
      await participant.stop();
      await runtime.close();
      await bus.close();
    }
  });
});
