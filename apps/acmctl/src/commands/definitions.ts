import { readDocument } from '../input-file';
import type { TableView } from '../output';
import { field, list, text } from '../output';
import type { Command } from 'commander';
import type { CommandContext, WaitFlag } from './context';
import { compositionPath, definitionSubject, query } from './context';

const definitionsTable = (body: unknown): TableView => ({
  headers: ['COMPOSITION', 'NAME', 'VERSION'],
  rows: list(field(body, 'service_templates')).map((template) => [
    text(field(field(template, 'metadata'), 'compositionId')),
    text(field(template, 'name')),
    text(field(template, 'version')),
  ]),
});

const definitionTable = (body: unknown): TableView => ({
  headers: ['COMPOSITION', 'NAME', 'VERSION', 'STATE', 'RESULT'],
  rows: [
    [
      text(field(body, 'compositionId')),
      text(field(field(body, 'serviceTemplate'), 'name')),
      text(field(field(body, 'serviceTemplate'), 'version')),
      text(field(body, 'state')),
      text(field(body, 'stateChangeResult')),
    ],
  ],
});

/** `acmctl definitions`: commission, list, get, delete, prime, deprime. */
export function registerDefinitions(program: Command, { connect, print, order }: CommandContext): void {
  const definitions = program.command('definitions').alias('def').description('composition definitions');
  definitions
    .command('commission <file>')
    .description('commission a service template (JSON or YAML)')
    .action(async (file: string, _options: unknown, command: Command) => {
      const body = readDocument(file);
      const answer = (await connect(command).request('POST', '/compositions', body)).body;
      print(command, answer, (value) => `commissioned ${text(field(value, 'compositionId'))}`);
    });
  definitions
    .command('list')
    .description('list the definitions')
    .option('--name <name>')
    .option('--version <version>')
    .action(async (options: { name?: string; version?: string }, command: Command) => {
      print(command, await connect(command).get(`/compositions${query(options)}`), definitionsTable);
    });
  definitions
    .command('get <composition>')
    .description('show a definition and its state')
    .action(async (composition: string, _options: unknown, command: Command) => {
      print(command, await connect(command).get(compositionPath(composition)), definitionTable);
    });
  definitions
    .command('delete <composition>')
    .description('delete a COMMISSIONED definition')
    .action(async (composition: string, _options: unknown, command: Command) => {
      const answer = (await connect(command).request('DELETE', compositionPath(composition))).body;
      print(command, answer, () => `deleted ${composition}`);
    });
  for (const primeOrder of ['PRIME', 'DEPRIME'] as const) {
    definitions
      .command(`${primeOrder.toLowerCase()} <composition>`)
      .description(`${primeOrder.toLowerCase()} a definition on its participants`)
      .option('--wait', 'follow the operation until it ends')
      .action(async (composition: string, options: WaitFlag, command: Command) => {
        await order(
          command,
          definitionSubject(composition),
          `${primeOrder} ${composition}`,
          async (client) => (await client.request('PUT', compositionPath(composition), { primeOrder })).body,
          options,
        );
      });
  }
}
