import type { components } from '../../../openapi/rest-types';
import type { TableView } from './output';
import { fitToWidth } from './views';

/** A rollout as GET .../rollouts/{id} answers it (the OpenAPI document's schema). */
export type RolloutBody = components['schemas']['RolloutDto'];
type InstanceState = RolloutBody['batches'][number]['instances'][number]['state'];

/** Each instance state's cell: a letter that reads without colour, and its ANSI colour on a terminal. */
const CELLS: Readonly<Record<InstanceState, { readonly label: string; readonly colour: number }>> = {
  PENDING: { label: '.', colour: 90 },
  ORDERED: { label: '>', colour: 36 },
  DONE: { label: 'D', colour: 32 },
  FAILED: { label: 'F', colour: 31 },
  REFUSED: { label: 'R', colour: 33 },
  ROLLING_BACK: { label: '<', colour: 35 },
  ROLLED_BACK: { label: 'B', colour: 35 },
  ROLLBACK_FAILED: { label: '!', colour: 91 },
  UNHEALTHY: { label: 'U', colour: 31 },
};

export const ROLLOUT_LEGEND = Object.entries(CELLS)
  .map(([state, cell]) => `${cell.label} ${state}`)
  .join('  ');

const FINISHED = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export function rolloutFinished(rollout: RolloutBody): boolean {
  return FINISHED.has(rollout.state);
}

/** `rollouts get` as a table: one row per batch, its state, failures and instances per state. */
export function rolloutTable(body: unknown): TableView {
  const rollout = body as RolloutBody;
  return {
    headers: ['BATCH', 'STATE', 'FAILURES', 'INSTANCES'],
    rows: rollout.batches.map((batch) => {
      const counts = new Map<string, number>();
      for (const item of batch.instances) {
        counts.set(item.state, (counts.get(item.state) ?? 0) + 1);
      }
      return [
        String(batch.batch),
        batch.state,
        `${batch.failures}${batch.overThreshold ? ' (over threshold)' : ''}`,
        [...counts].map(([state, count]) => `${count} ${state}`).join(', '),
      ];
    }),
  };
}

/** The first line of `rollouts get` and of the live view: the rollout, its order, state and why it stopped. */
export function rolloutHeadline(rollout: RolloutBody): string {
  const done = rollout.counts.DONE;
  const total = rollout.batches.reduce((sum, batch) => sum + batch.instances.length, 0);
  return [
    `rollout ${rollout.rolloutId} ${rollout.order} ${rollout.state}`,
    `${done}/${total} done`,
    ...(rollout.reason === null ? [] : [rollout.reason]),
  ].join('  ');
}

/**
 * The live view's lines: the headline, then one row per batch with one cell per instance, labelled by state and
 * coloured on a terminal; a row longer than the terminal shows the cells that fit and how many more there are.
 */
export function rolloutGrid(rollout: RolloutBody, width: number, colour: boolean): string[] {
  const lines = [fitToWidth(rolloutHeadline(rollout), Math.max(1, width - 1))];
  for (const batch of rollout.batches) {
    const prefix = `batch ${String(batch.batch).padStart(3)} ${batch.state.padEnd(7)} `;
    const room = Math.max(0, width - 1 - prefix.length);
    const states = batch.instances.map((item) => item.state);
    const more = (shown: number): string => (shown < states.length ? ` +${states.length - shown}` : '');
    let shown = Math.min(states.length, room);
    while (shown > 0 && shown + more(shown).length > room) {
      shown -= 1;
    }
    const cells = states
      .slice(0, shown)
      .map((state) => (colour ? `\u001b[${CELLS[state].colour}m${CELLS[state].label}\u001b[0m` : CELLS[state].label))
      .join('');
    lines.push(`${prefix}${cells}${more(shown)}`);
  }
  return lines;
}
