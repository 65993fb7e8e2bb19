/**
 * The stop of a participant process on SIGINT or SIGTERM: the participant deregisters first, then what it served
 * closes, each part after the one before has finished, and the process exits.
 */
import type { ParticipantLogger } from '../types';

/** What the stop needs of the process: its signals and its exit (a test passes its own). */
export interface SignalledProcess {
  once(signal: NodeJS.Signals, listener: () => void): unknown;
  exit(code: number): void;
}

export interface StopOnSignalsOptions {
  readonly logger: ParticipantLogger;
  /** Stops the participant: it sends DEREGISTER and ends its work. First, while the bus still carries it. */
  readonly participant: () => Promise<unknown>;
  /** The process's HTTP server (health, control API): closed next, so no request reaches a stopped participant. */
  readonly server?: { close(callback: () => void): unknown };
  /** The message bus: closed once nothing is left to send. */
  readonly bus: { close(): Promise<unknown> };
  /** The tracing: shut down last, so the spans of the final ACKs are exported. */
  readonly tracing?: { shutdown(): Promise<unknown> } | null;
  /** Default: SIGINT and SIGTERM. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Default: Node's `process`. */
  readonly process?: SignalledProcess;
}

/**
 * On the first of the signals, logs it, stops the participant, closes the server and the bus, shuts the tracing down,
 * in that order, and exits 0; when a part fails, logs the error, skips the parts after it and exits 1. A second
 * signal during the stop changes nothing.
 *
 * @publicApi A participant process's clean stop: its DEREGISTER leaves before its connections close.
 */
export function stopOnSignals(options: StopOnSignalsOptions): void {
  const target = options.process ?? process;
  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    options.logger('info', `${signal}: deregistering and stopping`);
    await options.participant();
    const server = options.server;
    if (server !== undefined) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await options.bus.close();
    await options.tracing?.shutdown();
  };
  for (const signal of options.signals ?? ['SIGINT', 'SIGTERM']) {
    target.once(signal, () => {
      if (stopping) {
        return;
      }
      stopping = true;
      stop(signal).then(
        () => target.exit(0),
        (error: unknown) => {
          options.logger('error', 'Stopping failed', { err: error });
          target.exit(1);
        },
      );
    });
  }
}
