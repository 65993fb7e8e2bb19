/** One server-sent event (the WHATWG format: `event:`, `data:`, `id:` fields, a blank line ends it). */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | null;
}

/**
 * Parses a text/event-stream as its chunks arrive (a chunk may end inside a line). EventSource does this in the
 * browser but cannot send an Authorization header, which a bearer token needs: the console reads the stream with
 * fetch and this parser instead.
 */
export class EventStreamParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;

  /** Feeds a chunk; answers the events it completed. */
  push(chunk: string): ServerSentEvent[] {
    this.buffer += chunk;
    const events: ServerSentEvent[] = [];
    let end = this.lineEnd();
    while (end !== null) {
      const line = this.buffer.slice(0, end.at);
      this.buffer = this.buffer.slice(end.at + end.length);
      const complete = this.line(line);
      if (complete !== null) {
        events.push(complete);
      }
      end = this.lineEnd();
    }
    return events;
  }

  /** The first line end (CRLF, LF or CR); a CR last in the buffer waits for the next chunk, it may be a CRLF. */
  private lineEnd(): { at: number; length: number } | null {
    const match = /\r\n|\n|\r/.exec(this.buffer);
    if (match === null || (match[0] === '\r' && match.index === this.buffer.length - 1)) {
      return null;
    }
    return { at: match.index, length: match[0].length };
  }

  private line(line: string): ServerSentEvent | null {
    if (line === '') {
      const complete =
        this.data.length > 0 ? { event: this.event || 'message', data: this.data.join('\n'), id: this.id } : null;
      this.event = '';
      this.data = [];
      return complete;
    }
    if (line.startsWith(':')) {
      return null;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') {
      this.event = value;
    } else if (field === 'data') {
      this.data.push(value);
    } else if (field === 'id' && !value.includes('\0')) {
      this.id = value;
    }
    return null;
  }
}
