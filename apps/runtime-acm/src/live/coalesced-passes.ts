/**
 * Runs a background pass one at a time: a wake during a pass asks for exactly one more pass after it, however many
 * wakes came. A failed pass ends the round (reported to `onFailure`); the next wake starts a new one, so a database
 * that is away is not retried in a tight loop.
 */
export class CoalescedPasses {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly onFailure: (error: Error) => void,
  ) {}

  /** Starts a round, or asks the running one for one more pass. */
  wake(): void {
    if (this.stopped) {
      return;
    }
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.round().finally(() => {
      this.running = null;
    });
  }

  /** No new pass starts; resolves when the one in progress ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async round(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass();
      } catch (error) {
        this.onFailure(error as Error);
        return;
      }
    } while (this.again && !this.stopped);
  }
}
