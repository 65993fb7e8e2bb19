import { Logger } from '@nestjs/common';
import { writeEmbeddedSnapshot } from '../database/embedded-snapshot';
import { runCli } from './run-cli';

/**
 * Run by `npm run build`: writes the snapshot of a new, migrated embedded database to the directory given
 * (dist/pglite-snapshot), which a first start on an empty DATA_DIR loads instead of running initdb and the migrations.
 */
async function main(args: readonly string[]): Promise<number> {
  const [directory] = args;
  if (directory === undefined || args.length !== 1) {
    process.stderr.write('usage: node dist/apps/runtime-acm/src/cli/embedded-snapshot.js DIRECTORY\n');
    return 2;
  }
  // The build's output stays quiet; a failure still reaches stderr below.
  Logger.overrideLogger(false);
  const manifest = await writeEmbeddedSnapshot(directory);
  process.stdout.write(
    `embedded database snapshot: ${directory} (${manifest.migrations.length} migrations, ${manifest.bytes} bytes)\n`,
  );
  return 0;
}

runCli(main);
