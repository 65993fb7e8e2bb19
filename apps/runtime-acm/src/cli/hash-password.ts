import { hashPassword } from '@acm/input-guards';
import { runCli } from './run-cli';

const USAGE = 'usage: printf %s "$PASSWORD" | npm run -s hash-password -- NAME';

/** Everything standard input holds, without one final line break (what `echo` adds). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * `npm run -s hash-password -- NAME`: one RUNTIME_USERS_FILE line, `NAME:$scrypt$...`, for the password read from
 * standard input (never from the arguments, which other users of the machine can see).
 */
async function main(args: readonly string[]): Promise<number> {
  const [name] = args;
  if (name === undefined || args.length !== 1 || name === '' || /[\s:]/.test(name)) {
    process.stderr.write(`${USAGE}\n(NAME: no spaces and no colon)\n`);
    return 2;
  }
  const password = await readStdin();
  if (password === '') {
    process.stderr.write(`${USAGE}\n(the password on standard input is empty)\n`);
    return 2;
  }
  process.stdout.write(`${name}:${await hashPassword(password)}\n`);
  return 0;
}

runCli(main);
