import type { ParticipantLogLevel } from '../types';
import type { SignalledProcess } from './stop-on-signals';
import { stopOnSignals } from './stop-on-signals';

/** A process whose signals the test sends, and whose exit code it awaits. */
function fakeProcess(): SignalledProcess & { send(signal: NodeJS.Signals): void; exited: Promise<number> } {
  const listeners = new Map<string, () => void>();
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (exit = resolve));
  return {
    once: (signal, listener) => listeners.set(signal, listener),
    exit: (code) => exit(code),
    send: (signal) => {
      const listener = listeners.get(signal);
      listeners.delete(signal);
      listener?.();
    },
    exited,
  };
}

/** A process's parts, each recording when it has finished stopping. */
function parts(done: string[], failing?: string) {
  const finish = (name: string) =>
    new Promise<void>((resolve, reject) =>
      // Later than a microtask: the next part must wait for this one, not merely start after it.
      setImmediate(() => (name === failing ? reject(new Error(`${name} failed`)) : resolve(void done.push(name)))),
    );
  return {
    participant: () => finish('participant'),
    server: { close: (callback: () => void) => void finish('server').then(callback) },
    bus: { close: () => finish('bus') },
    tracing: { shutdown: () => finish('tracing') },
  };
}

describe(stopOnSignals.name, () => {
  const logged: Array<[ParticipantLogLevel, string, Record<string, unknown> | undefined]> = [];
  const logger = (level: ParticipantLogLevel, message: string, context?: Record<string, unknown>) =>
    logged.push([level, message, context]);
  beforeEach(() => (logged.length = 0));

  it('stops the participant, then closes the server, the bus and the tracing, each after the one before, and exits 0', async () => {
    const signalled = fakeProcess();
    const done: string[] = [];
    stopOnSignals({ logger, process: signalled, ...parts(done) });
    signalled.send('SIGTERM');
    // A second signal during the stop starts nothing more.
    signalled.send('SIGINT');
    expect(await signalled.exited).toBe(0);
    expect(done).toEqual(['participant', 'server', 'bus', 'tracing']);
    expect(logged).toEqual([['info', 'SIGTERM: deregistering and stopping', undefined]]);
  });

  it('logs a part that fails, skips the parts after it and exits 1', async () => {
    const signalled = fakeProcess();
    const done: string[] = [];
    stopOnSignals({ logger, process: signalled, ...parts(done, 'bus') });
    signalled.send('SIGINT');
    expect(await signalled.exited).toBe(1);
    expect(done).toEqual(['participant', 'server']);
    expect(logged).toEqual([
      ['info', 'SIGINT: deregistering and stopping', undefined],
      ['error', 'Stopping failed', { err: new Error('bus failed') }],
    ]);
  });

  it('needs no server and no tracing, and listens to the signals it is given only', async () => {
    const signalled = fakeProcess();
    const done: string[] = [];
    const { participant, bus } = parts(done);
    stopOnSignals({ logger, process: signalled, participant, bus, tracing: null, signals: ['SIGHUP'] });
    signalled.send('SIGTERM');
    expect(logged).toEqual([]);
    signalled.send('SIGHUP');
    expect(await signalled.exited).toBe(0);
    expect(done).toEqual(['participant', 'bus']);
  });
});
