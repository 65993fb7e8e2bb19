import { addKafkaCounts, kafkaRates, kafkaWindow, kafkaWindowMarkdown } from '../bench/kafka-counts';

describe('the broker work per deployed instance (bench/kafka-counts)', () => {
  const before = {
    records: 100,
    requests: { 'producer Produce': 40, 'consumer Fetch': 200, 'consumer OffsetCommit': 10, 'admin Metadata': 3 },
  };
  const after = {
    records: 700,
    requests: {
      'producer Produce': 240,
      'consumer Fetch': 600,
      'consumer OffsetCommit': 60,
      'consumer Heartbeat': 20,
      'admin Metadata': 3,
    },
  };

  it('divides what was sent in the window by the instances deployed in it', () => {
    const window = kafkaWindow(before, after, 100);
    expect(window).toMatchObject({
      instances: 100,
      recordsPerInstance: 6,
      produceRequestsPerInstance: 2,
      fetchRequestsPerInstance: 4,
      offsetCommitsPerInstance: 0.5,
      heartbeatsPerInstance: 0.2,
      requestsPerInstance: 6.7,
    });
  });

  it('lists only the requests sent in the window, most frequent first', () => {
    expect(kafkaWindow(before, after, 100).byRequest).toEqual([
      { request: 'consumer Fetch', count: 400, perInstance: 4 },
      { request: 'producer Produce', count: 200, perInstance: 2 },
      { request: 'consumer OffsetCommit', count: 50, perInstance: 0.5 },
      { request: 'consumer Heartbeat', count: 20, perInstance: 0.2 },
    ]);
  });

  it('adds several processes up request by request', () => {
    expect(
      addKafkaCounts([
        { records: 1, requests: { 'consumer Fetch': 2 } },
        { records: 3, requests: { 'consumer Fetch': 5, 'producer Produce': 7 } },
      ]),
    ).toEqual({ records: 4, requests: { 'consumer Fetch': 7, 'producer Produce': 7 } });
  });

  it('refuses a window with no instance rather than dividing by zero', () => {
    expect(() => kafkaWindow(before, after, 0)).toThrow(/instances must be positive/);
  });

  it('puts both sides in one table', () => {
    const runtime = kafkaWindow(before, after, 100);
    const participant = kafkaWindow(
      { records: 0, requests: {} },
      { records: 300, requests: { 'producer Produce': 50 } },
      100,
    );
    const table = kafkaWindowMarkdown({ runtime, participant });
    expect(table).toContain('| records produced | 6 | 3 |');
    expect(table).toContain('| Produce requests | 2 | 0.5 |');
    expect(table).toContain('| consumer Fetch | 4 | 0 |');
  });

  it('gives a steady state as requests per second', () => {
    expect(kafkaRates(before, after, 20)).toEqual({
      requestsPerS: 33.5,
      fetchPerS: 20,
      heartbeatPerS: 1,
      byRequest: [
        { request: 'consumer Fetch', perS: 20 },
        { request: 'producer Produce', perS: 10 },
        { request: 'consumer OffsetCommit', perS: 2.5 },
        { request: 'consumer Heartbeat', perS: 1 },
      ],
    });
    expect(() => kafkaRates(before, after, 0)).toThrow(/seconds must be positive/);
  });
});
