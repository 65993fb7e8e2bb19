import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from './api';
import type { Layout } from './layout';
import { NODE_HEIGHT, NODE_WIDTH, layOut } from './layout';
import type { Graph } from './model';
import { stateTone } from './model';

/**
 * An order button: asks for confirmation in a modal dialog (with what the order will do), then sends it.
 * The runtime's refusal is shown next to the button, never instead of the page.
 */
export function OrderButton(props: {
  label: string;
  title: string;
  preview?: ComponentChildren;
  run: () => Promise<unknown>;
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  // The preview is read when the dialog opens, so it shows the plan as of now.
  const [open, setOpen] = useState(false);
  const confirm = async (): Promise<void> => {
    dialog.current?.close();
    setRefusal(null);
    setStatus('sending…');
    try {
      await props.run();
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
        disabled={props.disabled}
        onClick={() => {
          setRefusal(null);
          setOpen(true);
          dialog.current?.showModal();
        }}
      >
        {props.label}
      </button>
      {status && <span class="order-status">{status}</span>}
      {refusal && (
        <span class="refusal" role="alert">
          {refusal}
        </span>
      )}
      <dialog ref={dialog} aria-label={props.title} onClose={() => setOpen(false)}>
        <form method="dialog">
          <h3>{props.title}</h3>
          {open && props.preview}
          <p class="dialog-buttons">
            <button type="button" class="primary" onClick={() => void confirm()}>
              Confirm {props.label.toLowerCase()}
            </button>
            <button type="submit" value="cancel">
              Cancel
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

/**
 * The composition graph: phases as columns, dependsOn edges, each element coloured by its state and
 * labelled with it; the elements the running operation waits for are outlined and marked "waiting".
 */
export function GraphView(props: {
  graph: Graph;
  states?: ReadonlyMap<string, string>;
  waitingFor?: ReadonlySet<string>;
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
        const waiting = props.waitingFor?.has(node.id) ?? false;
        const label = `${node.name}, phase ${node.startPhase}${state ? `: ${state}` : ''}${waiting ? ', waiting for it' : ''}`;
        return (
          <g
            key={node.id}
            class={`node tone-${stateTone(state)}${waiting ? ' waiting' : ''}`}
            transform={`translate(${placed.x},${placed.y})`}
            tabIndex={0}
            role="img"
            aria-label={label}
            data-element-id={node.id}
            data-element-name={node.name}
            data-phase={node.startPhase}
            data-state={state}
            data-waiting={waiting ? 'true' : 'false'}
          >
            <title>{label}</title>
            <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={8} />
            <text x={10} y={22} class="node-name">
              {shortName(node.name)}
            </text>
            <text x={10} y={42} class="node-state">
              {state || 'definition'}
              {waiting ? ' · waiting' : ''}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** The last two segments of a TOSCA name fit a box; the full one is in the title and the table. */
const shortName = (name: string): string => name.split('.').slice(-2).join('.');
