import { useCallback, useState } from 'preact/hooks';
import type { Json } from './api';
import { errorText, get, text } from './api';
import { Failure, StateBadge } from './components';
import { useLiveEvents } from './live';

const values = (value: unknown): Json[] => Object.values((value ?? {}) as Record<string, Json>);

/** The participants, the element types they serve and their replicas. */
export function ParticipantsPage() {
  const [participants, setParticipants] = useState<Json[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    get<Json[]>('participants').then(
      (body) => {
        setParticipants(body);
        setError(null);
      },
      (failure: unknown) => setError(errorText(failure)),
    );
  }, []);
  useLiveEvents(() => undefined, reload, []);
  return (
    <section aria-labelledby="participants-title">
      <h2 id="participants-title">Participants</h2>
      <p>
        <button type="button" onClick={reload}>
          Refresh
        </button>{' '}
        (registrations and heartbeats are not history events, so this page reads them on request)
      </p>
      <Failure error={error} />
      {participants !== null && participants.length === 0 && <p>No participant has registered.</p>}
      {participants?.map((entry) => {
        const participant = (entry['participant'] ?? {}) as Json;
        const id = String(participant['participantId']);
        return (
          <article key={id} class="participant">
            <h3>
              Participant <code>{id}</code>
            </h3>
            <p>
              Element types:{' '}
              {values(participant['participantSupportedElementTypes'])
                .map((type) => `${String(type['typeName'])}:${String(type['typeVersion'])}`)
                .join(', ')}
            </p>
            <table>
              <thead>
                <tr>
                  <th scope="col">Replica</th>
                  <th scope="col">State</th>
                  <th scope="col">Last message</th>
                </tr>
              </thead>
              <tbody>
                {values(participant['replicas']).map((replica) => (
                  <tr key={String(replica['replicaId'])}>
                    <td>
                      <code>{String(replica['replicaId'])}</code>
                    </td>
                    <td>
                      <StateBadge state={text(replica['participantState'])} />
                    </td>
                    <td>{text(replica['lastMsg'])}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </article>
        );
      })}
    </section>
  );
}
