import { StreamSlots } from './stream-slots';

describe(StreamSlots.name, () => {
  it('refuses a client beyond its cap and the replica beyond its own, naming the setting', () => {
    const slots = new StreamSlots(3, 2);
    expect(slots.acquire('a').granted).toBe(true);
    expect(slots.acquire('a').granted).toBe(true);
    expect(slots.acquire('a')).toEqual({ granted: false, setting: 'MAX_EVENT_STREAMS_PER_CLIENT', limit: 2 });
    expect(slots.acquire('b').granted).toBe(true);
    expect(slots.acquire('c')).toEqual({ granted: false, setting: 'MAX_EVENT_STREAMS', limit: 3 });
    expect(slots.counts).toEqual({ streams: 3, clients: 2 });
  });

  it('gives a slot back once, however often the stream ends', () => {
    const slots = new StreamSlots(1, 1);
    const first = slots.acquire('a');
    if (!first.granted) {
      throw new Error('the first stream is granted');
    }
    first.release();
    first.release();
    expect(slots.counts).toEqual({ streams: 0, clients: 0 });
    const second = slots.acquire('a');
    expect(second.granted).toBe(true);
    expect(slots.acquire('b').granted).toBe(false);
  });
});
