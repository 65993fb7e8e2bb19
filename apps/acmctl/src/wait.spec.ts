import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AcmClient } from './client';
import { EXIT } from './exit-codes';
import type { HistoryEvent } from './progress';
import type { ProgressView } from './wait';
import { waitForOperation } from './wait';

const HISTORY_PATH = '/compositions/c/history';
const SUBJECT = { statePath: '/compositions/c', historyPath: HISTORY_PATH };
const COMPLETED_HISTORY = {
  operations: [{ operationId: 'op-1', order: 'PRIME', state: 'COMPLETED', timedOut: false }],
  events: [
    { sequence: 1, operationId: 'op-1', event: 'ORDERED', detail: { order: 'PRIME' }, at: '2026-12-01 10:00:00.000' },
    { sequence: 2, operationId: 'op-1', event: 'COMPLETED', detail: {}, at: '2026-12-01 10:00:00.100' },
  ],
};

const CANCELLED_HISTORY = {
  operations: [{ operationId: 'op-1', order: 'DEPLOY', state: 'CANCELLED', timedOut: false }],
  events: [
    { sequence: 1, operationId: 'op-1', event: 'ORDERED', detail: { order: 'DEPLOY' }, at: '2026-12-01 10:00:00.000' },
    {
      sequence: 2,
      operationId: 'op-1',
      event: 'CANCELLED',
      detail: { operationId: 'op-1', order: 'DEPLOY', phase: 0, rollback: false },
      actor: { kind: 'request', user: 'runtimeUser', requestId: 'r-42' },
      at: '2026-12-01 10:00:00.100',
    },
  ],
};

/** A runtime stand-in over real HTTP that answers the history with the given statuses, then the history. */
async function historyServer(
  failures: number,
  history: unknown = COMPLETED_HISTORY,
): Promise<{ server: Server; url: string }> {
  let remaining = failures;
  const server = createServer((_request, response) => {
    response.setHeader('Content-Type', 'application/json');
    if (remaining > 0) {
      remaining -= 1;
      response.statusCode = 500;
      response.end(JSON.stringify({ errorDetails: 'Internal error' }));
      return;
    }
    response.end(JSON.stringify(history));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function recordingView(): ProgressView & { events: HistoryEvent[] } {
  const events: HistoryEvent[] = [];
  return { events, update: (_progress, fresh) => events.push(...fresh), stop: () => undefined };
}

describe('waitForOperation', () => {
  let server: Server | undefined;
  afterEach(async () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('keeps polling through a passing 5xx and ends with the operation', async () => {
    const started = await historyServer(2);
    server = started.server;
    const client = new AcmClient({ url: started.url, user: 'u', password: 'p' });
    const view = recordingView();

    const operation = await waitForOperation(client, SUBJECT, 0, view, { timeoutMs: 30_000, pollMs: 1 });

    expect(operation?.operationId).toBe('op-1');
    expect(view.events.map((event) => event.event)).toEqual(['ORDERED', 'COMPLETED']);
  });

  it('gives up with the server-error exit code when the 5xx does not pass', async () => {
    const started = await historyServer(1000);
    server = started.server;
    const client = new AcmClient({ url: started.url, user: 'u', password: 'p' });

    await expect(
      waitForOperation(client, SUBJECT, 0, recordingView(), { timeoutMs: 30_000, pollMs: 1 }),
    ).rejects.toMatchObject({ exitCode: EXIT.SERVER_ERROR });
  });

  it('ends a cancelled operation with its own exit code, naming who cancelled it', async () => {
    const started = await historyServer(0, CANCELLED_HISTORY);
    server = started.server;
    const client = new AcmClient({ url: started.url, user: 'u', password: 'p' });

    await expect(
      waitForOperation(client, SUBJECT, 0, recordingView(), { timeoutMs: 30_000, pollMs: 1 }),
    ).rejects.toMatchObject({
      exitCode: EXIT.CANCELLED,
      message: 'DEPLOY CANCELLED by runtimeUser (request r-42)',
    });
  });
});
