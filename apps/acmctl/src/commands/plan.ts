import { Option } from 'commander';
import { readDocument } from '../input-file';
import { formatTable } from '../output';
import { planDiffText, planTable, useColours } from '../plan-view';
import type { Command } from 'commander';
import type { CommandContext } from './context';
import { instancePath, query } from './context';

/** The orders whose request carries the instance: their plan with a diff needs it. */
const BODY_ORDERS = new Set(['UPDATE', 'MIGRATE', 'MIGRATE_PRECHECK']);

interface PlanOptions {
  order: string;
  to?: string;
  file?: string;
  diff?: boolean;
}

/** `acmctl plan`: the steps an order would run; with --file or --diff, what it changes in each element too. */
export function registerPlan(program: Command, { cli, connect, print }: CommandContext): void {
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
    .option('--file <file>', 'UPDATE, MIGRATE, MIGRATE_PRECHECK: the body of the order (JSON or YAML); implies --diff')
    .option(
      '--diff',
      'what the order changes in each element (old → new) and its planId (POST .../plan); without --file an ' +
        'UPDATE or a migration is planned with the instance as it is now',
    )
    .action(async (composition: string, instance: string, options: PlanOptions, command: Command) => {
      const client = connect(command);
      if (options.file === undefined && options.diff !== true) {
        const path = `${instancePath(composition, instance)}/plan${query({ order: options.order, compositionTargetId: options.to })}`;
        print(command, await client.get(path), planTable);
        return;
      }
      const path = instancePath(composition, instance);
      let body: Record<string, unknown> = { order: options.order };
      if (BODY_ORDERS.has(options.order)) {
        const given = options.file ? readDocument(options.file) : ((await client.get(path)) as Record<string, unknown>);
        body = {
          order: options.order,
          instance: {
            ...given,
            compositionId: composition,
            instanceId: instance,
            ...(options.to === undefined ? {} : { compositionTargetId: options.to }),
            ...(options.order === 'MIGRATE_PRECHECK' ? { precheck: true } : {}),
          },
        };
      }
      const answer = (await client.request('POST', `${path}/plan`, body)).body;
      const colours = useColours(cli.isTerminal, cli.env);
      print(command, answer, (value) => `${formatTable(planTable(value))}\n\n${planDiffText(value, colours)}`);
    });
}
