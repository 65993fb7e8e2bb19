import { useCallback, useRef, useState } from 'preact/hooks';
import type { Json } from './api';
import { call, compositionPath, contentTypeOf, errorText, get, put, text } from './api';
import { FileAction, Failure, GraphView, OrderButton, StateBadge } from './components';
import type { HistoryEvent } from './live';
import { useLiveEvents } from './live';
import type { Graph } from './model';
import { STATE_CHANGING, phaseOrder } from './model';

interface Definition {
  readonly compositionId: string;
  readonly name: string;
  readonly version: string;
  readonly state: string;
  readonly stateChangeResult: string;
  /** The project of the definition and its instances (empty from a runtime that does not say). */
  readonly project: string;
}

async function readDefinition(compositionId: string): Promise<Definition> {
  const body = await get(compositionPath(compositionId));
  const template = (body['serviceTemplate'] ?? {}) as Json;
  return {
    compositionId,
    name: text(template['name']),
    version: text(template['version']),
    state: text(body['state']),
    stateChangeResult: text(body['stateChangeResult']),
    project: text(body['project']),
  };
}

/** The definitions, their state and elements; commission, prime, deprime, delete, create an instance. */
export function DefinitionsPage() {
  const [definitions, setDefinitions] = useState<Definition[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);

  const reload = useCallback(() => {
    get<{ service_templates?: Json[] }>('compositions')
      .then((body) =>
        Promise.all(
          (body.service_templates ?? []).map((template) =>
            readDefinition(String(((template['metadata'] ?? {}) as Json)['compositionId'])),
          ),
        ),
      )
      .then((list) => {
        setDefinitions(list);
        setError(null);
      })
      .catch((failure: unknown) => setError(errorText(failure)));
  }, []);

  const known = useRef(new Set<string>());
  known.current = new Set((definitions ?? []).map((definition) => definition.compositionId));
  // A prime or deprime of a listed definition: read that one again when it starts and when it ends.
  const onEvent = useCallback((event: HistoryEvent) => {
    if (!STATE_CHANGING.has(event.event) || !known.current.has(event.subjectId)) {
      return;
    }
    readDefinition(event.subjectId).then(
      (fresh) =>
        setDefinitions((current) =>
          (current ?? []).map((definition) => (definition.compositionId === fresh.compositionId ? fresh : definition)),
        ),
      () => reload(),
    );
  }, []);
  useLiveEvents(onEvent, reload, []);

  return (
    <section aria-labelledby="definitions-title">
      <h2 id="definitions-title">Definitions</h2>
      <p>
        <FileAction
          label="Commission a service template (JSON or YAML):"
          send={async (text) => {
            const answer = await call('POST', 'compositions', text, contentTypeOf(text));
            reload();
            return `commissioned ${String(answer['compositionId'])}`;
          }}
        />
      </p>
      <Failure error={error} />
      {definitions === null && error === null && <p>loading…</p>}
      {definitions !== null && definitions.length === 0 && <p>No definitions yet.</p>}
      {definitions !== null && definitions.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Version</th>
              <th scope="col">Project</th>
              <th scope="col">Composition</th>
              <th scope="col">State</th>
              <th scope="col">Result</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {definitions.map((definition) => (
              <DefinitionRow
                key={definition.compositionId}
                definition={definition}
                open={open === definition.compositionId}
                toggle={() => setOpen(open === definition.compositionId ? null : definition.compositionId)}
                reload={reload}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function DefinitionRow(props: { definition: Definition; open: boolean; toggle: () => void; reload: () => void }) {
  const { definition } = props;
  const path = compositionPath(definition.compositionId);
  return (
    <>
      <tr data-composition-id={definition.compositionId}>
        <td>{definition.name}</td>
        <td>{definition.version}</td>
        <td data-project>{definition.project}</td>
        <td>
          <code>{definition.compositionId}</code>
        </td>
        <td>
          <StateBadge state={definition.state} />
        </td>
        <td>{definition.stateChangeResult}</td>
        <td class="actions">
          <button type="button" aria-expanded={props.open} onClick={props.toggle}>
            {props.open ? 'Hide elements' : 'Elements'}
          </button>
          <OrderButton
            label="Prime"
            stateKey={`${definition.state}/${definition.stateChangeResult}`}
            title={`Prime ${definition.name} on its participants?`}
            run={() => put(path, { primeOrder: 'PRIME' })}
          />
          <OrderButton
            label="Deprime"
            stateKey={`${definition.state}/${definition.stateChangeResult}`}
            title={`Deprime ${definition.name}?`}
            run={() => put(path, { primeOrder: 'DEPRIME' })}
          />
          <OrderButton
            label="Delete"
            stateKey={`${definition.state}/${definition.stateChangeResult}`}
            title={`Delete the definition ${definition.name}?`}
            run={async () => {
              await call('DELETE', path);
              props.reload();
            }}
          />
        </td>
      </tr>
      {props.open && (
        <tr class="details">
          <td colSpan={6}>
            <DefinitionDetails compositionId={definition.compositionId} />
          </td>
        </tr>
      )}
    </>
  );
}

function DefinitionDetails(props: { compositionId: string }) {
  const [graph, setGraph] = useState<Graph | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    get<Graph>(`${compositionPath(props.compositionId)}/graph?format=json`).then(setGraph, (failure: unknown) =>
      setError(errorText(failure)),
    );
  }, [props.compositionId]);
  useLiveEvents(() => undefined, load, [props.compositionId]);
  return (
    <div>
      <Failure error={error} />
      {graph && (
        <>
          <GraphView graph={graph} />
          <p>Deploy runs phases {phaseOrder(graph, 'DEPLOY').join(' → ')}.</p>
          <ul>
            {graph.nodes.map((node) => (
              <li key={node.id}>
                {node.name} (phase {node.startPhase})
              </li>
            ))}
          </ul>
        </>
      )}
      <FileAction
        label="Create an instance from a file (JSON or YAML):"
        send={async (text) => {
          const body = JSON.stringify({ ...parseInstance(text), compositionId: props.compositionId });
          const answer = await call('POST', `${compositionPath(props.compositionId)}/instances`, body);
          const instanceId = String(answer['instanceId']);
          window.location.hash = `#/instances/${props.compositionId}/${instanceId}`;
          return `created ${instanceId}`;
        }}
      />
    </div>
  );
}

/** Instance files are JSON here (the examples are); a placeholder composition id is replaced by the chosen one. */
function parseInstance(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw new Error(`the instance file is not JSON: ${errorText(error)}`);
  }
}
