import { OffsetCommitter } from './offset-committer';
import type { CommittedPosition, OffsetCommitClient } from './offset-committer';

/** A consumer double whose commits wait until the test answers them. */
class HeldCommits implements OffsetCommitClient {
  readonly requests: CommittedPosition[][] = [];
  private readonly answers: Array<(error?: Error) => void> = [];

  commitOffsets(positions: CommittedPosition[]): Promise<void> {
    this.requests.push(positions.map((position) => ({ ...position })));
    return new Promise((resolve, reject) => {
      this.answers.push((error) => (error === undefined ? resolve() : reject(error)));
    });
  }

  /** Answers the oldest open commit and lets the committer go on. */
  async answer(error?: Error): Promise<void> {
    this.answers.shift()?.(error);
    await new Promise((resolve) => setImmediate(resolve));
  }

  get open(): number {
    return this.answers.length;
  }
}

const at = (partition: number, offset: string): CommittedPosition => ({ topic: 't', partition, offset });

describe('OffsetCommitter', () => {
  it('commits at once, then what was handled meanwhile in one request, the record after the last one', async () => {
    const consumer = new HeldCommits();
    const committer = new OffsetCommitter(consumer, () => undefined);

    committer.handled('t', 0, '4');
    expect(consumer.requests).toEqual([[at(0, '5')]]);
    committer.handled('t', 0, '5');
    committer.handled('t', 1, '0');
    committer.handled('t', 0, '6');
    expect(consumer.open).toBe(1);

    await consumer.answer();
    expect(consumer.requests).toEqual([[at(0, '5')], [at(0, '7'), at(1, '1')]]);
    await consumer.answer();
    await committer.flush();
    expect(consumer.requests).toHaveLength(2);
  });

  it('never moves a position back: a start pinned below a handled record is not sent', async () => {
    const consumer = new HeldCommits();
    const committer = new OffsetCommitter(consumer, () => undefined);

    committer.handled('t', 0, '9');
    committer.commit('t', 0, '3');
    await consumer.answer();
    await committer.flush();

    expect(consumer.requests).toEqual([[at(0, '10')]]);
  });

  it('asks again for a position whose commit failed once the same records are handled again', async () => {
    const consumer = new HeldCommits();
    const committer = new OffsetCommitter(consumer, () => undefined);

    committer.handled('t', 0, '2');
    await consumer.answer(new Error('REBALANCE_IN_PROGRESS'));
    await committer.flush();
    committer.handled('t', 0, '2');
    await consumer.answer();
    await committer.flush();

    expect(consumer.requests).toEqual([[at(0, '3')], [at(0, '3')]]);
  });

  it('flush waits for the commit in flight and for what was handled during it', async () => {
    const consumer = new HeldCommits();
    const committer = new OffsetCommitter(consumer, () => undefined);
    let flushed = false;

    committer.handled('t', 0, '0');
    const flushing = committer.flush().then(() => (flushed = true));
    committer.handled('t', 0, '1');
    await consumer.answer();
    expect(flushed).toBe(false);
    expect(consumer.requests).toEqual([[at(0, '1')], [at(0, '2')]]);
    await consumer.answer();
    await flushing;

    expect(flushed).toBe(true);
  });

  describe('with an interval between commits', () => {
    beforeEach(() => {
      jest.useFakeTimers();
    });

    afterEach(() => {
      jest.useRealTimers();
    });

    /** Lets the committer's promise chain run, without moving the fake clock. */
    const settle = async (): Promise<void> => {
      for (let turn = 0; turn < 5; turn += 1) {
        await Promise.resolve();
      }
    };

    /** A consumer double that answers every commit at once. */
    const answering = (): { requests: CommittedPosition[][]; client: OffsetCommitClient } => {
      const requests: CommittedPosition[][] = [];
      return {
        requests,
        client: {
          commitOffsets: (positions) => {
            requests.push(positions.map((position) => ({ ...position })));
            return Promise.resolve();
          },
        },
      };
    };

    it('commits at once, then what is handled within the interval in one request once it has passed', async () => {
      const consumer = answering();
      const committer = new OffsetCommitter(consumer.client, () => undefined, 100);

      committer.handled('t', 0, '0');
      await settle();
      expect(consumer.requests).toEqual([[at(0, '1')]]);
      committer.handled('t', 0, '1');
      committer.handled('t', 1, '7');
      committer.handled('t', 0, '2');
      await jest.advanceTimersByTimeAsync(99);
      expect(consumer.requests).toHaveLength(1);

      await jest.advanceTimersByTimeAsync(1);
      expect(consumer.requests).toEqual([[at(0, '1')], [at(0, '3'), at(1, '8')]]);
      // Nothing handled during the next interval: no request, and the one after that goes at once.
      await jest.advanceTimersByTimeAsync(100);
      expect(consumer.requests).toHaveLength(2);
      committer.handled('t', 0, '3');
      await settle();
      expect(consumer.requests).toHaveLength(3);
    });

    it('flush commits what waits for the interval without waiting for it', async () => {
      const consumer = answering();
      const committer = new OffsetCommitter(consumer.client, () => undefined, 60_000);

      committer.handled('t', 0, '0');
      await settle();
      committer.handled('t', 0, '1');
      await committer.flush();

      expect(consumer.requests).toEqual([[at(0, '1')], [at(0, '2')]]);
    });
  });
});
