import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, ApiError } from './api';
import { Inbox } from './pages/inbox';
import { Run } from './pages/run';
import { Runs } from './pages/runs';
import { Session, Sessions } from './pages/sessions';
import { SignIn } from './pages/sign-in';
import { Tokens } from './pages/tokens';
import { Workers } from './pages/workers';
import { ErrorNote } from './parts/notice';
import { href, type Route, useRoute } from './router';
import { forgetToken, savedToken, saveToken } from './session';
import type { Action, Me } from './types';

/** The pages of the nav, and what a principal must be allowed to see each. */
const NAV: readonly { page: Route['page']; words: string; needs: Action }[] = [
  { page: 'inbox', words: 'Inbox', needs: 'park.read' },
  { page: 'runs', words: 'Runs', needs: 'run.read' },
  { page: 'sessions', words: 'Sessions', needs: 'run.read' },
  { page: 'workers', words: 'Workers', needs: 'workers.list' },
  { page: 'tokens', words: 'Tokens', needs: 'tokens.manage' },
];

export function App() {
  const [token, setToken] = useState<string | undefined>(() => savedToken());
  const [me, setMe] = useState<Me | undefined>(undefined);
  const [signedOutWhy, setSignedOutWhy] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const route = useRoute();

  const signOut = (why?: string) => {
    forgetToken();
    setToken(undefined);
    setMe(undefined);
    setSignedOutWhy(why);
  };
  const api = useMemo(
    () =>
      token === undefined
        ? undefined
        : new Api(token, () => signOut('The server refused the token (401): sign in again.')),
    [token],
  );

  useEffect(() => {
    if (api === undefined || me !== undefined) return;
    api.me().then(setMe, (thrown) => {
      if (!(thrown instanceof ApiError && thrown.status === 401)) setError(thrown);
    });
  }, [api, me]);

  if (api === undefined) {
    return (
      <SignIn
        reason={signedOutWhy}
        onSignedIn={(given, who) => {
          saveToken(given);
          setToken(given);
          setMe(who);
          setSignedOutWhy(undefined);
        }}
      />
    );
  }
  if (me === undefined) {
    return <main class="main">{error ? <ErrorNote error={error} /> : <p class="muted">Signing in…</p>}</main>;
  }
  const allowed = NAV.filter((item) => me.may[item.needs]);
  const current = route.page === 'run' ? 'runs' : route.page === 'session' ? 'sessions' : route.page;
  const shown = allowed.some((item) => item.page === current)
    ? route
    : allowed[0]
      ? ({ page: allowed[0].page } as Route)
      : undefined;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <p class="brand">Wardrik</p>
        <nav aria-label="pages">
          <ul>
            {allowed.map((item) => (
              <li key={item.page}>
                <a href={href({ page: item.page } as Route)} aria-current={item.page === current ? 'page' : undefined}>
                  {item.words}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p class="who">
          <span>
            {me.principal.name} <span class="muted">({me.principal.role})</span>
          </span>{' '}
          <button type="button" class="link" onClick={() => signOut()}>
            Sign out
          </button>
        </p>
      </header>
      <main id="main" class="main" tabIndex={-1}>
        {shown === undefined ? (
          <p>This token ({me.principal.role}) may not read anything the console shows.</p>
        ) : (
          <Page route={shown} api={api} me={me} />
        )}
      </main>
    </>
  );
}

function Page({ route, api, me }: { route: Route; api: Api; me: Me }) {
  switch (route.page) {
    case 'inbox':
      return <Inbox api={api} me={me} />;
    case 'runs':
      return <Runs api={api} />;
    case 'run':
      return <Run api={api} me={me} id={route.id} />;
    case 'sessions':
      return <Sessions api={api} />;
    case 'session':
      return <Session api={api} me={me} id={route.id} />;
    case 'workers':
      return <Workers api={api} />;
    case 'tokens':
      return <Tokens api={api} />;
  }
}
