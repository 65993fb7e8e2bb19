/** Pure views of an instance: its graph's element states and its operations, folded from history events. */
import type { components } from '../../../openapi/rest-types';

/** One history event, as `GET .../history` and the event stream give it (the OpenAPI document's union of kinds). */
export type HistoryEvent = components['schemas']['HistoryView']['events'][number];
type EventKind = HistoryEvent['event'];

export interface GraphNode {
  readonly id: string;
  readonly name: string;
  readonly startPhase: number;
  /** `DEPLOYED/LOCKED` for an instance's element; absent in a definition's graph. */
  readonly state?: string;
  /** An instance's nested-composition element: its child instance, once it has one. */
  readonly nestedInstanceId?: string;
  /** While the element's health gate waits: the waiting reason (`waiting for X: condition Y (observed Z)`). */
  readonly gateState?: string;
  /** Once a participant observed an element of the instance: this element's health (`Unknown`: never observed). */
  readonly health?: string;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
}

export interface Graph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

export type EventLike = HistoryEvent;

/** Events after which an instance's or definition's own state (not only its elements') has changed. */
export const STATE_CHANGING: ReadonlySet<EventKind> = new Set([
  'ORDERED',
  'COMPLETED',
  'FAILED',
  'TIMEOUT',
  'CANCELLED',
  'SUPERSEDED',
]);

/** The events that end an operation, and the outcome each gives it. */
const ENDS = {
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  TIMEOUT: 'TIMEOUT',
  CANCELLED: 'CANCELLED',
  SUPERSEDED: 'SUPERSEDED',
} as const satisfies Partial<Record<EventKind, string>>;
type Outcome = (typeof ENDS)[keyof typeof ENDS];

const endOf = (event: EventLike): Outcome | null =>
  Object.prototype.hasOwnProperty.call(ENDS, event.event) ? ENDS[event.event as keyof typeof ENDS] : null;

export interface PhaseTiming {
  readonly phase: number;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly durationMs: number | null;
}

export interface OperationView {
  readonly operationId: string;
  readonly order: string;
  readonly startedAt: string;
  readonly outcome: 'RUNNING' | Outcome;
  readonly finishedAt: string | null;
  readonly durationMs: number | null;
  readonly phases: readonly PhaseTiming[];
  /** Elements dispatched and not answered yet: the participants are working on them. */
  readonly running: readonly string[];
  /** Elements with an answer (each counted once, however often it was retried or resent). */
  readonly answered: number;
  readonly dispatched: readonly string[];
  readonly message: string | null;
}

/** The runtime writes times as `YYYY-MM-DD HH:mm:ss.SSS` in UTC. */
export const timeOf = (at: string): number => Date.parse(`${at.replace(' ', 'T')}Z`);

/** Each element's state after the events (ELEMENT_RESULT carries the state the participant reported). */
export function elementStates(graph: Graph, events: readonly EventLike[]): Map<string, string> {
  const states = new Map(graph.nodes.map((node) => [node.id, node.state ?? '']));
  for (const event of events) {
    if (event.event === 'ELEMENT_RESULT') {
      states.set(event.detail.elementId, `${event.detail.deployState}/${event.detail.lockState}`);
    }
  }
  return states;
}

/** Observed health, worst first: an instance is as healthy as its worst element. */
const HEALTH_ORDER = ['Missing', 'Degraded', 'Unknown', 'Healthy'] as const;

/**
 * Each element's observed health after the events (HEALTH_CHANGED carries the new one), from the graph's; empty while
 * nothing of the instance was ever observed (ONAP's participants), and then every element `Unknown` until observed.
 */
export function elementHealth(graph: Graph, events: readonly EventLike[]): Map<string, string> {
  const changes = events.flatMap((event) => (event.event === 'HEALTH_CHANGED' ? [event.detail] : []));
  if (changes.length === 0 && graph.nodes.every((node) => node.health === undefined)) {
    return new Map();
  }
  const health = new Map(graph.nodes.map((node) => [node.id, node.health ?? 'Unknown']));
  for (const change of changes) {
    if (health.has(change.elementId)) {
      health.set(change.elementId, change.health);
    }
  }
  return health;
}

/** The instance's health: the worst of its elements'; null when nothing was observed. */
export function worstHealth(health: ReadonlyMap<string, string>): string | null {
  if (health.size === 0) {
    return null;
  }
  const states = [...health.values()];
  return HEALTH_ORDER.find((state) => states.includes(state)) ?? 'Unknown';
}

/** The colour class of a health: the health is always written next to it too. */
export function healthTone(health: string): 'done' | 'busy' | 'idle' | 'bad' {
  switch (health) {
    case 'Healthy':
      return 'done';
    case 'Degraded':
      return 'busy';
    case 'Missing':
      return 'bad';
    default:
      return 'idle';
  }
}

