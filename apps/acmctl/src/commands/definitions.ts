import type { Command } from 'commander';
import { readDocument } from '../input-file';
import type { TableView } from '../output';
import { field, list, text } from '../output';
import type { CommandContext, WaitFlag } from './context';
import { compositionPath, definitionSubject, query } from './context';

/** A definition's state as its own GET answers it; ONAP's list carries the service templates alone. */
interface DefinitionState {
  readonly state: string;
  readonly stateChangeResult: string;
  /** Beyond ONAP: the project of the definition (empty from a runtime that does not say). */
  readonly project: string;
}

export const definitionsTable = (body: unknown, states: ReadonlyMap<string, DefinitionState>): TableView => ({
  headers: ['COMPOSITION', 'NAME', 'VERSION', 'PROJECT', 'STATE', 'RESULT'],
  rows: list(field(body, 'service_templates')).map((template) => {
    const compositionId = text(field(field(template, 'metadata'), 'compositionId'));
    const state = states.get(compositionId);
    return [
      compositionId,
      text(field(template, 'name')),
      text(field(template, 'version')),
      state?.project ?? '',
      state?.state ?? '',
      state?.stateChangeResult ?? '',
    ];
  }),
});

export const definitionTable = (body: unknown): TableView => ({
  headers: ['COMPOSITION', 'NAME', 'VERSION', 'PROJECT', 'STATE', 'RESULT'],
  rows: [
    [
      text(field(body, 'compositionId')),
      text(field(field(body, 'serviceTemplate'), 'name')),
      text(field(field(body, 'serviceTemplate'), 'version')),
      text(field(body, 'project')),
      text(field(body, 'state')),
      text(field(body, 'stateChangeResult')),
    ],
  ],
});

/** `acmctl definitions`: commission, list, get, delete, prime, deprime. */
export function registerDefinitions(program: Command, { connect, format, print, order }: CommandContext): void {
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
      const client = connect(command);
      const body = await client.get(`/compositions${query(options)}`);
      const states = new Map<string, DefinitionState>();
      if (format(command) === 'table') {
        for (const template of list(field(body, 'service_templates'))) {
          const compositionId = text(field(field(template, 'metadata'), 'compositionId'));
          const definition = await client.get(compositionPath(compositionId));
          states.set(compositionId, {
            state: text(field(definition, 'state')),
            stateChangeResult: text(field(definition, 'stateChangeResult')),
            project: text(field(definition, 'project')),
          });
        }
      }
      print(command, body, (value) => definitionsTable(value, states));
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
