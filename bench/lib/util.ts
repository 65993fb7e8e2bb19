import { performance } from 'node:perf_hooks';

const started = performance.now();

/** A progress line on stderr, prefixed with the seconds since the benchmark started. */
export function log(message: string): void {
  process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)}s] ${message}\n`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` every `periodMs` until it returns true; throws after `timeoutMs` (bounded, never spins). */
export async function until(
  what: string,
  timeoutMs: number,
  probe: () => Promise<boolean>,
  periodMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(periodMs);
  }
}

/** Runs `worker` over `items` with at most `concurrency` in flight; resolves when all are done. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  worker: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      await worker(items[index] as T, index);
    }
  });
  await Promise.all(lanes);
}
