import type { Command } from 'commander';
import { AcmctlError, EXIT } from '../exit-codes';
import { readDocument } from '../input-file';
import { formatTable } from '../output';
import type { RolloutBody } from '../rollout-view';
import { ROLLOUT_LEGEND, rolloutFinished, rolloutGrid, rolloutHeadline, rolloutTable } from '../rollout-view';
import type { CommandContext } from './context';

const rolloutPath = (rollout: string): string => `/rollouts/${encodeURIComponent(rollout)}`;

const rolloutText = (body: unknown): string =>
  `${rolloutHeadline(body as RolloutBody)}\n\n${formatTable(rolloutTable(body))}`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `acmctl rollouts`: create (or dry-run), get, watch, and the controls pause, resume, promote, cancel. */
export function registerRollouts(program: Command, { cli, connect, print, globals }: CommandContext): void {
  const rollouts = program
    .command('rollouts')
    .description('fleet rollouts: one order given to many instances in batches');
  rollouts
    .command('create <file>')
    .description('start a rollout from a file (JSON or YAML: order, compositionId, instanceIds, strategy)')
    .option('--dry-run', 'only show the batches and the refused instances; nothing is written')
    .action(async (file: string, options: { dryRun?: boolean }, command: Command) => {
      const body = readDocument(file);
      if (options.dryRun === true) {
        const plan = (await connect(command).request('POST', '/rollouts?dryRun=true', body)).body;
        print(command, plan, (value) => {
          const answer = value as {
            batches: Array<{ batch: number; instanceIds: string[] }>;
            refused: Array<{ instanceId: string; reason: string }>;
            wouldStart: boolean;
          };
          const rows = [
            ...answer.batches.map((batch) => [String(batch.batch), batch.instanceIds.join(', '), '']),
            ...answer.refused.map((item) => ['refused', item.instanceId, item.reason]),
          ];
          return `${formatTable({ headers: ['BATCH', 'INSTANCES', 'REASON'], rows })}\nwould start: ${answer.wouldStart}`;
        });
        return;
      }
      print(command, (await connect(command).request('POST', '/rollouts', body)).body, rolloutText);
    });
  rollouts
    .command('list')
    .description('rollouts, newest first')
    .action(async (_options: unknown, command: Command) => {
      print(command, await connect(command).get('/rollouts'), (value) =>
        formatTable({
          headers: ['ROLLOUT', 'ORDER', 'STATE', 'DONE', 'REASON'],
          rows: (value as { rollouts: RolloutBody[] }).rollouts.map((rollout) => [
            rollout.rolloutId,
            rollout.order,
            rollout.state,
            String(rollout.counts.DONE),
            rollout.reason ?? '',
          ]),
        }),
      );
    });
  rollouts
    .command('get <rollout>')
    .description('a rollout: its state and each batch with its instances per state')
    .action(async (rollout: string, _options: unknown, command: Command) => {
      print(command, await connect(command).get(rolloutPath(rollout)), rolloutText);
    });
  rollouts
    .command('watch <rollout>')
    .description('a live view until the rollout ends: a row per batch, a cell per instance labelled by its state')
    .option('--interval <ms>', 'how often to read the rollout', '500')
    .action(async (rollout: string, options: { interval: string }, command: Command) => {
      const interval = Number(options.interval);
      if (!Number.isInteger(interval) || interval < 50) {
        throw new AcmctlError(EXIT.USAGE, `--interval: must be a whole number of milliseconds, 50 or more`);
      }
      const deadline = Date.now() + Number(globals(command).timeout);
      const client = connect(command);
      let drawn = 0;
      let last = '';
      for (;;) {
        const body = (await client.get(rolloutPath(rollout))) as RolloutBody;
        const lines = rolloutGrid(body, cli.isTerminal ? process.stdout.columns || 80 : 1000, cli.isTerminal);
        const frame = lines.join('\n');
        if (cli.isTerminal) {
          // Redraw in place: up over the lines drawn before, each cleared.
          cli.out(`${drawn > 0 ? `\u001b[${drawn}F` : ''}${lines.map((line) => `\u001b[2K${line}`).join('\n')}`);
          drawn = lines.length;
        } else if (frame !== last) {
          cli.out(frame);
        }
        last = frame;
        if (rolloutFinished(body)) {
          if (cli.isTerminal) {
            cli.out(ROLLOUT_LEGEND);
          }
          if (body.state !== 'COMPLETED') {
            throw new AcmctlError(
              EXIT.FAILED,
              `rollout ${rollout} ${body.state}${body.reason ? `: ${body.reason}` : ''}`,
            );
          }
          return;
        }
        if (Date.now() > deadline) {
          throw new AcmctlError(EXIT.TIMEOUT, `rollout ${rollout} still ${body.state} after --timeout`);
        }
        await sleep(interval);
      }
    });
  for (const [control, what] of [
    ['pause', 'no instance is ordered until resume; the operations already ordered go on'],
    ['resume', 'a paused rollout goes on'],
    ['promote', 'after the canary batch, the next batches start'],
    ['cancel', 'no instance is ordered after it'],
  ] as const) {
    rollouts
      .command(`${control} <rollout>`)
      .description(what)
      .action(async (rollout: string, _options: unknown, command: Command) => {
        print(
          command,
          (await connect(command).request('POST', `${rolloutPath(rollout)}/${control}`)).body,
          rolloutText,
        );
      });
  }
}
