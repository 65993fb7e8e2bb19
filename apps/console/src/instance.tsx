import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Json } from './api';
import { call, errorText, get, instancePath, put, text } from './api';
import { Failure, GraphView, HealthBadge, OrderButton, StateBadge } from './components';
import type { HistoryEvent } from './live';
import { useLiveEvents } from './live';
import type { ElementChange, Graph, OperationView, PendingApproval } from './model';
import {
  STATE_CHANGING,
  changedElements,
  elementHealth,
  elementStates,
  linkedInstanceIds,
  nestingLinks,
  operations,
  pendingApprovalText,
  queuedElements,
  referenceText,
  seconds,
  worstHealth,
} from './model';

interface Baseline {
  readonly instance: Json;
  readonly graph: Graph;
  /** The composition of each instance linked by nesting (parent, children), for the links to their pages. */
  readonly compositionOf: ReadonlyMap<string, string>;
  /** The last history sequence read with this baseline; later events are applied on top of it. */
  readonly sequence: number;
}

const ORDERS: ReadonlyArray<{ label: string; order: string; body: Json }> = [
  { label: 'Deploy', order: 'DEPLOY', body: { deployOrder: 'DEPLOY' } },
  { label: 'Undeploy', order: 'UNDEPLOY', body: { deployOrder: 'UNDEPLOY' } },
  { label: 'Lock', order: 'LOCK', body: { lockOrder: 'LOCK' } },
  { label: 'Unlock', order: 'UNLOCK', body: { lockOrder: 'UNLOCK' } },
];

/** The composition of each of the instances (none asked: no request). */
async function linkedCompositions(instanceIds: readonly string[]): Promise<Map<string, string>> {
  if (instanceIds.length === 0) {
    return new Map();
  }
  const found = await get<{ automationCompositionList?: Json[] }>(
    `instances?instanceIds=${instanceIds.map(encodeURIComponent).join(',')}`,
  );
  return new Map(
    (found.automationCompositionList ?? []).map((each) => [text(each['instanceId']), text(each['compositionId'])]),
  );
}

