import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AcmctlError, EXIT } from '../exit-codes';
import { historyTable, historyTimeline } from '../history-view';
import type { Command } from 'commander';
import type { CommandContext } from './context';
import { instanceSubject, definitionSubject } from './context';

/** `acmctl history` and `acmctl history export`. */
export function registerHistory(program: Command, { cli, connect, print }: CommandContext): void {
  const history = program
    .command('history <composition> [instance]')
    .description('the operations of a definition or instance; --timeline for their phases and durations')
    .option('--timeline', 'each operation with its phases and their durations')
    .action(
      async (composition: string, instance: string | undefined, options: { timeline?: boolean }, command: Command) => {
        const subject =
          instance === undefined ? definitionSubject(composition) : instanceSubject(composition, instance);
        print(
          command,
          await connect(command).get(subject.historyPath),
          options.timeline ? historyTimeline : historyTable,
        );
      },
    );

  history
    .command('export [composition] [instance]')
    .description(
      "the whole history as NDJSON (a JSON object a line) of an instance, a definition or, with no id, the runtime's; " +
        'to standard output or --file, to archive it before retention prunes it',
    )
    .option('--file <path>', 'write to this file (replaced) instead of standard output')
    .action(
      async (
        composition: string | undefined,
        instance: string | undefined,
        options: { file?: string },
        command: Command,
      ) => {
        const path =
          composition === undefined
            ? '/history?format=ndjson'
            : `${instance === undefined ? definitionSubject(composition).historyPath : instanceSubject(composition, instance).historyPath}?format=ndjson`;
        const chunks = await connect(command).stream(path, 'application/x-ndjson');
        if (options.file !== undefined) {
          await writeFile(options.file, chunks);
          return;
        }
        // Line by line, so that only one line is held at a time.
        let pending = '';
        for await (const chunk of chunks) {
          const lines = (pending + chunk).split('\n');
          pending = lines.pop() ?? '';
          for (const line of lines) {
            cli.out(line);
          }
        }
        if (pending !== '') {
          cli.out(pending);
        }
      },
    );
}

/** Streams the chunks into a file; a file that cannot be written is a usage error that names it. */
async function writeFile(path: string, chunks: AsyncIterable<string>): Promise<void> {
  try {
    await pipeline(Readable.from(chunks), createWriteStream(path));
  } catch (error) {
    if (error instanceof AcmctlError) {
      throw error;
    }
    throw new AcmctlError(
      EXIT.USAGE,
      `--file: cannot write ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
