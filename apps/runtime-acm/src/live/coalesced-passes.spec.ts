import { CoalescedPasses } from './coalesced-passes';

/** A pass that stays open until the test lets it end. */
function gatedPass(): { pass: () => Promise<void>; release: () => void; started: () => number } {
  let count = 0;
  let release: () => void = () => undefined;
  return {
    pass: () => {
      count += 1;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
    started: () => count,
  };
}

async function settled(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('CoalescedPasses', () => {
  it('runs one more pass after the running one, however many wakes came during it', async () => {
    const gate = gatedPass();
    const passes = new CoalescedPasses(gate.pass, () => undefined);
    passes.wake();
    passes.wake();
    passes.wake();
    expect(gate.started()).toBe(1);
    gate.release();
    await settled();
    expect(gate.started()).toBe(2);
    gate.release();
    await settled();
    expect(gate.started()).toBe(2);
  });

  it('ends the round on a failure, reports it, and starts again on the next wake', async () => {
    const failures: string[] = [];
    let calls = 0;
    const passes = new CoalescedPasses(
      () => {
        calls += 1;
        return Promise.reject(new Error(`away ${calls}`));
      },
      (error) => failures.push(error.message),
    );
    passes.wake();
    passes.wake();
    await settled();
    expect(failures).toEqual(['away 1']);
    passes.wake();
    await settled();
    expect(failures).toEqual(['away 1', 'away 2']);
  });

  it('starts nothing after stop and resolves once the running pass ended', async () => {
    const gate = gatedPass();
    const passes = new CoalescedPasses(gate.pass, () => undefined);
    passes.wake();
    passes.wake();
    let stopped = false;
    const stopping = passes.stop().then(() => {
      stopped = true;
    });
    await settled();
    expect(stopped).toBe(false);
    gate.release();
    await stopping;
    passes.wake();
    expect(gate.started()).toBe(1);
  });
});
