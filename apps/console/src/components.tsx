import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { errorText } from './api';
import { fitText } from './fit-text';
import type { Layout } from './layout';
import { NODE_HEIGHT, NODE_WIDTH, layOut } from './layout';
import type { Graph } from './model';
import { healthTone, stateTone } from './model';

/**
 * An order button: asks for confirmation in a modal dialog (with what the order will do), then sends it.
 * The runtime's refusal is shown next to the button, never instead of the page.
 */
export function OrderButton(props: {
  label: string;
  title: string;
  /**
   * The plan shown in the dialog; it reports a refusal, so that the dialog never offers to confirm it, and the planId
   * the runtime answered, so that the order runs only as planned.
   */
  preview?: (onRefused: () => void, onPlanned: (planId: string) => void) => ComponentChildren;
  /** Sends the order; with the planId of the plan the dialog showed, when it has one. */
  run: (planId: string | null) => Promise<unknown>;
  /** Why the runtime would refuse the order now; the button is then disabled, with this on hover and focus. */
  refusedBecause?: string | null;
  /** Changes whenever the subject's state changes: what the last order said is then cleared. */
  stateKey?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  // The preview is read when the dialog opens, so it shows the plan as of now.
  const [open, setOpen] = useState(false);
  const [previewRefused, setPreviewRefused] = useState(false);
  const [planId, setPlanId] = useState<string | null>(null);
  useEffect(() => {
    setStatus(null);
    setRefusal(null);
  }, [props.stateKey]);
  const refused = props.refusedBecause !== undefined && props.refusedBecause !== null;
  const reasonId = `refused-${props.label.toLowerCase().replace(/\W+/g, '-')}`;
  const confirm = async (): Promise<void> => {
    dialog.current?.close();
    setRefusal(null);
    setStatus('sending…');
    try {
      await props.run(planId);
      setStatus('accepted');
    } catch (error) {
      setStatus(null);
      setRefusal(errorText(error));
    }
  };
  return (
    <span class="order">
      <button
        type="button"
        // aria-disabled rather than disabled: the button stays focusable, so the keyboard reaches its reason.
        aria-disabled={refused ? 'true' : undefined}
        aria-describedby={refused ? reasonId : undefined}
        title={refused ? (props.refusedBecause ?? undefined) : undefined}
        onClick={() => {
          if (refused) {
            return;
          }
          setRefusal(null);
          setPreviewRefused(false);
          setPlanId(null);
          setOpen(true);
          dialog.current?.showModal();
        }}
      >
        {props.label}
      </button>
      {refused && (
        <span id={reasonId} class="order-reason" role="tooltip">
          {props.refusedBecause}
        </span>
      )}
      {status && <span class="order-status">{status}</span>}
      {refusal && (
        <span class="refusal" role="alert">
          {refusal}
        </span>
      )}
      <dialog ref={dialog} aria-label={props.title} onClose={() => setOpen(false)}>
        <form method="dialog">
          <h3>{props.title}</h3>
          {open && props.preview?.(() => setPreviewRefused(true), setPlanId)}
          <p class="dialog-buttons">
            {!previewRefused && (
              <button type="button" class="primary" onClick={() => void confirm()}>
                Confirm {props.label.toLowerCase()}
              </button>
            )}
            <button type="submit" value="cancel">
              {previewRefused ? 'Close' : 'Cancel'}
            </button>
          </p>
        </form>
      </dialog>
    </span>
  );
}

/** A file picker that sends the file's text (JSON or YAML) and shows the runtime's refusal beside it. */
export function FileAction(props: { label: string; send: (text: string) => Promise<string> }) {
  const [message, setMessage] = useState<{ text: string; refused: boolean } | null>(null);
  return (
    <label class="file-action">
      {props.label}{' '}
      <input
        type="file"
        accept=".json,.yaml,.yml,application/json,application/yaml"
        onChange={(event) => {
          const input = event.currentTarget;
          const file = input.files?.[0];
          if (file === undefined) {
            return;
          }
          setMessage(null);
          file
            .text()
            .then(props.send)
            .then(
              (done) => setMessage({ text: done, refused: false }),
              (error: unknown) => setMessage({ text: errorText(error), refused: true }),
            )
            .finally(() => (input.value = ''));
        }}
      />
      {message && (
        <span class={message.refused ? 'refusal' : 'order-status'} role={message.refused ? 'alert' : 'status'}>
          {message.text}
        </span>
      )}
    </label>
  );
}

/** A load failure shown in place of the data, with the rest of the page intact. */
export function Failure(props: { error: string | null }) {
  return props.error === null ? null : (
    <p class="refusal" role="alert">
      {props.error}
    </p>
  );
}

export function StateBadge(props: { state: string }) {
  return <span class={`badge tone-${stateTone(props.state)}`}>{props.state || '—'}</span>;
}

/** An observed health (`Healthy`, `Degraded`, `Missing`, `Unknown`), coloured by how bad it is. */
export function HealthBadge(props: { health: string }) {
  return (
    <span class={`badge tone-${healthTone(props.health)}`} data-health={props.health}>
      {props.health}
    </span>
  );
}

/**
 * The composition graph: phases as columns, dependsOn edges, each element coloured by its state and
 * labelled with it; the elements the running operation waits for are outlined and marked "waiting".
 */
export function GraphView(props: {
  graph: Graph;
  states?: ReadonlyMap<string, string>;
  /** Dispatched elements the participants are working on. */
  running?: ReadonlySet<string>;
  /** Elements of the running operation not dispatched yet, with what each is queued behind. */
  queued?: ReadonlyMap<string, string>;
}) {
  const [layout, setLayout] = useState<Layout | null>(null);
  const [error, setError] = useState<string | null>(null);
  const shape = JSON.stringify([props.graph.nodes.map((node) => [node.id, node.startPhase]), props.graph.edges]);
  useEffect(() => {
    let current = true;
    layOut(props.graph).then(
      (result) => current && setLayout(result),
      (failure: unknown) => current && setError(`graph layout failed: ${errorText(failure)}`),
    );
    return () => {
      current = false;
    };
  }, [shape]);
  if (error !== null) {
    return <Failure error={error} />;
  }
  if (layout === null) {
    return <p>laying out the graph…</p>;
  }
  return (
    <svg
      class="graph"
      width={layout.width}
      height={layout.height}
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      role="group"
      aria-label="composition graph"
    >
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto">
          <path d="M0,0 L10,5 L0,10 z" class="edge-head" />
        </marker>
      </defs>
      {layout.columns.map((column) => (
        <g key={`phase-${column.phase}`} class="phase-column">
          <rect x={column.x} y={4} width={column.width} height={layout.height - 8} rx={6} />
          <text x={column.x + 8} y={22}>
            phase {column.phase}
          </text>
        </g>
      ))}
      {layout.edges.map((edge) => (
        <polyline
          key={`${edge.from}->${edge.to}`}
          class="edge"
          points={edge.points.map((point) => `${point.x},${point.y}`).join(' ')}
          marker-end="url(#arrow)"
        >
          <title>
            {edge.to} depends on {edge.from}
          </title>
        </polyline>
      ))}
      {props.graph.nodes.map((node) => {
        const placed = layout.nodes.get(node.id);
        if (placed === undefined) {
          return null;
        }
        const state = props.states?.get(node.id) ?? node.state ?? '';
        const queuedBehind = props.queued?.get(node.id);
        const waiting = queuedBehind !== undefined;
        const running = props.running?.has(node.id) ?? false;
        const activity = waiting ? `waiting for ${queuedBehind}` : running ? 'running' : '';
        const label = `${node.name}, phase ${node.startPhase}${state ? `: ${state}` : ''}${activity ? `, ${activity}` : ''}`;
        return (
          <g
            key={node.id}
            class={`node tone-${stateTone(state)}${waiting ? ' waiting' : ''}${running ? ' running' : ''}`}
            transform={`translate(${placed.x},${placed.y})`}
            tabIndex={0}
            role="img"
            aria-label={label}
            data-element-id={node.id}
            data-element-name={node.name}
            data-phase={node.startPhase}
            data-state={state}
            data-waiting={waiting ? 'true' : 'false'}
            data-running={running ? 'true' : 'false'}
          >
            <title>{label}</title>
            <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={8} />
            <FittedText x={10} y={22} className="node-name" text={shortName(node.name)} full={node.name} />
            <FittedText
              x={10}
              y={42}
              className="node-state"
              text={`${state || 'definition'}${waiting ? ' · waiting' : running ? ' · running' : ''}`}
            />
          </g>
        );
      })}
    </svg>
  );
}

/**
 * Text kept inside a node: measured as rendered (the node's font), and shortened in its middle with an ellipsis when
 * it is wider than the box; what it stands for is then in a tooltip of its own (the node's title has it all too).
 */
function FittedText(props: { x: number; y: number; className: string; text: string; full?: string }) {
  const room = NODE_WIDTH - 2 * props.x;
  const span = useRef<SVGTSpanElement>(null);
  // What was fitted, for which text: a new text is drawn whole, measured, then shortened before the paint.
  const [fitted, setFitted] = useState<{ text: string; shown: string } | null>(null);
  useLayoutEffect(() => {
    const measuring = span.current;
    const rendered = measuring?.firstChild;
    if (measuring === null || !(rendered instanceof Text)) {
      return undefined;
    }
    const fit = (): void => {
      const drawn = rendered.data;
      const shown = fitText(props.text, room, (candidate) => {
        // Each change of the text lays it out again: a text that fits as drawn is measured without one.
        if (rendered.data !== candidate) {
          rendered.data = candidate;
        }
        return measuring.getComputedTextLength();
      });
      if (rendered.data !== drawn) {
        rendered.data = drawn;
      }
      setFitted({ text: props.text, shown });
    };
    fit();
    // A font that arrives later changes the widths: measure again then.
    let current = true;
    void document.fonts.ready.then(() => current && fit());
    return () => {
      current = false;
    };
  }, [props.text, room]);
  const shown = fitted !== null && fitted.text === props.text ? fitted.shown : props.text;
  const full = props.full ?? props.text;
  return (
    <text x={props.x} y={props.y} class={props.className} data-fitted={shown === props.text ? 'whole' : 'shortened'}>
      <tspan ref={span}>{shown}</tspan>
      {shown !== full ? <title>{full}</title> : null}
    </text>
  );
}

/** The last two segments of a TOSCA name fit a box; the full one is in the title and the table. */
const shortName = (name: string): string => name.split('.').slice(-2).join('.');
