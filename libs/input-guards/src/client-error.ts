import type { Duplex } from 'node:stream';

/** What Node's HTTP parser refused, as ONAP's error body would say it. */
function answerFor(code: string | undefined): { status: number; reason: string; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        message: 'Request headers are larger than the server accepts (16 KiB in total)',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', message: 'The request was not received in time' };
    default:
      return {
        status: 400,
        reason: 'Bad Request',
        message: `Malformed HTTP request${code === undefined ? '' : ` (${code})`}: check the request line, headers and framing`,
      };
  }
}

/**
 * A `clientError` listener for `node:http` servers: Node's own answer to a request it cannot parse (oversized
 * headers, bad framing) has no body, so clients that read `errorDetails` get nothing. This one answers with ONAP's
 * `{"errorDetails": ...}` and closes the connection, whose framing can no longer be trusted.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, reason, message } = answerFor(error.code);
  const body = `${JSON.stringify({ errorDetails: message })}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}
