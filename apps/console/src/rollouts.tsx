import { useCallback, useEffect, useState } from 'preact/hooks';
import { call, errorText, get } from './api';
import { Failure, OrderButton } from './components';
import type { HistoryEvent } from './live';
import { useLiveEvents, useLiveStatus } from './live';
import type { Rollout } from './rollout-view';
import {
  ROLLOUT_CONTROLS,
  bakeText,
  controlRefusal,
  countsText,
  progressText,
  rolloutFinished,
  rolloutTone,
  waitText,
} from './rollout-view';

/** While no live stream is open, an unfinished rollout is read again this often. */
const POLL_MS = 2000;

const rolloutPath = (rolloutId: string): string => `rollouts/${encodeURIComponent(rolloutId)}`;

/** A rollout, batch or instance state, coloured like the other pages' states and written out. */
export function RolloutBadge(props: { state: string }) {
  return (
    <span class={`badge tone-${rolloutTone(props.state)}`} data-state={props.state}>
      {props.state}
    </span>
  );
}

/**
 * Reads `load` once the stream is subscribed and again on each of its ROLLOUT events that `concerns`; while the
 * stream is not open, polls instead (until `done`).
 */
function useRolloutReads(load: () => void, concerns: (event: HistoryEvent) => boolean, key: string, done: boolean) {
  const live = useLiveStatus();
  const onEvent = useCallback(
    (event: HistoryEvent) => {
      if (event.event === 'ROLLOUT' && concerns(event)) {
        load();
      }
    },
    [key],
  );
  useLiveEvents(onEvent, load, [key]);
  useEffect(() => {
    if (live === 'live' || done) {
      return undefined;
    }
    load();
    const timer = setInterval(load, POLL_MS);
    return () => clearInterval(timer);
  }, [live, done, key]);
}

/** Every rollout, newest first: its order, composition, state and progress. */
export function RolloutsPage() {
  const [rollouts, setRollouts] = useState<readonly Rollout[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    get<{ rollouts: Rollout[] }>('rollouts').then(
      (body) => {
        setRollouts(body.rollouts);
        setError(null);
      },
      (failure: unknown) => setError(errorText(failure)),
    );
  }, []);
  // A new rollout may appear at any time: the list polls for as long as no stream is open.
  useRolloutReads(load, () => true, 'rollouts', false);
  return (
    <section aria-labelledby="rollouts-title">
      <h2 id="rollouts-title">Rollouts</h2>
      <Failure error={error} />
      {rollouts !== null && rollouts.length === 0 && <p>No rollout yet.</p>}
      {rollouts !== null && rollouts.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Rollout</th>
              <th scope="col">Order</th>
              <th scope="col">Composition</th>
              <th scope="col">State</th>
              <th scope="col">Progress</th>
              <th scope="col">Instances</th>
            </tr>
          </thead>
          <tbody>
            {rollouts.map((rollout) => (
              <tr key={rollout.rolloutId} data-rollout-id={rollout.rolloutId}>
                <td>
                  <a href={`#/rollouts/${rollout.rolloutId}`}>
                    <code>{rollout.rolloutId}</code>
                  </a>
                </td>
                <td>{rollout.order}</td>
                <td>
                  <code>{rollout.compositionId}</code>
                </td>
                <td>
                  <RolloutBadge state={rollout.state} />
                </td>
                <td class="rollout-progress">{progressText(rollout.counts)}</td>
                <td>{countsText(rollout.counts)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** One rollout: its batches as rows, each instance a cell labelled by its state, what it waits for, and controls. */
export function RolloutPage(props: { rolloutId: string }) {
  const path = rolloutPath(props.rolloutId);
  const [rollout, setRollout] = useState<Rollout | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    get<Rollout>(path).then(
      (body) => {
        // Reads started by two pushed events may answer out of order: the later update wins.
        setRollout((current) => (current !== null && current.updatedAt > body.updatedAt ? current : body));
        setError(null);
      },
      (failure: unknown) => setError(errorText(failure)),
    );
  }, [path]);
  useRolloutReads(
    load,
    (event) => event.subjectId === props.rolloutId,
    props.rolloutId,
    rollout !== null && rolloutFinished(rollout.state),
  );
  if (rollout === null) {
    return (
      <section>
        <h2>Rollout {props.rolloutId}</h2>
        {error === null ? <p>loading…</p> : <Failure error={error} />}
        <a href="#/rollouts">Back to the rollouts</a>
      </section>
    );
  }
  const waiting = waitText(rollout);
  return (
    <section aria-labelledby="rollout-title">
      <h2 id="rollout-title">
        Rollout <small>{rollout.rolloutId}</small>
      </h2>
      <p class="summary">
        {rollout.order} of composition <code>{rollout.compositionId}</code>
        {rollout.compositionTargetId !== null && (
          <>
            {' '}
            to <code>{rollout.compositionTargetId}</code>
          </>
        )}
        : <RolloutBadge state={rollout.state} /> <span class="rollout-progress">{progressText(rollout.counts)}</span> (
        {countsText(rollout.counts)})
      </p>
      {rollout.reason !== null && (
        <p class="rollout-reason" role="status">
          Reason: {rollout.reason}
        </p>
      )}
      {waiting !== null && (
        <p class="rollout-waiting" role="status">
          Waiting: {waiting}
        </p>
      )}
      <Failure error={error} />
      <div class="orders" role="group" aria-label="rollout controls">
        {ROLLOUT_CONTROLS.map(({ label, action }) => (
          <OrderButton
            key={action}
            label={label}
            title={`${label} rollout ${rollout.rolloutId}?`}
            run={() => call('POST', `${path}/${action}`).then(load)}
            refusedBecause={controlRefusal(rollout.rolloutId, rollout.state, action)}
            stateKey={rollout.state}
          />
        ))}
      </div>
      <h3>Batches</h3>
      <table class="rollout-batches">
        <thead>
          <tr>
            <th scope="col">Batch</th>
            <th scope="col">State</th>
            <th scope="col">Failures</th>
            <th scope="col">Instances</th>
          </tr>
        </thead>
        <tbody>
          {rollout.batches.map((batch) => {
            const bake = bakeText(batch);
            return (
              <tr key={batch.batch} data-batch={batch.batch} data-state={batch.state}>
                <th scope="row">{batch.batch}</th>
                <td>
                  <RolloutBadge state={batch.state} />
                  {bake !== null && (
                    <span class="bake" title={`until ${batch.bakingUntil ?? ''}`}>
                      {' '}
                      {bake}
                    </span>
                  )}
                </td>
                <td>
                  {batch.failures}
                  {batch.overThreshold && ' (over the threshold)'}
                </td>
                <td class="rollout-instances">
                  {batch.instances.map((instance) => (
                    <span
                      key={instance.instanceId}
                      class={`rollout-instance badge tone-${rolloutTone(instance.state)}`}
                      data-instance-id={instance.instanceId}
                      data-state={instance.state}
                      title={instance.reason ?? instance.instanceId}
                    >
                      <code>{instance.instanceId.slice(0, 8)}</code> {instance.state}
                      {instance.reason !== null && <span class="instance-reason">: {instance.reason}</span>}
                    </span>
                  ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rollout.refused.length > 0 && (
        <>
          <h3>Left out</h3>
          <ul>
            {rollout.refused.map((refused) => (
              <li key={refused.instanceId}>
                <code>{refused.instanceId}</code>: {refused.reason}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
