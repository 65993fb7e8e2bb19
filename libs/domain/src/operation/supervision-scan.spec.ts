import { IDLE_SCAN_CAP_MS, idleScanPeriodMs, nextScanDelayMs } from './supervision-scan';

describe('the supervision scan period', () => {
  const defaults = { heartBeatMs: 5_000, maxStatusWaitMs: 150_000 };

  it('is the heartbeat while work is in flight', () => {
    expect(nextScanDelayMs(defaults, true)).toBe(5_000);
  });

  it('stretches to a fifth of the silence a replica is allowed when nothing is in flight', () => {
    expect(nextScanDelayMs(defaults, false)).toBe(30_000);
  });

  it('never sleeps longer than six heartbeats', () => {
    expect(idleScanPeriodMs({ heartBeatMs: 100, maxStatusWaitMs: 150_000 })).toBe(600);
  });

  it('never sleeps longer than the cap, nor shorter than the heartbeat', () => {
    expect(idleScanPeriodMs({ heartBeatMs: 20_000, maxStatusWaitMs: 3_600_000 })).toBe(IDLE_SCAN_CAP_MS);
    expect(idleScanPeriodMs({ heartBeatMs: 5_000, maxStatusWaitMs: 2_000 })).toBe(5_000);
    expect(idleScanPeriodMs({ heartBeatMs: 3_600_000, maxStatusWaitMs: 150_000 })).toBe(3_600_000);
  });
});
