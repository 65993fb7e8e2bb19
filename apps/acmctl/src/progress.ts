import { field, list, text } from './output';

/** One event of the runtime's history (`GET .../history`). */
export interface HistoryEvent {
  readonly sequence: number;
  readonly operationId: string;
  readonly event: string;
  readonly detail: Record<string, unknown>;
  readonly at: string;
}

/** One operation of the runtime's history. */
export interface HistoryOperation {
  readonly operationId: string;
  readonly order: string;
  readonly state: string;
  readonly timedOut: boolean;
  readonly phase: number | null;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly durationMs: number | null;
}

export interface History {
  readonly operations: HistoryOperation[];
  readonly events: HistoryEvent[];
}

export function readHistory(body: unknown): History {
  const events = list(field(body, 'events')).map((event) => ({
    sequence: Number(field(event, 'sequence')),
    operationId: text(field(event, 'operationId')),
    event: text(field(event, 'event')),
    detail: (field(event, 'detail') ?? {}) as Record<string, unknown>,
    at: text(field(event, 'at')),
  }));
  const operations = list(field(body, 'operations')).map((operation) => {
    const phase = field(operation, 'phase');
    const duration = field(operation, 'durationMs');
    const finishedAt = field(operation, 'finishedAt');
    return {
      operationId: text(field(operation, 'operationId')),
      order: text(field(operation, 'order')),
      state: text(field(operation, 'state')),
      timedOut: field(operation, 'timedOut') === true,
      phase: typeof phase === 'number' ? phase : null,
      startedAt: text(field(operation, 'startedAt')),
      finishedAt: typeof finishedAt === 'string' ? finishedAt : null,
      durationMs: typeof duration === 'number' ? duration : null,
    };
  });
  return { operations, events };
}

/** The runtime writes times as `YYYY-MM-DD HH:mm:ss.SSS` in UTC. */
export function timeOf(at: string): number {
  return Date.parse(`${at.replace(' ', 'T')}Z`);
}

export type Outcome = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'TIMEOUT';

export function outcomeOf(operation: HistoryOperation): Outcome {
  if (operation.timedOut || operation.state === 'TIMEOUT') {
    return 'TIMEOUT';
  }
  if (operation.state === 'COMPLETED' || operation.state === 'FAILED') {
    return operation.state;
  }
  return 'RUNNING';
}

/** The operation an order started: the first one ORDERED after the history's last event seen before the order. */
export function operationAfter(history: History, baselineSequence: number): HistoryOperation | undefined {
  const ordered = history.events.find((event) => event.sequence > baselineSequence && event.event === 'ORDERED');
  return ordered && history.operations.find((operation) => operation.operationId === ordered.operationId);
}

export function lastSequence(history: History): number {
  return history.events.reduce((highest, event) => Math.max(highest, event.sequence), 0);
}

/** An element as the live view shows it. */
export interface ElementProgress {
  readonly id: string;
  readonly name: string;
  readonly phase: number;
  /** `pending` before its phase starts, `running` once dispatched, else the state it reported. */
  readonly state: string;
  readonly failed: boolean;
}

export interface PhaseProgress {
  readonly phase: number;
  readonly elements: ElementProgress[];
  readonly done: number;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
}

export interface OperationProgress {
  readonly phases: PhaseProgress[];
  /** The elements dispatched and not yet answered. */
  readonly waitingFor: string[];
}

/** An element of the instance graph (`GET .../graph?format=json`). */
export interface GraphNode {
  readonly id: string;
  readonly name: string;
  readonly startPhase: number;
}

export function readGraphNodes(body: unknown): GraphNode[] {
  return list(field(body, 'nodes')).map((node) => ({
    id: text(field(node, 'id')),
    name: text(field(node, 'name')),
    startPhase: Number(field(node, 'startPhase') ?? 0),
  }));
}

/** Folds one operation's events over the instance's elements: each phase's elements, their states and timings. */
export function foldProgress(nodes: readonly GraphNode[], events: readonly HistoryEvent[]): OperationProgress {
  const states = new Map<string, { state: string; failed: boolean }>();
  const phaseStart = new Map<number, number>();
  const phaseEnd = new Map<number, number>();
  const phaseOf = new Map(nodes.map((node) => [node.id, node.startPhase]));
  for (const event of events) {
    const phase = Number(event.detail['phase']);
    if (event.event === 'PHASE_STARTED') {
      phaseStart.set(phase, timeOf(event.at));
      for (const id of list(event.detail['elementIds'])) {
        states.set(String(id), { state: 'running', failed: false });
        if (!phaseOf.has(String(id))) {
          phaseOf.set(String(id), phase);
        }
      }
    } else if (event.event === 'ELEMENTS_DISPATCHED') {
      for (const id of list(event.detail['elementIds'])) {
        states.set(String(id), { state: 'running', failed: false });
      }
    } else if (event.event === 'PHASE_COMPLETED') {
      phaseEnd.set(phase, timeOf(event.at));
    } else if (event.event === 'ELEMENT_RESULT') {
      const id = text(event.detail['elementId']);
      const state = [event.detail['deployState'], event.detail['lockState']].filter(Boolean).map(String).join('/');
      states.set(id, { state: state || 'answered', failed: event.detail['result'] === false });
    }
  }
  const names = new Map(nodes.map((node) => [node.id, node.name]));
  const elements: ElementProgress[] = [...phaseOf.entries()].map(([id, phase]) => ({
    id,
    name: names.get(id) ?? id,
    phase,
    state: states.get(id)?.state ?? 'pending',
    failed: states.get(id)?.failed ?? false,
  }));
  const phaseNumbers = [...new Set(elements.map((element) => element.phase))].sort((a, b) => a - b);
  const phases = phaseNumbers.map((phase) => {
    const inPhase = elements.filter((element) => element.phase === phase);
    return {
      phase,
      elements: inPhase,
      done: inPhase.filter((element) => element.state !== 'pending' && element.state !== 'running').length,
      startedAt: phaseStart.get(phase) ?? null,
      finishedAt: phaseEnd.get(phase) ?? null,
    };
  });
  const waitingFor = elements.filter((element) => element.state === 'running').map((element) => element.name);
  return { phases, waitingFor };
}

/** One line per event, for logs and pipes: time, event, and what it is about. */
export function eventLine(event: HistoryEvent, names: ReadonlyMap<string, string>): string {
  const name = (id: unknown): string => names.get(String(id)) ?? String(id);
  const detail = event.detail;
  let about: string;
  switch (event.event) {
    case 'ORDERED':
      about = text(detail['order']);
      break;
    case 'PHASE_STARTED':
    case 'ELEMENTS_DISPATCHED':
      about = `phase ${text(detail['phase'])}: ${list(detail['elementIds']).map(name).join(', ')}`;
      break;
    case 'PHASE_COMPLETED':
      about = `phase ${text(detail['phase'])}`;
      break;
    case 'ELEMENT_RESULT':
      about = [
        name(detail['elementId']),
        [detail['deployState'], detail['lockState']].filter(Boolean).map(String).join('/'),
        detail['result'] === false ? 'FAILED' : '',
        detail['message'] ? `"${text(detail['message'])}"` : '',
      ]
        .filter(Boolean)
        .join(' ');
      break;
    default:
      about = Object.entries(detail)
        .filter(([, value]) => value !== null && value !== undefined)
        .map(([key, value]) => `${key}=${text(value)}`)
        .join(' ');
  }
  return `${event.at} ${event.event}${about ? ` ${about}` : ''}`;
}
