import { render } from 'preact';
import { errorText } from './api';
import { signIn, signOut, signedInUser, startAuthentication } from './auth';
import { useEffect, useState } from 'preact/hooks';
import { DefinitionsPage } from './definitions';
import { InstancePage } from './instance';
import { InstancesPage } from './instances';
import { liveRefusal, useLiveStatus } from './live';
import { ParticipantsPage } from './participants';
import { RolloutPage, RolloutsPage } from './rollouts';
import './style.css';

/** Hash routes, so the runtime serves one file and a reload keeps the page. */
function useRoute(): string[] {
  const read = (): string[] => window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = (): void => setRoute(read());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function App() {
  const route = useRoute();
  const live = useLiveStatus();
  const [page = 'definitions', first, second] = route;
  let content;
  if (page === 'instances' && first !== undefined && second !== undefined) {
    content = <InstancePage key={`${first}/${second}`} compositionId={first} instanceId={second} />;
  } else if (page === 'instances') {
    content = <InstancesPage />;
  } else if (page === 'rollouts' && first !== undefined) {
    content = <RolloutPage key={first} rolloutId={first} />;
  } else if (page === 'rollouts') {
    content = <RolloutsPage />;
  } else if (page === 'participants') {
    content = <ParticipantsPage />;
  } else {
    content = <DefinitionsPage />;
  }
  const link = (name: string, label: string) => (
    <a href={`#/${name}`} aria-current={page === name ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <header>
        <h1>ACM runtime</h1>
        <nav aria-label="sections">
          {link('definitions', 'Definitions')}
          {link('instances', 'Instances')}
          {link('participants', 'Participants')}
          {link('rollouts', 'Rollouts')}
        </nav>
        {live === 'refused' ? (
          <span class="live live-refused" role="alert" data-live={live}>
            {liveRefusal()}
          </span>
        ) : (
          <span class={`live live-${live}`} role="status" data-live={live}>
            {live === 'live' ? 'live updates on' : live === 'connecting' ? 'connecting…' : 'reconnecting…'}
          </span>
        )}
        <SignedIn />
      </header>
      <main>{content}</main>
    </>
  );
}

/** The user signed in through the provider and a way out; nothing under HTTP Basic (the browser holds those). */
function SignedIn() {
  const user = signedInUser();
  if (user === null) {
    return null;
  }
  return (
    <span class="signed-in">
      <span data-user={user}>{user}</span>
      <button type="button" onClick={() => void signOut()}>
        Sign out
      </button>
    </span>
  );
}

/** The sign-in failed (the provider refused, or its answer did not match): say why and offer to try again. */
function SignInFailed({ reason }: { reason: string }) {
  return (
    <main>
      <p role="alert">Sign-in failed: {reason}</p>
      <button type="button" onClick={() => void signIn()}>
        Sign in
      </button>
    </main>
  );
}

const root = document.getElementById('app')!;
startAuthentication().then(
  (ready) => {
    if (ready) {
      render(<App />, root);
    }
  },
  (error: unknown) => render(<SignInFailed reason={errorText(error)} />, root),
);
