import type { TableView } from './output';
import type { History } from './progress';
import { outcomeOf, readHistory, timeOf } from './progress';

const duration = (ms: number | null): string => (ms === null ? '-' : `${ms} ms`);

/** The operations of a history, one row each. */
export function historyTable(body: unknown): TableView {
  const history = readHistory(body);
  return {
    headers: ['OPERATION', 'ORDER', 'STATE', 'STARTED', 'DURATION'],
    rows: history.operations.map((operation) => [
      operation.operationId,
      operation.order,
      outcomeOf(operation),
      operation.startedAt,
      duration(operation.durationMs),
    ]),
  };
}

/** Each operation with its phases and how long each took (PHASE_STARTED to PHASE_COMPLETED). */
export function historyTimeline(body: unknown): string {
  const history: History = readHistory(body);
  const lines: string[] = [];
  for (const operation of history.operations) {
    lines.push(`${operation.startedAt}  ${operation.order} ${operation.state}  ${duration(operation.durationMs)}`);
    const events = history.events.filter((event) => event.operationId === operation.operationId);
    const started = new Map<number, number>();
    for (const event of events) {
      if (event.event === 'PHASE_STARTED') {
        started.set(event.detail.phase, timeOf(event.at));
      } else if (event.event === 'PHASE_COMPLETED' && event.detail.phase !== null && started.has(event.detail.phase)) {
        const phase = event.detail.phase;
        lines.push(`  phase ${phase}  ${duration(timeOf(event.at) - (started.get(phase) ?? 0))}`);
        started.delete(phase);
      }
    }
    for (const phase of started.keys()) {
      lines.push(`  phase ${phase}  not finished`);
    }
  }
  return lines.join('\n');
}
