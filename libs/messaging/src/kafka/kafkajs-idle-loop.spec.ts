import {
  fixKafkajsIdleLoop,
  installKafkajsIdleLoopFix,
  loadKafkajsRequestQueue,
  type KafkajsRequestQueue,
  type KafkajsRequestQueueClass,
} from './kafkajs-idle-loop';

/** What the tests drive on kafkajs's RequestQueue beyond what the fix touches. */
interface DrivenQueue extends KafkajsRequestQueue {
  push(request: { entry: Record<string, unknown>; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(throttleTimeMs: number): void;
}

const silentLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A fresh copy of kafkajs's RequestQueue class, so the unfixed one can be compared with the fixed one. */
function freshRequestQueueClass(): { version: string; RequestQueue: KafkajsRequestQueueClass } {
  let loaded: ReturnType<typeof loadKafkajsRequestQueue> | undefined;
  jest.isolateModules(() => {
    loaded = loadKafkajsRequestQueue();
  });
  if (loaded === undefined) {
    throw new Error('kafkajs RequestQueue not loaded');
  }
  return loaded;
}

function queueOf(RequestQueue: KafkajsRequestQueueClass): DrivenQueue {
  return new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'idle-loop-spec',
    broker: 'localhost:9092',
    logger: silentLogger,
  }) as DrivenQueue;
}

function request(correlationId: number, sent: number[]) {
  return {
    entry: {
      correlationId,
      apiKey: 1,
      apiName: 'Fetch',
      apiVersion: 11,
      resolve: () => undefined,
      reject: () => undefined,
    },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  };
}

/** One request sent and answered: the queue is then idle, as a connection between fetches. */
function answerOneRequest(queue: DrivenQueue): void {
  const sent: number[] = [];
  queue.push(request(1, sent));
  queue.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
}

describe("kafkajs RequestQueue's idle timer loop", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('loops on an idle queue without the fix (the defect the fix removes)', () => {
    const { RequestQueue } = freshRequestQueueClass();
    const queue = queueOf(RequestQueue);
    const checks = jest.spyOn(queue, 'checkPendingRequests');

    answerOneRequest(queue);
    jest.advanceTimersByTime(100);

    expect(jest.getTimerCount()).toBe(1);
    expect(checks.mock.calls.length).toBeGreaterThan(50);
  });

  it('arms no timer on an idle queue with the fix', () => {
    const { version, RequestQueue } = freshRequestQueueClass();
    expect(fixKafkajsIdleLoop(version, RequestQueue)).toEqual({ applied: true, version });
    const queue = queueOf(RequestQueue);
    const checks = jest.spyOn(queue, 'checkPendingRequests');

    answerOneRequest(queue);
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(100);

    expect(checks).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('still sends requests held by a throttle when the throttle ends, with the fix', () => {
    const { version, RequestQueue } = freshRequestQueueClass();
    fixKafkajsIdleLoop(version, RequestQueue);
    const queue = queueOf(RequestQueue);
    const sent: number[] = [];

    queue.maybeThrottle(500);
    queue.push(request(7, sent));
    queue.push(request(8, sent));
    jest.advanceTimersByTime(400);
    expect(sent).toEqual([]);

    jest.advanceTimersByTime(200);
    expect(sent).toEqual([7, 8]);
    queue.fulfillRequest({ correlationId: 7, payload: Buffer.alloc(0), size: 0 });
    queue.fulfillRequest({ correlationId: 8, payload: Buffer.alloc(0), size: 0 });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('leaves another kafkajs version or an unknown method alone', () => {
    const { RequestQueue } = freshRequestQueueClass();
    expect(fixKafkajsIdleLoop('2.3.0', RequestQueue)).toMatchObject({ applied: false, version: '2.3.0' });

    const changed = freshRequestQueueClass().RequestQueue;
    changed.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests() {
      return undefined;
    };
    expect(fixKafkajsIdleLoop('2.2.4', changed)).toMatchObject({
      applied: false,
      reason: expect.stringContaining('not the known method'),
    });
  });

  it('is applied by building a KafkaMessageBus, as the runtime and every SDK participant do', () => {
    let RequestQueue: KafkajsRequestQueueClass | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { KafkaMessageBus } = require('./kafka-message-bus') as typeof import('./kafka-message-bus');
      // Built, not connected: the producer and consumers connect on first use.
      new KafkaMessageBus({ brokers: ['127.0.0.1:1'], logger: () => undefined });
      RequestQueue = loadKafkajsRequestQueue().RequestQueue;
    });
    const queue = queueOf(RequestQueue!);

    answerOneRequest(queue);

    expect(jest.getTimerCount()).toBe(0);
  });

  it('fixes the kafkajs this process loads', () => {
    expect(installKafkajsIdleLoopFix()).toEqual({ applied: true, version: '2.2.4' });
  });
});
