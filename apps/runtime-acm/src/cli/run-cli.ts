/**
 * The entry of a CLI here: runs `main` on the arguments after the script and sets the exit code it returns.
 * A throw or a rejection is printed with its stack and exits 1. The exit code is set, not forced with
 * process.exit, so what is still buffered for stdout or a file is written before the process ends.
 */
export function runCli(main: (args: readonly string[]) => number | Promise<number>): void {
  // Through a promise, so that a synchronous main that throws ends the same way as an asynchronous one.
  Promise.resolve(process.argv.slice(2))
    .then(main)
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error: unknown) => {
        process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exitCode = 1;
      },
    );
}
