import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { AcmClient } from './client';
import type { Connection, ConnectionFlags } from './connection';
import { profilePath, resolveConnection, writeProfile } from './connection';
import { AcmctlError, EXIT } from './exit-codes';
import { historyTable, historyTimeline } from './history-view';
import { readDocument } from './input-file';
import type { OutputFormat, TableView } from './output';
import { OUTPUT_FORMATS, field, list, parseOutputFormat, render, text } from './output';
import { EventLineView, LiveView } from './views';
import type { ProgressView, Subject } from './wait';
import { historyBaseline, runningOperationBaseline, waitForOperation } from './wait';

/** What the commands need from the process, so tests can run them without one. */
export interface CliEnvironment {
  readonly env: NodeJS.ProcessEnv;
  readonly isTerminal: boolean;
  readonly out: (text: string) => void;
}

interface GlobalOptions extends ConnectionFlags {
  output: string;
  timeout: string;
}

interface WaitFlag {
  wait?: boolean;
}

const compositionPath = (composition: string): string => `/compositions/${encodeURIComponent(composition)}`;
const instancePath = (composition: string, instance: string): string =>
  `${compositionPath(composition)}/instances/${encodeURIComponent(instance)}`;

function instanceSubject(composition: string, instance: string): Subject {
  const path = instancePath(composition, instance);
  return { statePath: path, historyPath: `${path}/history`, graphPath: `${path}/graph` };
}

function definitionSubject(composition: string): Subject {
  const path = compositionPath(composition);
  return { statePath: path, historyPath: `${path}/history` };
}

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

const instanceRow = (instance: unknown): string[] => [
  text(field(instance, 'instanceId')),
  text(field(instance, 'compositionId')),
  text(field(instance, 'name')),
  text(field(instance, 'version')),
  text(field(instance, 'deployState')),
  text(field(instance, 'lockState')),
  text(field(instance, 'stateChangeResult')),
];
const INSTANCE_HEADERS = ['INSTANCE', 'COMPOSITION', 'NAME', 'VERSION', 'DEPLOY', 'LOCK', 'RESULT'];

const instancesTable = (body: unknown): TableView => ({
  headers: INSTANCE_HEADERS,
  rows: list(field(body, 'automationCompositionList')).map(instanceRow),
});

function instanceTable(body: unknown): string {
  const summary = { headers: INSTANCE_HEADERS, rows: [instanceRow(body)] };
  const elements = Object.values((field(body, 'elements') ?? {}) as Record<string, unknown>);
  const elementView = {
    headers: ['ELEMENT', 'DEFINITION', 'DEPLOY', 'LOCK', 'MESSAGE'],
    rows: elements.map((element) => [
      text(field(element, 'id')),
      `${text(field(field(element, 'definition'), 'name'))}:${text(field(field(element, 'definition'), 'version'))}`,
      text(field(element, 'deployState')),
      text(field(element, 'lockState')),
      text(field(element, 'message')),
    ]),
  };
  return `${render(summary, 'table', () => summary)}\n\n${render(elementView, 'table', () => elementView)}`;
}

const participantsTable = (body: unknown): TableView => ({
  headers: ['PARTICIPANT', 'ELEMENT TYPES', 'REPLICAS'],
  rows: (Array.isArray(body) ? body : [body]).map((entry) => {
    const participant = field(entry, 'participant');
    const values = (value: unknown): unknown[] => Object.values((value ?? {}) as Record<string, unknown>);
    return [
      text(field(participant, 'participantId')),
      values(field(participant, 'participantSupportedElementTypes'))
        .map((type) => `${text(field(type, 'typeName'))}:${text(field(type, 'typeVersion'))}`)
        .join(', '),
      values(field(participant, 'replicas'))
        .map((replica) => text(field(replica, 'participantState')))
        .join(', '),
    ];
  }),
});

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

/** Query parameters from the options given; options left out send nothing. */
function query(parameters: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) {
      search.set(name, value);
    }
  }
  const encoded = search.toString();
  return encoded === '' ? '' : `?${encoded}`;
}