/** One instance: its graph coloured live, the running operation, order buttons and the history timeline. */
export function InstancePage(props: { compositionId: string; instanceId: string }) {
  const path = instancePath(props.compositionId, props.instanceId);
  const [baseline, setBaseline] = useState<Baseline | null>(null);
  const [events, setEvents] = useState<HistoryEvent[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [gone, setGone] = useState(false);

  const reload = useCallback(() => {
    const load = async (): Promise<void> => {
      // History first: an event committed between the two reads is then in the graph and applied again, harmlessly.
      const history = await get<{ events: HistoryEvent[] }>(`${path}/history`);
      const [instance, graph] = await Promise.all([get(path), get<Graph>(`${path}/graph?format=json`)]);
      const compositionOf = await linkedCompositions(linkedInstanceIds(instance, graph));
      const sequence = history.events.reduce((highest, event) => Math.max(highest, event.sequence), 0);
      setEvents((current) => merge(history.events, current));
      // Reads started by two pushed events may answer out of order: the one that read more history wins.
      setBaseline((current) =>
        current !== null && current.sequence > sequence ? current : { instance, graph, compositionOf, sequence },
      );
      setError(null);
    };
    load().catch((failure: unknown) => {
      if (String(errorText(failure)).startsWith('404')) {
        setGone(true);
      }
      setError(errorText(failure));
    });
  }, [path]);

  const onEvent = useCallback(
    (event: HistoryEvent) => {
      if (event.subjectId !== props.instanceId) {
        return;
      }
      setEvents((current) => merge(current, [event]));
      if (STATE_CHANGING.has(event.event)) {
        reload();
      }
    },
    [props.instanceId],
  );
  useLiveEvents(onEvent, reload, [path]);

  if (baseline === null) {
    return (
      <section>
        <h2>Instance {props.instanceId}</h2>
        {error === null ? <p>loading…</p> : <Failure error={error} />}
        {gone && <a href="#/instances">Back to the instances</a>}
      </section>
    );
  }
  const states = elementStates(
    baseline.graph,
    events.filter((event) => event.sequence > baseline.sequence),
  );
  const health = elementHealth(
    baseline.graph,
    events.filter((event) => event.sequence > baseline.sequence),
  );
  const instanceHealth = worstHealth(health);
  const history = operations(events);
  const running = history.filter((operation) => operation.outcome === 'RUNNING').at(-1);
  const { instance, graph } = baseline;
  const nesting = nestingLinks(instance, graph, baseline.compositionOf);
  const working = new Set(running?.running ?? []);
  const queued = running === undefined ? new Map<string, string>() : queuedElements(graph, running);
  const names = new Map(graph.nodes.map((node) => [node.id, node.name]));
  // The runtime's own answer of what the state accepts; a runtime that does not say leaves every order offered.
  const refusals = new Map(
    (Array.isArray(instance['refusedOrders']) ? (instance['refusedOrders'] as Json[]) : []).map((refused) => [
      text(refused['order']),
      text(refused['reason']),
    ]),
  );
  const waitingApproval = pendingApprovalText(instance['pendingApproval'] as PendingApproval | undefined);
  const stateKey = [instance['deployState'], instance['lockState'], instance['subState'], instance['stateChangeResult']]
    .map(text)
    .join('/');
  return (
    <section aria-labelledby="instance-title">
      <h2 id="instance-title">
        Instance {text(instance['name'])} <small>{props.instanceId}</small>
      </h2>
      <p class="summary">
        Deploy state <StateBadge state={text(instance['deployState'])} /> lock state{' '}
        <StateBadge state={text(instance['lockState'])} /> result{' '}
        <StateBadge state={text(instance['stateChangeResult'])} />{' '}
        {instanceHealth !== null && (
          <>
            health <HealthBadge health={instanceHealth} />{' '}
          </>
        )}
        <a href="#/definitions">definition {props.compositionId}</a>
        {nesting.parent && (
          <>
            {' '}
            nested in <a href={nesting.parent.href}>parent instance {nesting.parent.instanceId}</a>
          </>
        )}
      </p>
      {gone && <p role="status">This instance no longer exists.</p>}
      {waitingApproval !== null && (
        <p role="status" class="pending-approval">
          {waitingApproval}
        </p>
      )}
      <Failure error={gone ? null : error} />
      <div class="orders" role="group" aria-label="orders">
        {ORDERS.map(({ label, order, body }) => (
          <OrderButton
            key={order}
            label={label}
            title={`${label} ${text(instance['name']) || props.instanceId}?`}
            preview={(onRefused, onPlanned) => (
              <Preview path={path} order={order} onRefused={onRefused} onPlanned={onPlanned} />
            )}
            run={(planId) => put(withPlanId(path, planId), body)}
            refusedBecause={refusals.get(order) ?? null}
            stateKey={stateKey}
          />
        ))}
        <OrderButton
          label="Delete"
          title={`Delete ${text(instance['name']) || props.instanceId}?`}
          preview={(onRefused, onPlanned) => (
            <Preview path={path} order="DELETE" onRefused={onRefused} onPlanned={onPlanned} />
          )}
          run={(planId) => call('DELETE', withPlanId(path, planId))}
          refusedBecause={refusals.get('DELETE') ?? null}
          stateKey={stateKey}
        />
      </div>
      <h3>Composition graph</h3>
      <GraphView graph={graph} states={states} running={working} queued={queued} />
      {running && <Progress operation={running} names={names} total={graph.nodes.length} queued={queued} />}
      <h3>Elements</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Element</th>
            <th scope="col">Phase</th>
            <th scope="col">State</th>
            {instanceHealth !== null && <th scope="col">Health</th>}
          </tr>
        </thead>
        <tbody>
          {graph.nodes.map((node) => (
            <tr key={node.id} data-element-row={node.id}>
              <td>
                {node.name}
                {nesting.children.has(node.id) && (
                  <>
                    {' '}
                    <a href={nesting.children.get(node.id)?.href}>child instance</a>
                  </>
                )}
              </td>
              <td>{node.startPhase}</td>
              <td>
                <StateBadge state={states.get(node.id) ?? ''} />
                {working.has(node.id) && ' running'}
                {queued.has(node.id) && <span class="queued"> waiting for {queued.get(node.id)}</span>}
              </td>
              {instanceHealth !== null && (
                <td>
                  <HealthBadge health={health.get(node.id) ?? 'Unknown'} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <h3>History</h3>
      <Timeline operations={history} />
      <details>
        <summary>Events ({events.length})</summary>
        <ol class="events">
          {events.map((event) => (
            <li key={event.sequence}>
              <code>{event.at}</code> {event.event} {describe(event, names)}
            </li>
          ))}
        </ol>
      </details>
    </section>
  );
}

interface PlanStep {
  readonly step: number;
  readonly kind: string;
  readonly phase: number;
  readonly elements: ReadonlyArray<{
    elementId: string;
    name: string;
    waitsFor: readonly string[];
    /** What the element's references read, by where they are written: a value or "(known after deploy)". */
    references?: Readonly<Record<string, unknown>>;
  }>;
}

/**
 * The order's path with the planId of the plan the dialog showed: the runtime then refuses it (409, naming what
 * changed) if the instance, its definition or the order differ from what was planned.
 */
function withPlanId(path: string, planId: string | null): string {
  return planId === null ? path : `${path}?planId=${encodeURIComponent(planId)}`;
}

/**
 * What the order would send, step by step, and what it changes in each element, as the runtime plans it
 * (`POST .../plan`), read as the dialog opens.
 */
function Preview(props: { path: string; order: string; onRefused: () => void; onPlanned: (planId: string) => void }) {
  const [plan, setPlan] = useState<{ steps: readonly PlanStep[]; changes: readonly ElementChange[] } | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  useEffect(() => {
    call<{ steps: PlanStep[]; changes: ElementChange[]; planId?: string }>(
      'POST',
      `${props.path}/plan`,
      JSON.stringify({ order: props.order }),
    ).then(
      (answer) => {
        setPlan({ steps: answer.steps, changes: answer.changes });
        if (typeof answer.planId === 'string') {
          props.onPlanned(answer.planId);
        }
      },
      (error: unknown) => {
        setRefusal(errorText(error));
        props.onRefused();
      },
    );
  }, [props.path, props.order]);
  if (refusal !== null) {
    return (
      <p class="refusal" role="alert">
        The runtime would refuse this order: {refusal}
      </p>
    );
  }
  if (plan === null) {
    return <p>reading the plan…</p>;
  }
  const { steps } = plan;
  const changed = changedElements(plan.changes);
  const names = new Map(steps.flatMap((step) => step.elements.map((element) => [element.elementId, element.name])));
  return (
    <div class="preview">
      <p>The runtime's plan, in order:</p>
      <ol>
        {steps.map((step) => (
          <li key={step.step} data-plan-step={step.step}>
            {step.kind === 'PHASE_STARTED' ? `phase ${step.phase} starts` : `phase ${step.phase} dispatches`}:{' '}
            {step.elements
              .map(
                (element) =>
                  element.name +
                  (element.waitsFor.length > 0
                    ? ` (after ${element.waitsFor.map((id) => names.get(id) ?? id).join(', ')})`
                    : '') +
                  referenceText(element.references),
              )
              .join(', ')}
          </li>
        ))}
      </ol>
      {steps.length === 0 && <p>No message would be sent.</p>}
      {changed.length > 0 && (
        <>
          <p>What it changes:</p>
          <ul class="plan-diff" aria-label="changes">
            {changed.map(({ mark, change }) => (
              <li key={change.elementId} data-plan-change={change.action}>
                <code>{mark}</code> {change.name} ({change.action})
                {change.changes.length > 0 && (
                  <ul>
                    {change.changes.map((property) => (
                      <li key={property.path}>
                        <code>{property.text}</code>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** The running operation: how many of its elements have answered, which are running, which are queued and why. */
function Progress(props: {
  operation: OperationView;
  names: ReadonlyMap<string, string>;
  total: number;
  queued: ReadonlyMap<string, string>;
}) {
  const { operation } = props;
  const name = (id: string): string => props.names.get(id) ?? id;
  return (
    <div class="progress" role="status" aria-live="polite">
      <h3>
        {operation.order} running since {operation.startedAt}
      </h3>
      <p class="progress-count">
        <progress max={Math.max(props.total, 1)} value={operation.answered} /> {operation.answered} of {props.total}{' '}
        elements done
      </p>
      {operation.running.length > 0 && <p class="running">Running: {operation.running.map(name).join(', ')}</p>}
      {props.queued.size > 0 && (
        <ul class="waiting-for" aria-label="waiting">
          {[...props.queued].map(([id, reason]) => (
            <li key={id}>
              {name(id)} waits for {reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Each operation with its outcome, duration and each phase's duration, newest first. */
function Timeline(props: { operations: readonly OperationView[] }) {
  if (props.operations.length === 0) {
    return <p>No operations yet.</p>;
  }
  return (
    <ol class="timeline" reversed>
      {[...props.operations].reverse().map((operation) => (
        <li key={operation.operationId} data-operation={operation.order}>
          <strong>{operation.order}</strong> <StateBadge state={operation.outcome} /> {operation.startedAt}, took{' '}
          {seconds(operation.durationMs)}
          {operation.message && <span class="refusal"> {operation.message}</span>}
          <ul class="phases">
            {operation.phases.map((phase) => (
              <li key={phase.phase}>
                phase {phase.phase}: {seconds(phase.durationMs)}
                <span
                  class="bar"
                  style={{ width: `${Math.max(4, Math.min(300, (phase.durationMs ?? 0) / 10))}px` }}
                  aria-hidden="true"
                />
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ol>
  );
}

function describe(event: HistoryEvent, names: ReadonlyMap<string, string>): string {
  const name = (id: unknown): string => names.get(String(id)) ?? String(id);
  switch (event.event) {
    case 'PHASE_STARTED':
    case 'ELEMENTS_DISPATCHED':
    case 'PHASE_RESENT':
    case 'RETRY_STARTED':
      return `phase ${event.detail.phase}: ${event.detail.elementIds.map(name).join(', ')}`;
    case 'ELEMENT_RESULT':
      return `${name(event.detail.elementId)} ${event.detail.deployState}/${event.detail.lockState}`;
    case 'CANCELLED':
      return event.actor.kind === 'request' ? `by ${event.actor.user ?? 'a signed request'}` : '';
    default:
      break;
  }
  return Object.entries(event.detail as Record<string, unknown>)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => `${key}=${text(value)}`)
    .join(' ');
}

function merge(a: readonly HistoryEvent[], b: readonly HistoryEvent[]): HistoryEvent[] {
  const bySequence = new Map<number, HistoryEvent>();
  for (const event of [...a, ...b]) {
    bySequence.set(event.sequence, event);
  }
  return [...bySequence.values()].sort((x, y) => x.sequence - y.sequence);
}
