import { useCallback, useState } from 'preact/hooks';
import type { Json } from './api';
import { errorText, get, text } from './api';
import { Failure, StateBadge } from './components';
import type { HistoryEvent } from './live';
import { STATE_CHANGING } from './model';
import { useLiveEvents } from './live';

const DEPLOY_STATES = ['UNDEPLOYED', 'DEPLOYING', 'DEPLOYED', 'UNDEPLOYING', 'DELETING', 'UPDATING', 'MIGRATING'];
const RESULTS = ['NO_ERROR', 'FAILED', 'TIMEOUT'];

/** Instances across definitions (`GET /v2/instances`), filtered by deploy state and result. */
export function InstancesPage() {
  const [deployStates, setDeployStates] = useState<string[]>([]);
  const [result, setResult] = useState('');
  const [instances, setInstances] = useState<Json[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const query = new URLSearchParams();
  if (deployStates.length > 0) {
    query.set('deployState', deployStates.join(','));
  }
  if (result !== '') {
    query.set('stateChangeResult', result);
  }
  const search = query.toString();

  const reload = useCallback(() => {
    get<{ automationCompositionList?: Json[] }>(`instances${search ? `?${search}` : ''}`).then(
      (body) => {
        setInstances(body.automationCompositionList ?? []);
        setError(null);
      },
      (failure: unknown) => setError(errorText(failure)),
    );
  }, [search]);
  const onEvent = useCallback(
    (event: HistoryEvent) => {
      if (STATE_CHANGING.has(event.event)) {
        reload();
      }
    },
    [reload],
  );
  useLiveEvents(onEvent, reload, [search]);

  const toggle = (state: string): void =>
    setDeployStates((current) =>
      current.includes(state) ? current.filter((item) => item !== state) : [...current, state],
    );
  return (
    <section aria-labelledby="instances-title">
      <h2 id="instances-title">Instances</h2>
      <fieldset class="filters">
        <legend>Deploy state</legend>
        {DEPLOY_STATES.map((state) => (
          <label key={state}>
            <input type="checkbox" checked={deployStates.includes(state)} onChange={() => toggle(state)} /> {state}
          </label>
        ))}
        <label>
          Result{' '}
          <select value={result} onChange={(event) => setResult(event.currentTarget.value)}>
            <option value="">any</option>
            {RESULTS.map((item) => (
              <option key={item} value={item}>
                {item}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      <Failure error={error} />
      {instances !== null && instances.length === 0 && <p>No instance matches.</p>}
      {instances !== null && instances.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Project</th>
              <th scope="col">Deploy</th>
              <th scope="col">Lock</th>
              <th scope="col">Result</th>
              <th scope="col">Instance</th>
            </tr>
          </thead>
          <tbody>
            {instances.map((instance) => {
              const id = String(instance['instanceId']);
              return (
                <tr key={id}>
                  <td>
                    <a href={`#/instances/${String(instance['compositionId'])}/${id}`}>{String(instance['name'])}</a>
                  </td>
                  <td data-project>{text(instance['project'])}</td>
                  <td>
                    <StateBadge state={text(instance['deployState'])} />
                  </td>
                  <td>
                    <StateBadge state={text(instance['lockState'])} />
                  </td>
                  <td>{text(instance['stateChangeResult'])}</td>
                  <td>
                    <code>{id}</code>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
