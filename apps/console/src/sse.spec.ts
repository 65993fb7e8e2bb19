import { EventStreamParser } from './sse';

describe('EventStreamParser', () => {
  it("reads the runtime's stream: retry, ready, history events with ids, keep-alive comments", () => {
    const parser = new EventStreamParser();
    expect(parser.push('retry: 2000\nevent: ready\ndata: {}\n\n: keep-alive\n\n')).toEqual([
      { event: 'ready', data: '{}', id: null },
    ]);
    expect(parser.push('id: 7\nevent: history\ndata: {"a":1}\n\n')).toEqual([
      { event: 'history', data: '{"a":1}', id: '7' },
    ]);
  });

  it('joins an event cut anywhere across chunks, CRLF included', () => {
    const text = 'id: 1\r\nevent: history\r\ndata: first\r\ndata: second\r\n\r\nevent: ready\ndata: x\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new EventStreamParser();
      expect([...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))]).toEqual([
        { event: 'history', data: 'first\nsecond', id: '1' },
        { event: 'ready', data: 'x', id: '1' },
      ]);
    }
  });

  it('dispatches nothing for an event without data, and names an unnamed one message', () => {
    const parser = new EventStreamParser();
    expect(parser.push('event: ready\n\ndata:plain\n\n')).toEqual([{ event: 'message', data: 'plain', id: null }]);
  });
});
