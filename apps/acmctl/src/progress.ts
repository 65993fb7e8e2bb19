import type { components } from '../../../openapi/rest-types';
import { field, list, text } from './output';

/** One event of the runtime's history (`GET .../history`), as the OpenAPI document describes each kind. */
export type HistoryEvent = components['schemas']['HistoryView']['events'][number];

/** How an operation can end (the document's states but RUNNING). */
export type OperationState = components['schemas']['OperationView']['state'];

/** One operation of the runtime's history. */
export interface HistoryOperation {
  readonly operationId: string;
  readonly order: string;
  readonly state: OperationState;
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
  // The runtime answers its own document's schema; acmctl reads it as that, not field by field.
  const events = list(field(body, 'events')) as HistoryEvent[];
  const operations = list(field(body, 'operations')).map((operation) => {
    const phase = field(operation, 'phase');
    const duration = field(operation, 'durationMs');
    const finishedAt = field(operation, 'finishedAt');
    return {
      operationId: text(field(operation, 'operationId')),
      order: text(field(operation, 'order')),
      state: text(field(operation, 'state')) as OperationState,
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

export type Outcome = OperationState | 'TIMEOUT';

/** The operation's state, TIMEOUT once it passed its deadline, unless it was cancelled or superseded since. */
export function outcomeOf(operation: HistoryOperation): Outcome {
  if (operation.state === 'CANCELLED' || operation.state === 'SUPERSEDED') {
    return operation.state;
  }
  return operation.timedOut ? 'TIMEOUT' : operation.state;
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
  /** `pending` until it is dispatched, `running` once dispatched, else the state it reported. */
  readonly state: string;
  readonly failed: boolean;
  /**
   * What a pending element of a running operation is queued behind: its phase to open, the elements it depends on to
   * finish, or else a free parallel slot or a gate of the runtime; for an element that answered DEPLOYED, its health
   * gate (condition and what it observed); null once dispatched or when the operation ended.
   */
  readonly waitingFor: string | null;
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
  readonly running: string[];
}

/** An element of the instance graph (`GET .../graph?format=json`), with the ids of the elements it depends on. */
export interface GraphNode {
  readonly id: string;
  readonly name: string;
  readonly startPhase: number;
  readonly dependsOn: readonly string[];
}

export function readGraphNodes(body: unknown): GraphNode[] {
  const edges = list(field(body, 'edges')).map((edge) => ({
    from: text(field(edge, 'from')),
    to: text(field(edge, 'to')),
  }));
  return list(field(body, 'nodes')).map((node) => {
    const id = text(field(node, 'id'));
    return {
      id,
      name: text(field(node, 'name')),
      startPhase: Number(field(node, 'startPhase') ?? 0),
      dependsOn: edges.filter((edge) => edge.to === id).map((edge) => edge.from),
    };
  });
}

/** The events after which an operation runs no more. */
const OPERATION_ENDS: ReadonlySet<HistoryEvent['event']> = new Set<HistoryEvent['event']>([
  'COMPLETED',
  'FAILED',
  'TIMEOUT',
  'CANCELLED',
  'SUPERSEDED',
]);

/** Folds one operation's events over the instance's elements: each phase's elements, their states and timings. */
export function foldProgress(nodes: readonly GraphNode[], events: readonly HistoryEvent[]): OperationProgress {
  const states = new Map<string, { state: string; failed: boolean }>();
  const phaseStart = new Map<number, number>();
  const phaseEnd = new Map<number, number>();
  const phaseOf = new Map(nodes.map((node) => [node.id, node.startPhase]));
  // Elements that answered DEPLOYED and wait for their health gate: the condition and what it last observed.
  const gates = new Map<string, { condition: string; observed: string }>();
  let ended = false;
  for (const event of events) {
    if (event.event === 'PHASE_STARTED') {
      const { phase, elementIds } = event.detail;
      phaseStart.set(phase, timeOf(event.at));
      for (const id of elementIds) {
        states.set(id, { state: 'running', failed: false });
        if (!phaseOf.has(id)) {
          phaseOf.set(id, phase);
        }
      }
    } else if (
      event.event === 'ELEMENTS_DISPATCHED' ||
      event.event === 'PHASE_RESENT' ||
      event.event === 'RETRY_STARTED'
    ) {
      for (const id of event.detail.elementIds) {
        states.set(id, { state: 'running', failed: false });
      }
    } else if (event.event === 'GATE_STARTED') {
      const { elementId, condition, observed } = event.detail;
      gates.set(elementId, { condition, observed });
      states.set(elementId, { state: 'running', failed: false });
    } else if (event.event === 'GATE_OBSERVED') {
      const gate = gates.get(event.detail.elementId);
      if (gate) {
        gate.observed = event.detail.observed;
      }
    } else if (event.event === 'GATE_PASSED' || event.event === 'GATE_FAILED') {
      gates.delete(event.detail.elementId);
    } else if (event.event === 'PHASE_COMPLETED') {
      phaseEnd.set(Number(event.detail.phase), timeOf(event.at));
    } else if (event.event === 'ELEMENT_RESULT') {
      const { elementId, deployState, lockState, result } = event.detail;
      // A gated element's DEPLOYED answer is recorded as still deploying: it runs until its gate passes.
      const gated = gates.has(elementId) && result;
      states.set(elementId, { state: gated ? 'running' : `${deployState}/${lockState}`, failed: !result });
    } else if (OPERATION_ENDS.has(event.event)) {
      ended = true;
    }
  }
  const names = new Map(nodes.map((node) => [node.id, node.name]));
  const dependsOn = new Map(nodes.map((node) => [node.id, node.dependsOn]));
  // The phase opened last: an undeploy opens its phases from the highest down.
  const openPhase = [...phaseStart.keys()].at(-1);
  const queuedBehind = (id: string, phase: number): string | null => {
    const gate = gates.get(id);
    if (!ended && gate) {
      return `its health gate: condition ${gate.condition} (observed ${gate.observed || 'no report yet'})`;
    }
    if (ended || states.has(id)) {
      return null;
    }
    if (!phaseStart.has(phase)) {
      return `phase ${phase} to open (after phase ${openPhase ?? '…'})`;
    }
    const unfinished = (dependsOn.get(id) ?? []).filter((dependency) => {
      const state = states.get(dependency)?.state;
      return state === undefined || state === 'running';
    });
    return unfinished.length > 0
      ? `${unfinished.map((dependency) => names.get(dependency) ?? dependency).join(', ')} to finish`
      : 'a free parallel slot or a gate';
  };
  const elements: ElementProgress[] = [...phaseOf.entries()].map(([id, phase]) => ({
    id,
    name: names.get(id) ?? id,
    phase,
    state: states.get(id)?.state ?? 'pending',
    failed: states.get(id)?.failed ?? false,
    waitingFor: queuedBehind(id, phase),
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
  const running = elements.filter((element) => element.state === 'running').map((element) => element.name);
  return { phases, running };
}

/** One line per event, for logs and pipes: time, event, and what it is about. */
export function eventLine(event: HistoryEvent, names: ReadonlyMap<string, string>): string {
  const name = (id: unknown): string => names.get(String(id)) ?? String(id);
  let about: string;
  switch (event.event) {
    case 'ORDERED':
      about = event.detail.order;
      break;
    case 'PHASE_STARTED':
    case 'ELEMENTS_DISPATCHED':
      about = `phase ${event.detail.phase}: ${event.detail.elementIds.map(name).join(', ')}`;
      break;
    case 'PHASE_COMPLETED':
      about = `phase ${text(event.detail.phase)}`;
      break;
    case 'ELEMENT_RESULT': {
      const { elementId, deployState, lockState, result, message } = event.detail;
      about = [name(elementId), `${deployState}/${lockState}`, result ? '' : 'FAILED', message ? `"${message}"` : '']
        .filter(Boolean)
        .join(' ');
      break;
    }
    default:
      about = Object.entries(event.detail as Record<string, unknown>)
        .filter(([, value]) => value !== null && value !== undefined)
        .map(([key, value]) => `${key}=${text(value)}`)
        .join(' ');
  }
  return `${event.at} ${event.event}${about ? ` ${about}` : ''}`;
}
