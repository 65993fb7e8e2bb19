/** What a request for a new stream got: a slot to give back when the stream ends, or the setting that refused it. */
export type StreamSlot =
  | { readonly granted: true; release(): void }
  | {
      readonly granted: false;
      readonly setting: 'MAX_EVENT_STREAMS' | 'MAX_EVENT_STREAMS_PER_CLIENT';
      readonly limit: number;
    };

/**
 * Counts the open event streams of this replica, in all and per client address: each holds a socket and a
 * subscription for as long as the client likes, so beyond the caps a new one is refused rather than let one client
 * exhaust the replica's sockets and memory.
 */
export class StreamSlots {
  private open = 0;
  private readonly perClient = new Map<string, number>();

  constructor(
    private readonly maxStreams: number,
    private readonly maxStreamsPerClient: number,
  ) {}

  acquire(client: string): StreamSlot {
    const ofClient = this.perClient.get(client) ?? 0;
    if (ofClient >= this.maxStreamsPerClient) {
      return { granted: false, setting: 'MAX_EVENT_STREAMS_PER_CLIENT', limit: this.maxStreamsPerClient };
    }
    if (this.open >= this.maxStreams) {
      return { granted: false, setting: 'MAX_EVENT_STREAMS', limit: this.maxStreams };
    }
    this.open += 1;
    this.perClient.set(client, ofClient + 1);
    let released = false;
    return {
      granted: true,
      release: () => {
        if (released) {
          return;
        }
        released = true;
        this.open -= 1;
        const left = (this.perClient.get(client) ?? 1) - 1;
        if (left === 0) {
          this.perClient.delete(client);
        } else {
          this.perClient.set(client, left);
        }
      },
    };
  }

  /** Open streams in all, and the number of clients holding one (for tests and diagnostics). */
  get counts(): { streams: number; clients: number } {
    return { streams: this.open, clients: this.perClient.size };
  }
}
