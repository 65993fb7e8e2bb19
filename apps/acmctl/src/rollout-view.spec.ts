import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcmctlError, EXIT } from './exit-codes';
import { buildProgram } from './program';
import type { RolloutBody } from './rollout-view';
import { rolloutGrid } from './rollout-view';

const ROLLOUT = '00000000-0000-4000-8000-0000000000aa';
const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function rolloutOf(state: string, batches: string[][], reason: string | null = null): RolloutBody {
  const counts = {
    PENDING: 0,
    ORDERED: 0,
    DONE: 0,
    FAILED: 0,
    REFUSED: 0,
    ROLLING_BACK: 0,
    ROLLED_BACK: 0,
    ROLLBACK_FAILED: 0,
    UNHEALTHY: 0,
  };
  let n = 0;
  const views = batches.map((states, index) => ({
    batch: index + 1,
    state: states.every((item) => item === 'PENDING') ? 'PENDING' : states.includes('ORDERED') ? 'RUNNING' : 'ENDED',
    failures: states.filter((item) => item === 'FAILED').length,
    overThreshold: states.includes('FAILED'),
    instances: states.map((item) => {
      counts[item as keyof typeof counts] += 1;
      n += 1;
      return { instanceId: id(n), state: item, reason: null };
    }),
  }));
  return { rolloutId: ROLLOUT, order: 'DEPLOY', state, reason, counts, batches: views } as unknown as RolloutBody;
}

describe('rolloutGrid', () => {
  it('draws a row per batch and a cell per instance labelled by its state', () => {
    const rollout = rolloutOf('ROLLING_BACK', [
      ['DONE', 'DONE'],
      ['ROLLING_BACK', 'FAILED'],
      ['PENDING', 'PENDING'],
    ]);
    expect(rolloutGrid(rollout, 80, false)).toEqual([
      `rollout ${ROLLOUT} DEPLOY ROLLING_BACK  2/6 done`,
      'batch   1 ENDED   DD',
      'batch   2 ENDED   <F',
      'batch   3 PENDING ..',
    ]);
  });

  it('colours the cells on a terminal, and fits a long batch to the width with the count left out', () => {
    const rollout = rolloutOf('RUNNING', [Array.from({ length: 40 }, () => 'ORDERED')]);
    const [, row] = rolloutGrid(rollout, 40, false);
    expect(row).toBe(`batch   1 RUNNING ${'>'.repeat(17)} +23`);
    expect(row!.length).toBeLessThan(40);
    const [, coloured] = rolloutGrid(rolloutOf('RUNNING', [['DONE', 'FAILED']]), 80, true);
    expect(coloured).toBe('batch   1 ENDED   \u001b[32mD\u001b[0m\u001b[31mF\u001b[0m');
  });
});

describe('acmctl rollouts get and watch', () => {
  let server: Server;
  let url: string;
  let dir: string;
  /** What GET .../rollouts/{id} answers, one after the other (the last one repeats). */
  let answers: RolloutBody[] = [];

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      request.resume();
      request.on('end', () => {
        response.setHeader('Content-Type', 'application/json');
        const answer = answers.length > 1 ? answers.shift() : answers[0];
        response.end(JSON.stringify(request.url?.endsWith(`/rollouts/${ROLLOUT}`) ? answer : {}));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'acmctl-rollouts-'));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function run(args: string[], isTerminal = false): Promise<{ printed: string; error: unknown }> {
    const printed: string[] = [];
    const program = buildProgram({ env: { ACM_URL: url, HOME: dir }, isTerminal, out: (text) => printed.push(text) });
    try {
      await program.parseAsync(['node', 'acmctl', ...args]);
      return { printed: printed.join('\n'), error: null };
    } catch (error) {
      return { printed: printed.join('\n'), error };
    }
  }

  it('get prints the headline and a row per batch with its instances per state', async () => {
    answers = [
      rolloutOf(
        'FAILED',
        [
          ['DONE', 'DONE'],
          ['ROLLED_BACK', 'FAILED'],
        ],
        'batch 2 had 1 failures; rolled back',
      ),
    ];
    const { printed, error } = await run(['rollouts', 'get', ROLLOUT]);
    expect(error).toBeNull();
    const lines = printed.split('\n').map((line) => line.trimEnd());
    expect(lines[0]).toBe(`rollout ${ROLLOUT} DEPLOY FAILED  2/4 done  batch 2 had 1 failures; rolled back`);
    expect(lines.slice(2)).toEqual([
      'BATCH  STATE  FAILURES            INSTANCES',
      '1      ENDED  0                   2 DONE',
      '2      ENDED  1 (over threshold)  1 ROLLED_BACK, 1 FAILED',
    ]);
  });

  it('watch prints each new frame until the rollout ends, and exits FAILED when it failed', async () => {
    answers = [
      rolloutOf('RUNNING', [['ORDERED', 'ORDERED'], ['PENDING']]),
      rolloutOf('RUNNING', [['ORDERED', 'ORDERED'], ['PENDING']]),
      rolloutOf('RUNNING', [['DONE', 'DONE'], ['ORDERED']]),
      rolloutOf('FAILED', [['DONE', 'DONE'], ['FAILED']], 'batch 2 had 1 failures'),
    ];
    const { printed, error } = await run(['rollouts', 'watch', ROLLOUT, '--interval', '50']);
    expect(printed.split('\n')).toEqual([
      `rollout ${ROLLOUT} DEPLOY RUNNING  0/3 done`,
      'batch   1 RUNNING >>',
      'batch   2 PENDING .',
      `rollout ${ROLLOUT} DEPLOY RUNNING  2/3 done`,
      'batch   1 ENDED   DD',
      'batch   2 RUNNING >',
      `rollout ${ROLLOUT} DEPLOY FAILED  2/3 done  batch 2 had 1 failures`,
      'batch   1 ENDED   DD',
      'batch   2 ENDED   F',
    ]);
    expect(error).toBeInstanceOf(AcmctlError);
    expect((error as AcmctlError).exitCode).toBe(EXIT.FAILED);
  });

  it('watch on a terminal redraws the frame in place and ends with the legend', async () => {
    answers = [rolloutOf('RUNNING', [['ORDERED']]), rolloutOf('COMPLETED', [['DONE']])];
    const { printed, error } = await run(['rollouts', 'watch', ROLLOUT, '--interval', '50'], true);
    expect(error).toBeNull();
    const frames = printed.split('\n');
    expect(frames[0]).toBe(`\u001b[2Krollout ${ROLLOUT} DEPLOY RUNNING  0/1 done`);
    expect(frames[2]).toBe(`\u001b[2F\u001b[2Krollout ${ROLLOUT} DEPLOY COMPLETED  1/1 done`);
    expect(frames.at(-1)).toContain('D DONE');
  });
});
