import { Option } from 'commander';
import type { TableView } from '../output';
import { field, list, text } from '../output';
import type { Command } from 'commander';
import type { CommandContext } from './context';
import { instancePath, query } from './context';

/** One row per step of a plan: what is sent, in which phase, and what each element waits for. */
const planTable = (body: unknown): TableView => {
  const names = new Map<string, string>();
  for (const step of list(field(body, 'steps'))) {
    for (const element of list(field(step, 'elements'))) {
      names.set(text(field(element, 'elementId')), text(field(element, 'name')));
    }
  }
  return {
    headers: ['STEP', 'KIND', 'PHASE', 'ELEMENTS', 'WAITS FOR'],
    rows: list(field(body, 'steps')).map((step) => {
      const elements = list(field(step, 'elements'));
      const waits = elements.flatMap((element) =>
        list(field(element, 'waitsFor')).map((id) => names.get(text(id)) ?? text(id)),
      );
      return [
        text(field(step, 'step')),
        text(field(step, 'kind')),
        text(field(step, 'phase')),
        elements.map((element) => text(field(element, 'name'))).join(', '),
        [...new Set(waits)].join(', '),
      ];
    }),
  };
};

/** `acmctl plan`: the steps an order would run. */
export function registerPlan(program: Command, { connect, print }: CommandContext): void {
  program
    .command('plan <composition> <instance>')
    .description('the steps an order would run, in order, without starting it (GET .../plan)')
    .addOption(
      new Option('--order <order>', 'the order to plan')
        .choices([
          'DEPLOY',
          'UNDEPLOY',
          'LOCK',
          'UNLOCK',
          'DELETE',
          'UPDATE',
          'MIGRATE',
          'MIGRATE_PRECHECK',
          'PREPARE',
          'REVIEW',
        ])
        .default('DEPLOY'),
    )
    .option('--to <composition>', 'MIGRATE and MIGRATE_PRECHECK: the target definition')
    .action(
      async (composition: string, instance: string, options: { order: string; to?: string }, command: Command) => {
        const path = `${instancePath(composition, instance)}/plan${query({ order: options.order, compositionTargetId: options.to })}`;
        print(command, await connect(command).get(path), planTable);
      },
    );
}
