import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AcmClient } from './client';

describe('AcmClient credentials', () => {
  let server: Server;
  let url: string;
  const received: Array<string | undefined> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      received.push(request.headers.authorization);
      response.setHeader('Content-Type', 'application/json');
      response.end('[]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("sends ONAP's HTTP Basic without a token, and the bearer token instead of it with one", async () => {
    await new AcmClient({ url, user: 'runtimeUser', password: 'zb!XztG34' }).get('/compositions');
    await new AcmClient({ url, user: 'runtimeUser', password: 'zb!XztG34', token: 'eyJ.a.b' }).get('/compositions');
    expect(received).toEqual([`Basic ${Buffer.from('runtimeUser:zb!XztG34').toString('base64')}`, 'Bearer eyJ.a.b']);
  });
});
