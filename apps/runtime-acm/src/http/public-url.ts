import type { TLSSocket } from 'node:tls';
import type { Request } from 'express';

/**
 * The base URL of the links the runtime hands out (signed signal URLs): PUBLIC_URL when set, else the address and
 * port the request's connection arrived on. Never the Host header (or X-Forwarded-Host): a client chooses those, and
 * a link built from them would send its bearer to whatever host the client named.
 */
export function publicBaseUrl(publicUrl: string | null, request: Request): string {
  if (publicUrl !== null) {
    return publicUrl;
  }
  const socket = request.socket;
  const scheme = (socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
  const address = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  const host = address.includes(':') ? `[${address}]` : address;
  return `${scheme}://${host}:${socket.localPort ?? 0}`;
}
