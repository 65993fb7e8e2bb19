import type { Socket } from 'node:net';
import type { Request } from 'express';
import { publicBaseUrl } from './public-url';

const arrivedOn = (localAddress: string, localPort: number, host = 'evil.example'): Request =>
  ({ socket: { localAddress, localPort } as Socket, headers: { host } }) as unknown as Request;

describe(publicBaseUrl.name, () => {
  it('takes PUBLIC_URL when it is set, whatever the request says', () => {
    expect(publicBaseUrl('https://acm.example.com/gateway', arrivedOn('10.0.0.5', 6969))).toBe(
      'https://acm.example.com/gateway',
    );
  });

  it('takes the address and port the connection arrived on otherwise, never the Host header', () => {
    expect(publicBaseUrl(null, arrivedOn('10.0.0.5', 6969))).toBe('http://10.0.0.5:6969');
    expect(publicBaseUrl(null, arrivedOn('::ffff:127.0.0.1', 40000))).toBe('http://127.0.0.1:40000');
    expect(publicBaseUrl(null, arrivedOn('fd00::5', 6969))).toBe('http://[fd00::5]:6969');
  });
});
