import type { Command } from 'commander';
import { AcmClient } from '../client';
import type { ConnectionFlags } from '../connection';
import { resolveConnection } from '../connection';
import { AcmctlError, EXIT } from '../exit-codes';
import type { OutputFormat, TableView } from '../output';
import { parseOutputFormat, render } from '../output';
import { EventLineView, LiveView } from '../views';
import type { ProgressView, Subject } from '../wait';
import { historyBaseline, waitForOperation } from '../wait';

/** What the commands need from the process, so tests can run them without one. */
export interface CliEnvironment {
  readonly env: NodeJS.ProcessEnv;
  readonly isTerminal: boolean;
  readonly out: (text: string) => void;
}

export interface GlobalOptions extends ConnectionFlags {
  output: string;
  timeout: string;
}

export interface WaitFlag {
  wait?: boolean;
}

export const compositionPath = (composition: string): string => `/compositions/${encodeURIComponent(composition)}`;
export const instancePath = (composition: string, instance: string): string =>
  `${compositionPath(composition)}/instances/${encodeURIComponent(instance)}`;

export function instanceSubject(composition: string, instance: string): Subject {
  const path = instancePath(composition, instance);
  return { statePath: path, historyPath: `${path}/history`, graphPath: `${path}/graph` };
}

export function definitionSubject(composition: string): Subject {
  const path = compositionPath(composition);
  return { statePath: path, historyPath: `${path}/history` };
}

/** Query parameters from the options given; options left out send nothing. */
export function query(parameters: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) {
      search.set(name, value);
    }
  }
  const encoded = search.toString();
  return encoded === '' ? '' : `?${encoded}`;
}

/** What every command group uses: the connection, the output format and the order-and-wait loop. */
export interface CommandContext {
  readonly cli: CliEnvironment;
  readonly globals: (command: Command) => GlobalOptions;
  readonly connect: (command: Command) => AcmClient;
  readonly format: (command: Command) => OutputFormat;
  readonly print: (command: Command, body: unknown, table: (body: unknown) => TableView | string) => void;
  /** Sends an order and, with --wait, follows the operation it started until it ends. */
  readonly order: (
    command: Command,
    subject: Subject,
    title: string,
    send: (client: AcmClient) => Promise<unknown>,
    options: WaitFlag & { untilGone?: boolean },
    baselineOf?: (client: AcmClient) => Promise<number>,
  ) => Promise<void>;
}

export function commandContext(cli: CliEnvironment): CommandContext {
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

  return { cli, globals, connect, format, print, order };
}
