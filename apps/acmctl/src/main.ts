#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildProgram, productVersion, versionAsked } from './program';
import { AcmctlError, EXIT } from './exit-codes';

/** Runs acmctl; every failure ends in one readable block on stderr and its own exit code. */
async function main(): Promise<number> {
  if (versionAsked(process.argv.slice(2))) {
    process.stdout.write(`${productVersion()}\n`);
    return EXIT.OK;
  }
  const program = buildProgram({
    env: process.env,
    isTerminal: process.stdout.isTTY === true,
    out: (text) => process.stdout.write(`${text}\n`),
  });
  try {
    await program.parseAsync(process.argv);
    return EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander already printed the help or the usage error
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    if (error instanceof AcmctlError) {
      process.stderr.write(`acmctl: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(
      `acmctl: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.SERVER_ERROR;
  }
}

void main().then((code) => {
  process.exitCode = code;
});
