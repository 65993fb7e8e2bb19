import type { Command } from 'commander';
import { randomUUID } from 'node:crypto';
import { readDocument } from '../input-file';
import { INSTANCE_HEADERS, instanceRow, instanceTable } from '../instance-view';
import type { TableView } from '../output';
import { field, list, render, text } from '../output';
import { runningOperationBaseline } from '../wait';
import type { CommandContext, WaitFlag } from './context';
import { compositionPath, instancePath, instanceSubject, query } from './context';

const instancesTable = (body: unknown): TableView => ({
  headers: INSTANCE_HEADERS,
  rows: list(field(body, 'automationCompositionList')).map(instanceRow),
});

/** `acmctl instances`: create, list, get, the orders, control of the running operation, signals, delete. */
export function registerInstances(program: Command, { cli, connect, format, print, order }: CommandContext): void {
  const instances = program.command('instances').alias('inst').description('composition instances');
  instances
    .command('create <file>')
    .description('create an instance from a file (JSON or YAML)')
    .option('--composition <composition>', 'the definition, instead of the compositionId of the file')
    .action(async (file: string, options: { composition?: string }, command: Command) => {
      const body = readDocument(file);
      const composition = options.composition ?? text(body['compositionId']);
      const answer = (
        await connect(command).request('POST', `${compositionPath(composition)}/instances`, {
          ...body,
          compositionId: composition,
        })
      ).body;
      print(command, answer, (value) => `created ${text(field(value, 'instanceId'))}`);
    });
  instances
    .command('list')
    .description('list instances across definitions (GET /v2/instances)')
    .option('--deploy-state <states>', 'comma-separated deploy states')
    .option('--state-change-result <results>', 'comma-separated results (NO_ERROR, FAILED, TIMEOUT)')
    .option('--instance-ids <ids>', 'comma-separated instance ids')
    .option('--participant-id <id>')
    .option('--sort <field>')
    .option('--sort-order <order>', 'ASC or DESC')
    .option('--page <n>')
    .option('--size <n>')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const parameters = query({
        deployState: options['deployState'],
        stateChangeResult: options['stateChangeResult'],
        instanceIds: options['instanceIds'],
        participantId: options['participantId'],
        sort: options['sort'],
        sortOrder: options['sortOrder'],
        page: options['page'],
        size: options['size'],
      });
      print(command, await connect(command).get(`/instances${parameters}`), instancesTable);
    });
  instances
    .command('get <composition> <instance>')
    .description('show an instance and its elements')
    .action(async (composition: string, instance: string, _options: unknown, command: Command) => {
      print(command, await connect(command).get(instancePath(composition, instance)), instanceTable);
    });

  const stateOrders = [
    ['deploy', { deployOrder: 'DEPLOY' }],
    ['undeploy', { deployOrder: 'UNDEPLOY' }],
    ['lock', { lockOrder: 'LOCK' }],
    ['unlock', { lockOrder: 'UNLOCK' }],
  ] as const;
  for (const [name, body] of stateOrders) {
    instances
      .command(`${name} <composition> <instance>`)
      .description(`order ${name}`)
      .option('--wait', 'follow the operation until it ends')
      .action(async (composition: string, instance: string, options: WaitFlag, command: Command) => {
        await order(
          command,
          instanceSubject(composition, instance),
          `${name.toUpperCase()} ${instance}`,
          async (client) => (await client.request('PUT', instancePath(composition, instance), body)).body,
          options,
        );
      });
  }
  instances
    .command('update <composition> <instance> <file>')
    .description("update a deployed instance's properties from a file (JSON or YAML)")
    .option('--wait', 'follow the operation until it ends')
    .action(async (composition: string, instance: string, file: string, options: WaitFlag, command: Command) => {
      const body = { ...readDocument(file), compositionId: composition, instanceId: instance };
      await order(
        command,
        instanceSubject(composition, instance),
        `UPDATE ${instance}`,
        async (client) => (await client.request('POST', `${compositionPath(composition)}/instances`, body)).body,
        options,
      );
    });
  instances
    .command('migrate <composition> <instance>')
    .description('migrate an instance to another primed definition')
    .requiredOption('--to <composition>', 'the target definition')
    .option('--file <file>', 'the instance as it should be after the migration (default: as it is now)')
    .option('--wait', 'follow the operation until it ends')
    .action(
      async (
        composition: string,
        instance: string,
        options: WaitFlag & { to: string; file?: string },
        command: Command,
      ) => {
        await order(
          command,
          instanceSubject(composition, instance),
          `MIGRATE ${instance}`,
          async (client) => {
            const current = options.file
              ? readDocument(options.file)
              : ((await client.get(instancePath(composition, instance))) as Record<string, unknown>);
            const body = {
              ...current,
              compositionId: composition,
              instanceId: instance,
              compositionTargetId: options.to,
            };
            return (await client.request('POST', `${compositionPath(composition)}/instances`, body)).body;
          },
          options,
        );
      },
    );
  instances
    .command('rollback <composition> <instance>')
    .description('roll back a failed update or migration')
    .option('--wait', 'follow the operation until it ends')
    .action(async (composition: string, instance: string, options: WaitFlag, command: Command) => {
      await order(
        command,
        instanceSubject(composition, instance),
        `ROLLBACK ${instance}`,
        async (client) => (await client.request('POST', `${instancePath(composition, instance)}/rollback`)).body,
        options,
      );
    });
  instances
    .command('cancel <composition> <instance>')
    .description('cancel the running operation: nothing new is dispatched (--rollback then reverses what it did)')
    .option('--rollback', 'run the reverse order for the elements the cancelled operation completed')
    .action(async (composition: string, instance: string, options: { rollback?: boolean }, command: Command) => {
      const query = options.rollback === true ? '?rollback=true' : '';
      const client = connect(command);
      await client.request('POST', `${instancePath(composition, instance)}/cancel${query}`);
      cli.out(`CANCEL ${instance}: accepted${options.rollback === true ? ', rollback started' : ''}`);
    });
  instances
    .command('pause <composition> <instance>')
    .description('pause the running operation: answers are recorded, nothing new is dispatched, its deadline stops')
    .action(async (composition: string, instance: string, _options: unknown, command: Command) => {
      const answer = await connect(command).request('POST', `${instancePath(composition, instance)}/pause`);
      cli.out(render(answer.body ?? null, format(command), (view) => `PAUSE ${instance}: ${controlLine(view)}`));
    });
  instances
    .command('resume <composition> <instance>')
    .description('resume a paused operation where it stopped')
    .option('--wait', 'follow the operation until it ends')
    .action(async (composition: string, instance: string, options: WaitFlag, command: Command) => {
      await order(
        command,
        instanceSubject(composition, instance),
        `RESUME ${instance}`,
        async (client) => (await client.request('POST', `${instancePath(composition, instance)}/resume`)).body,
        options,
        async (client) => {
          const control = await client.get(`${instancePath(composition, instance)}/control`);
          const running =
            typeof control === 'object' && control !== null && 'running' in control ? control.running : null;
          const operationId =
            typeof running === 'object' && running !== null && 'operationId' in running
              ? String(running.operationId)
              : '';
          return runningOperationBaseline(client, instanceSubject(composition, instance), operationId);
        },
      );
    });
  instances
    .command('signal <composition> <instance> <element>')
    .description('signal a wait-condition element: SUCCESS counts towards its count, FAILURE fails it')
    .requiredOption('--status <status>', 'SUCCESS or FAILURE')
    .option('--reason <reason>', 'why (kept in the history)')
    .option('--id <id>', 'idempotency key; a signal with a known id changes nothing (default: a new UUID)')
    .action(
      async (
        composition: string,
        instance: string,
        element: string,
        options: { status: string; reason?: string; id?: string },
        command: Command,
      ) => {
        const body = {
          status: options.status,
          id: options.id ?? randomUUID(),
          ...(options.reason === undefined ? {} : { reason: options.reason }),
        };
        const answer = await connect(command).request(
          'POST',
          `${instancePath(composition, instance)}/elements/${encodeURIComponent(element)}/signal`,
          body,
        );
        cli.out(render(answer.body ?? null, format(command), (view) => `SIGNAL ${element}: ${signalLine(view)}`));
      },
    );
  instances
    .command('signal-url <composition> <instance> <element>')
    .description('a signed URL that signals the wait condition without credentials, until it expires')
    .option('--expires-in <seconds>', 'how long the URL stays valid (default a day)')
    .action(
      async (
        composition: string,
        instance: string,
        element: string,
        options: { expiresIn?: string },
        command: Command,
      ) => {
        const query = options.expiresIn === undefined ? '' : `?expiresIn=${encodeURIComponent(options.expiresIn)}`;
        const answer = await connect(command).request(
          'GET',
          `${instancePath(composition, instance)}/elements/${encodeURIComponent(element)}/signal-url${query}`,
        );
        cli.out(render(answer.body ?? null, format(command), (view) => signedUrlOf(view)));
      },
    );
  instances
    .command('control <composition> <instance>')
    .description('the running operation: paused or not, resends and retries (empty when nothing runs)')
    .action(async (composition: string, instance: string, _options: unknown, command: Command) => {
      const answer = await connect(command).request('GET', `${instancePath(composition, instance)}/control`);
      cli.out(render(answer.body ?? null, format(command), controlLine));
    });
  instances
    .command('delete <composition> <instance>')
    .description('delete an UNDEPLOYED instance')
    .option('--wait', 'wait until it is gone')
    .action(async (composition: string, instance: string, options: WaitFlag, command: Command) => {
      await order(
        command,
        instanceSubject(composition, instance),
        `DELETE ${instance}`,
        async (client) => (await client.request('DELETE', instancePath(composition, instance))).body,
        { ...options, untilGone: true },
      );
    });
}

