import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { buildProgram } from './program';

describe('acmctl --version', () => {
  it("prints the runtime package's semantic version and exits 0", async () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string };
    const program = buildProgram({ env: {}, isTerminal: false, out: () => undefined });
    let printed = '';
    program.configureOutput({ writeOut: (text) => (printed += text) });
    const ended = await program.parseAsync(['node', 'acmctl', '--version']).catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(CommanderError);
    expect((ended as CommanderError).exitCode).toBe(0);
    expect(printed).toBe(`${manifest.version}\n`);
  });
});