/** The operations of a history, oldest first, each with its phases' durations and what it waits for. */
export function operations(events: readonly EventLike[]): OperationView[] {
  const byId = new Map<string, EventLike[]>();
  for (const event of [...events].sort((a, b) => a.sequence - b.sequence)) {
    if (event.operationId === null) {
      continue;
    }
    const list = byId.get(event.operationId) ?? [];
    list.push(event);
    byId.set(event.operationId, list);
  }
  return [...byId.entries()]
    .filter(([, list]) => list.some((event) => event.event === 'ORDERED'))
    .map(([operationId, list]) => operationView(operationId, list));
}

function operationView(operationId: string, events: readonly EventLike[]): OperationView {
  const ordered = events.find((event) => event.event === 'ORDERED')!;
  // A TIMEOUT is followed by a late success, a failure, a cancel or a newer order: the last end is the outcome.
  const end = [...events].reverse().find((event) => endOf(event) !== null);
  const phaseStarts = new Map<number, string>();
  const phaseEnds = new Map<number, string>();
  const pending = new Set<string>();
  const dispatched = new Set<string>();
  const answered = new Set<string>();
  // Elements that answered DEPLOYED and wait for their health gate: still running until it passes or fails.
  const gated = new Set<string>();
  let message: string | null = null;
  for (const event of events) {
    switch (event.event) {
      case 'PHASE_STARTED':
      case 'ELEMENTS_DISPATCHED':
      case 'PHASE_RESENT':
      case 'RETRY_STARTED':
        if (!phaseStarts.has(event.detail.phase)) {
          phaseStarts.set(event.detail.phase, event.at);
        }
        for (const id of event.detail.elementIds) {
          pending.add(id);
          dispatched.add(id);
        }
        break;
      case 'PHASE_COMPLETED':
        phaseEnds.set(Number(event.detail.phase), event.at);
        break;
      case 'GATE_STARTED':
        gated.add(event.detail.elementId);
        break;
      case 'GATE_PASSED':
      case 'GATE_FAILED':
        gated.delete(event.detail.elementId);
        break;
      case 'ELEMENT_RESULT':
        answered.add(event.detail.elementId);
        if (!(gated.has(event.detail.elementId) && event.detail.result)) {
          pending.delete(event.detail.elementId);
        }
        if (!event.detail.result && event.detail.message !== null) {
          message = event.detail.message;
        }
        break;
      case 'FAILED':
        if (event.detail.message !== null) {
          message = event.detail.message;
        }
        break;
      default:
        break;
    }
  }
  // In execution order: the order in which the phases started (descending for an undeploy), not by number.
  const phases = [...phaseStarts.entries()].map(([phase, startedAt]) => {
    const finishedAt = phaseEnds.get(phase) ?? (end && phaseStarts.size === 1 ? end.at : null);
    return {
      phase,
      startedAt,
      finishedAt,
      durationMs: finishedAt === null ? null : timeOf(finishedAt) - timeOf(startedAt),
    };
  });
  return {
    operationId,
    order: ordered.event === 'ORDERED' ? ordered.detail.order : '',
    startedAt: ordered.at,
    outcome: end === undefined ? 'RUNNING' : (endOf(end) ?? 'RUNNING'),
    finishedAt: end?.at ?? null,
    durationMs: end === undefined ? null : timeOf(end.at) - timeOf(ordered.at),
    phases,
    running: end === undefined ? [...pending] : [],
    answered: answered.size,
    dispatched: [...dispatched],
    message,
  };
}

/**
 * The elements a running operation has not dispatched yet, each with what it is queued behind: a phase that has not
 * opened, the elements it depends on, or else a parallel slot or gate of the runtime. Every order of an instance
 * takes all its elements, so the graph's elements are the operation's.
 */
export function queuedElements(graph: Graph, operation: OperationView): Map<string, string> {
  const queued = new Map<string, string>();
  if (operation.outcome !== 'RUNNING') {
    return queued;
  }
  const names = new Map(graph.nodes.map((node) => [node.id, node.name]));
  const dispatched = new Set(operation.dispatched);
  const running = new Set(operation.running);
  const started = new Set(operation.phases.map((phase) => phase.phase));
  const openPhase = operation.phases.at(-1)?.phase;
  for (const node of graph.nodes) {
    if (running.has(node.id) && node.gateState !== undefined) {
      // Answered DEPLOYED, not yet healthy: the reason already names the element.
      queued.set(node.id, node.gateState.replace(/^waiting for /, ''));
      continue;
    }
    if (dispatched.has(node.id)) {
      continue;
    }
    const dependencies = graph.edges
      .filter((edge) => edge.to === node.id && (!dispatched.has(edge.from) || running.has(edge.from)))
      .map((edge) => names.get(edge.from) ?? edge.from);
    if (!started.has(node.startPhase)) {
      queued.set(node.id, `phase ${node.startPhase} to open (after phase ${openPhase ?? '…'})`);
    } else if (dependencies.length > 0) {
      queued.set(node.id, `${dependencies.join(', ')} to finish`);
    } else {
      queued.set(node.id, 'a free parallel slot or a gate');
    }
  }
  return queued;
}