/** One line for the running operation's control view (GET .../control), or that nothing runs. */
function controlLine(answer: unknown): string {
  // GET .../control wraps the view as { running }; pause answers the view itself.
  const view = typeof answer === 'object' && answer !== null && 'running' in answer ? answer.running : answer;
  if (typeof view !== 'object' || view === null || !('operationId' in view)) {
    return 'nothing runs';
  }
  const field = (name: string): string => String((view as Record<string, unknown>)[name]);
  const state = field('paused') === 'true' ? 'paused' : 'running';
  return `${field('order')} ${field('operationId')}: ${state}, resent ${field('resent')}, retried ${field('retried')}`;
}

/** One line for a signal's answer: what it did, and how far the wait is. */
function signalLine(view: unknown): string {
  const answer = (typeof view === 'object' && view !== null ? view : {}) as Record<string, unknown>;
  const progress =
    typeof answer['successes'] === 'number' && typeof answer['count'] === 'number'
      ? ` (${answer['successes']}/${answer['count']})`
      : '';
  const effect = answer['effect'];
  return `${typeof effect === 'string' ? effect : 'done'}${progress}`;
}

/** The URL of a signal-url answer, alone on its line so that a shell can capture it. */
function signedUrlOf(view: unknown): string {
  const answer = (typeof view === 'object' && view !== null ? view : {}) as Record<string, unknown>;
  const url = answer['url'];
  return typeof url === 'string' ? url : '';
}