const EXAMPLES = `
Examples:
  $ acmctl login --url http://localhost:6969 --user runtimeUser --password 'zb!XztG34'
  $ acmctl definitions commission tosca/examples/sim-three-phase.yaml
  $ acmctl definitions prime COMPOSITION --wait
  $ acmctl instances create tosca/examples/instances/sim-three-phase.json --composition COMPOSITION
  $ acmctl instances deploy COMPOSITION INSTANCE --wait
  $ acmctl instances list --deploy-state DEPLOYED -o yaml
  $ acmctl history COMPOSITION INSTANCE --timeline
  $ acmctl history export --file history.ndjson
  $ acmctl plan COMPOSITION INSTANCE --order UNDEPLOY
  $ acmctl graph COMPOSITION --format mermaid
  $ acmctl docs COMPOSITION --html > composition.html
  $ source <(acmctl completion bash)

Connection: --url/--user/--password, else ACM_URL/ACM_USER/ACM_PASSWORD, else the profile written by
"acmctl login", else ONAP's defaults. Exit codes: 0 done, 1 bad input, 2 FAILED, 3 TIMEOUT, 4 refused by the
runtime, 5 runtime unreachable, 6 wrong credentials, 7 runtime error.`;

export function buildProgram(cli: CliEnvironment): Command {
  const program = new Command('acmctl')
    .description('Drive an ONAP ACM compatible runtime: definitions, instances, their operations and history.')
    .option('--url <url>', 'runtime base URL (ACM_URL)')
    .option('--user <user>', 'HTTP Basic user (ACM_USER)')
    .option('--password <password>', 'HTTP Basic password (ACM_PASSWORD)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'))
    .option('--timeout <ms>', 'how long --wait waits', '300000')
    .showHelpAfterError()
    .addHelpText('after', EXAMPLES)
    .exitOverride();

  const globals = (command: Command): GlobalOptions => command.optsWithGlobals<GlobalOptions>();
  const connect = (command: Command): AcmClient => new AcmClient(resolveConnection(globals(command), cli.env));
  const format = (command: Command): OutputFormat => parseOutputFormat(globals(command).output);
  const print = (command: Command, body: unknown, table: (body: unknown) => TableView | string): void =>
    cli.out(render(body, format(command), table));

  const view = (title: string): ProgressView => (cli.isTerminal ? new LiveView(title) : new EventLineView(cli.out));
  const timeoutMs = (command: Command): number => {
    const value = Number(globals(command).timeout);
    if (!Number.isInteger(value) || value <= 0) {
      throw new AcmctlError(
        EXIT.USAGE,
        `--timeout: must be a positive number of milliseconds, got "${globals(command).timeout}"`,
      );
    }
    return value;
  };

  /** Sends an order and, with --wait, follows the operation it started until it ends. */
  async function order(
    command: Command,
    subject: Subject,
    title: string,
    send: (client: AcmClient) => Promise<unknown>,
    options: WaitFlag & { untilGone?: boolean },
    baselineOf: (client: AcmClient) => Promise<number> = (client) => historyBaseline(client, subject),
  ): Promise<void> {
    const client = connect(command);
    const baseline = options.wait ? await baselineOf(client) : 0;
    const answer = await send(client);
    if (!options.wait) {
      cli.out(
        answer === null || answer === undefined
          ? `${title}: accepted`
          : render(answer, format(command), () => `${title}: accepted`),
      );
      return;
    }
    await waitForOperation(client, subject, baseline, view(title), {
      timeoutMs: timeoutMs(command),
      pollMs: 200,
      untilGone: options.untilGone,
    });
    cli.out(`${title}: done`);
  }

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

  program
    .command('graph <composition> [instance]')
    .description("a definition's (or instance's) element graph by start phase, with dependsOn edges")
    .addOption(new Option('--format <format>', 'graph format').choices(['dot', 'mermaid', 'json']).default('dot'))
    .action(
      async (composition: string, instance: string | undefined, options: { format: string }, command: Command) => {
        const base = instance === undefined ? compositionPath(composition) : instancePath(composition, instance);
        const answer = (
          await connect(command).request('GET', `${base}/graph?format=${options.format}`, undefined, '*/*')
        ).body;
        cli.out(typeof answer === 'string' ? answer.trimEnd() : JSON.stringify(answer, null, 2));
      },
    );

  const history = program
    .command('history <composition> [instance]')
    .description('the operations of a definition or instance; --timeline for their phases and durations')
    .option('--timeline', 'each operation with its phases and their durations')
    .action(
      async (composition: string, instance: string | undefined, options: { timeline?: boolean }, command: Command) => {
        const subject =
          instance === undefined ? definitionSubject(composition) : instanceSubject(composition, instance);
        print(
          command,
          await connect(command).get(subject.historyPath),
          options.timeline ? historyTimeline : historyTable,
        );
      },
    );

  history
    .command('export [composition] [instance]')
    .description(
      "the whole history as NDJSON (a JSON object a line) of an instance, a definition or, with no id, the runtime's; " +
        'to standard output or --file, to archive it before retention prunes it',
    )
    .option('--file <path>', 'write to this file (replaced) instead of standard output')
    .action(
      async (
        composition: string | undefined,
        instance: string | undefined,
        options: { file?: string },
        command: Command,
      ) => {
        const path =
          composition === undefined
            ? '/history?format=ndjson'
            : `${instance === undefined ? definitionSubject(composition).historyPath : instanceSubject(composition, instance).historyPath}?format=ndjson`;
        const chunks = await connect(command).stream(path, 'application/x-ndjson');
        if (options.file !== undefined) {
          await writeFile(options.file, chunks);
          return;
        }
        // Line by line, so that only one line is held at a time.
        let pending = '';
        for await (const chunk of chunks) {
          const lines = (pending + chunk).split('\n');
          pending = lines.pop() ?? '';
          for (const line of lines) {
            cli.out(line);
          }
        }
        if (pending !== '') {
          cli.out(pending);
        }
      },
    );

  program
    .command('participants [participant]')
    .description('the participants and the element types they serve')
    .action(async (participant: string | undefined, _options: unknown, command: Command) => {
      const path = participant === undefined ? '/participants' : `/participants/${encodeURIComponent(participant)}`;
      print(command, await connect(command).get(path), participantsTable);
    });

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

  program
    .command('docs <composition>')
    .description("a definition's documentation generated by the runtime: Markdown, or HTML with --html")
    .option('--html', 'HTML instead of Markdown')
    .action(async (composition: string, options: { html?: boolean }, command: Command) => {
      const accept = options.html ? 'text/html' : 'text/markdown';
      const answer = (await connect(command).request('GET', `${compositionPath(composition)}/docs`, undefined, accept))
        .body;
      cli.out(typeof answer === 'string' ? answer.trimEnd() : JSON.stringify(answer, null, 2));
    });

  program
    .command('completion [shell]')
    .description('print a completion script for bash (default) or zsh: source <(acmctl completion bash)')
    .action((shell: string | undefined) => {
      if (shell !== undefined && shell !== 'bash' && shell !== 'zsh') {
        throw new AcmctlError(EXIT.USAGE, `completion: shell must be bash or zsh, got "${shell}"`);
      }
      const script = bashCompletion(program);
      // zsh runs the bash function through its bash completion layer.
      cli.out(shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${script}` : script);
    });

  return program;
}

/** A bash completion script for the command tree: sub-commands, then the options of the command typed. */
export function bashCompletion(program: Command): string {
  const cases = program.commands.map((command) => {
    const words = [...command.commands.map((sub) => sub.name()), ...command.options.map((option) => option.long ?? '')];
    return `    ${command.name()}) words="${words.filter(Boolean).join(' ')}" ;;`;
  });
  const top = [
    ...program.commands.map((command) => command.name()),
    ...program.options.map((option) => option.long ?? ''),
  ];
  return [
    '_acmctl() {',
    '  local current="${COMP_WORDS[COMP_CWORD]}" words',
    '  case "${COMP_WORDS[1]}" in',
    ...cases,
    `    *) words="${top.filter(Boolean).join(' ')}" ;;`,
    '  esac',
    '  [ "$COMP_CWORD" -eq 1 ] && words="' + top.filter(Boolean).join(' ') + '"',
    '  COMPREPLY=($(compgen -W "$words" -- "$current"))',
    '}',
    'complete -F _acmctl acmctl',
  ].join('\n');
}

/** Streams the chunks into a file; a file that cannot be written is a usage error that names it. */
async function writeFile(path: string, chunks: AsyncIterable<string>): Promise<void> {
  try {
    await pipeline(Readable.from(chunks), createWriteStream(path));
  } catch (error) {
    if (error instanceof AcmctlError) {
      throw error;
    }
    throw new AcmctlError(
      EXIT.USAGE,
      `--file: cannot write ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
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
