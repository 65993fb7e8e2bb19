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
});