/** The phases of a graph in the order an order runs them: ascending, or descending for undeploy and delete. */
export function phaseOrder(graph: Graph, order: string): number[] {
  const phases = [...new Set(graph.nodes.map((node) => node.startPhase))].sort((a, b) => a - b);
  return order === 'UNDEPLOY' || order === 'DELETE' ? phases.reverse() : phases;
}

/** The colour class of a state; the state is always written next to it too. */
export function stateTone(state: string): 'done' | 'busy' | 'idle' | 'bad' {
  if (/FAILED|TIMEOUT/.test(state)) {
    return 'bad';
  }
  if (/ING\b|ING\//.test(state) || state === 'running') {
    return 'busy';
  }
  if (/^DEPLOYED|PRIMED|LOCKED$/.test(state)) {
    return 'done';
  }
  return 'idle';
}

export const seconds = (ms: number | null): string => (ms === null ? '…' : `${(ms / 1000).toFixed(2)} s`);

/** What an order does to one element, as `POST .../plan` answers it. */
export type ElementChange = components['schemas']['ElementChange'];

/** How `tofu plan` marks each action; unchanged elements are not listed. */
const CHANGE_MARKS: Readonly<Record<ElementChange['action'], string | null>> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
  unchanged: null,
};

/** The elements a plan changes, each with its mark, in the plan's order (by element id). */
export function changedElements(
  changes: readonly ElementChange[],
): Array<{ readonly mark: string; readonly change: ElementChange }> {
  return changes.flatMap((change) => {
    const mark = CHANGE_MARKS[change.action];
    return mark === null ? [] : [{ mark, change }];
  });
}

/** `baseUrl ← (known after deploy)`: what an element's references read, as the plan shows them. */
export function referenceText(references: Readonly<Record<string, unknown>> | undefined): string {
  const entries = Object.entries(references ?? {});
  return entries.length === 0
    ? ''
    : ` [${entries.map(([at, value]) => `${at} ← ${typeof value === 'string' ? value : JSON.stringify(value)}`).join('; ')}]`;
}

/** An instance linked by nesting, with the console's address of its page. */
export interface NestingLink {
  readonly instanceId: string;
  readonly href: string;
}

/** A page's links by nesting: to the parent of a child instance, and to each nested element's child (by element id). */
export interface NestingLinks {
  readonly parent?: NestingLink & { readonly elementId: string };
  readonly children: ReadonlyMap<string, NestingLink>;
}

function nestedInParent(instance: Readonly<Record<string, unknown>>): { instanceId: string; elementId: string } | null {
  const metadata = instance['metadata'];
  const nestedIn =
    typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)['nestedIn'] : undefined;
  if (typeof nestedIn !== 'object' || nestedIn === null) {
    return null;
  }
  const { instanceId, elementId } = nestedIn as Record<string, unknown>;
  return typeof instanceId === 'string'
    ? { instanceId, elementId: typeof elementId === 'string' ? elementId : '' }
    : null;
}

/** The instances an instance page links to: its parent (`metadata.nestedIn`) and its elements' children. */
export function linkedInstanceIds(instance: Readonly<Record<string, unknown>>, graph: Graph): string[] {
  const parent = nestedInParent(instance);
  const children = graph.nodes.flatMap((node) => (node.nestedInstanceId === undefined ? [] : [node.nestedInstanceId]));
  return [...(parent === null ? [] : [parent.instanceId]), ...children];
}

/** The links, given the composition of each linked instance (an instance not found, deleted since, gets none). */
export function nestingLinks(
  instance: Readonly<Record<string, unknown>>,
  graph: Graph,
  compositionOf: ReadonlyMap<string, string>,
): NestingLinks {
  const link = (instanceId: string): NestingLink | null => {
    const compositionId = compositionOf.get(instanceId);
    return compositionId === undefined
      ? null
      : { instanceId, href: `#/instances/${encodeURIComponent(compositionId)}/${encodeURIComponent(instanceId)}` };
  };
  const parent = nestedInParent(instance);
  const parentLink = parent === null ? null : link(parent.instanceId);
  const children = new Map<string, NestingLink>();
  for (const node of graph.nodes) {
    const child = node.nestedInstanceId === undefined ? null : link(node.nestedInstanceId);
    if (child !== null) {
      children.set(node.id, child);
    }
  }
  return {
    ...(parent === null || parentLink === null ? {} : { parent: { ...parentLink, elementId: parent.elementId } }),
    children,
  };
}

export type PendingApproval = components['schemas']['PendingApprovalDto'];

/** An order that waits for approvals, as one line: what, by whom, how far, who approved, until when. */
export function pendingApprovalText(pending: PendingApproval | undefined): string | null {
  if (pending === undefined) {
    return null;
  }
  const approvers = pending.approvals.map((vote) => vote.by);
  return (
    `${pending.order} by ${pending.orderedBy} waits for approvals: ${approvers.length} of ${pending.required}` +
    (approvers.length > 0 ? ` (${approvers.join(', ')})` : '') +
    `, until ${pending.expiresAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}`
  );
}
