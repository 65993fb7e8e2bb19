import type { Command } from 'commander';
import { readDocument } from '../input-file';
import type { TableView } from '../output';
import { formatTable } from '../output';
import type { CommandContext } from './context';

/** A maintenance window as /v2/windows answers it (the fields the table shows). */
export interface WindowBody {
  readonly windowId: string;
  readonly name: string;
  readonly cron: string;
  readonly durationSeconds: number;
  readonly timeZone: string;
  readonly kind: string;
  readonly outside: string;
  readonly scope: { readonly compositionIds: readonly string[]; readonly metadata: Readonly<Record<string, string>> };
  readonly openNow: boolean;
  readonly nextStart: string | null;
}

/** The scope as one cell: the compositions and metadata it applies to, or `any`. */
function scopeText(scope: WindowBody['scope']): string {
  const parts = [
    ...(scope.compositionIds.length === 0 ? [] : [`compositions ${scope.compositionIds.join(',')}`]),
    ...Object.entries(scope.metadata).map(([key, value]) => `${key}=${value}`),
  ];
  return parts.length === 0 ? 'any' : parts.join(' ');
}

/** One row per window: when it opens, for how long, what it does and whether it is open now. */
export function windowsTable(body: unknown): TableView {
  // A list answers {windows: [...]}; one window (get, create) is the window itself.
  const windows =
    typeof body === 'object' && body !== null && 'windowId' in body
      ? [body as WindowBody]
      : ((body as { windows?: WindowBody[] }).windows ?? []);
  return {
    headers: ['WINDOW', 'NAME', 'KIND', 'CRON', 'TIME ZONE', 'DURATION', 'OUTSIDE', 'SCOPE', 'OPEN', 'NEXT START'],
    rows: windows.map((window) => [
      window.windowId,
      window.name,
      window.kind,
      window.cron,
      window.timeZone,
      `${window.durationSeconds}s`,
      window.outside,
      scopeText(window.scope),
      window.openNow ? 'yes' : 'no',
      window.nextStart ?? 'none within a year',
    ]),
  };
}

const windowPath = (window: string): string => `/windows/${encodeURIComponent(window)}`;

/** `acmctl windows`: the maintenance windows that say when orders may change instances. */
export function registerWindows(program: Command, { connect, print }: CommandContext): void {
  const windows = program
    .command('windows')
    .description('maintenance windows: when orders may change instances (docs/rollouts.md)');
  windows
    .command('list')
    .description('every window, oldest first')
    .action(async (_options: unknown, command: Command) => {
      print(command, await connect(command).get('/windows'), (body) => formatTable(windowsTable(body)));
    });
  windows
    .command('get <window>')
    .description('one window, open now or not, and its next start')
    .action(async (window: string, _options: unknown, command: Command) => {
      print(command, await connect(command).get(windowPath(window)), (body) => formatTable(windowsTable(body)));
    });
  windows
    .command('create <file>')
    .description('create a window from a file (JSON or YAML: name, cron, duration, timeZone, kind, outside, scope)')
    .action(async (file: string, _options: unknown, command: Command) => {
      const answer = await connect(command).request('POST', '/windows', readDocument(file));
      print(command, answer.body, (body) => formatTable(windowsTable(body)));
    });
  windows
    .command('delete <window>')
    .description('delete a window; rollouts it held go on at once')
    .action(async (window: string, _options: unknown, command: Command) => {
      await connect(command).request('DELETE', windowPath(window));
      print(command, { windowId: window, deleted: true }, () => `deleted window ${window}`);
    });
}
