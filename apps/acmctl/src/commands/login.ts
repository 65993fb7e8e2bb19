import { AcmClient } from '../client';
import type { Connection } from '../connection';
import { profilePath, resolveConnection, writeProfile } from '../connection';
import type { Command } from 'commander';
import type { CommandContext } from './context';

/** `acmctl login`: checks the connection and saves it as the profile. */
export function registerLogin(program: Command, { cli, globals }: CommandContext): void {
  program
    .command('login')
    .description('check the connection and save it as the profile')
    .action(async (_options: unknown, command: Command) => {
      const connection: Connection = resolveConnection(globals(command), cli.env);
      await new AcmClient(connection).get('/compositions');
      const path = profilePath(cli.env);
      writeProfile(path, connection);
      cli.out(`logged in to ${connection.url} as ${connection.user}; profile ${path}`);
    });
}
