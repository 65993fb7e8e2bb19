import type { MessageBus } from '@acm/messaging';

import type { RuntimeConfig } from '../config/runtime.config';
import type { ParticipantProtocolService } from '../application/participant-protocol.service';
import type { OperationSupervisor } from '../engine/operation-supervisor';
import type { ParallelSlots } from '../engine/parallel-slots';
import type { OutboxRelay } from '../messaging/outbox-relay';
import type { HistoryRetention } from './history-retention';
import { SupervisionScheduler } from './supervision.scheduler';
import type { SupervisionTimer } from './supervision-timer';
import { DueTimeNudge } from './supervision-timer';

/**
 * The scan's period, on fake timers: each pass is counted by its silent-replica check; whether work is in flight is
 * what the timer's refresh (its read of the earliest due time) answers.
 */
function scheduler(inFlight: { value: boolean }) {
  const passes = { count: 0 };
  const nudge = new DueTimeNudge();
  const config = { heartBeatMs: 5_000, maxStatusWaitMs: 150_000 } as RuntimeConfig;
  const supervisor = {
    timeOutOverdue: () => Promise.resolve(0),
    superviseRunning: () => Promise.resolve(0),
    handOverLostWork: () => Promise.resolve(0),
    handOverAfterProbes: () => Promise.resolve(0),
    resendAfterBrokerLoss: () => Promise.resolve(0),
  } as unknown as OperationSupervisor;
  const participants = {
    markSilentReplicas: () => {
      passes.count += 1;
      return Promise.resolve([]);
    },
  } as unknown as ParticipantProtocolService;
  const relay = { kick: () => undefined } as unknown as OutboxRelay;
  const bus = { onRecordsLost: () => () => undefined } as unknown as MessageBus;
  const slots = { fill: () => Promise.resolve(0) } as unknown as ParallelSlots;
  const retention = { kick: () => undefined } as unknown as HistoryRetention;
  const timer = {
    refresh: () => Promise.resolve(inFlight.value),
    stop: () => Promise.resolve(undefined),
  } as unknown as SupervisionTimer;
  const scan = new SupervisionScheduler(config, supervisor, participants, relay, bus, slots, retention, timer, nudge);
  return { scan, passes, nudge };
}

describe('SupervisionScheduler period', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('scans every heartbeat while an operation is in flight', async () => {
    const { scan, passes } = scheduler({ value: true });
    scan.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(15_000);
    expect(passes.count).toBe(3);
    await scan.stop();
  });

  it('sleeps the idle period when nothing is in flight, and scans again when work starts', async () => {
    const inFlight = { value: false };
    const { scan, passes } = scheduler(inFlight);
    scan.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(passes.count).toBe(1);
    await jest.advanceTimersByTimeAsync(29_000);
    expect(passes.count).toBe(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(passes.count).toBe(2);
    inFlight.value = true;
    await jest.advanceTimersByTimeAsync(30_000);
    expect(passes.count).toBe(3);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(passes.count).toBe(4);
    await scan.stop();
  });

  it('is woken from the idle sleep within a heartbeat by a commit that writes a due time', async () => {
    const inFlight = { value: false };
    const { scan, passes, nudge } = scheduler(inFlight);
    scan.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(5_000);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(passes.count).toBe(1);
    inFlight.value = true;
    nudge.committed([], [], [Date.now() + 200_000]);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(passes.count).toBe(2);
    await scan.stop();
  });

  it('stops scanning when stopped', async () => {
    const { scan, passes } = scheduler({ value: true });
    scan.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(5_000);
    await scan.stop();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(passes.count).toBe(1);
  });
});
