import { useState } from 'preact/hooks';
import { Api } from '../api';
import { ErrorNote } from '../parts/notice';
import type { Me } from '../types';

/** Sign in with a token: checked with /v1/me, then kept in this tab's sessionStorage only. */
export function SignIn({
  onSignedIn,
  reason,
}: {
  onSignedIn: (token: string, me: Me) => void;
  reason?: string | undefined;
}) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    const given = token.trim();
    try {
      const me = await new Api(given).me();
      setToken('');
      onSignedIn(given, me);
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Wardrik console</h1>
      {reason && (
        <p class="error" role="alert">
          {reason}
        </p>
      )}
      <form onSubmit={submit} aria-label="sign in" class="card form">
        <label for="token">Token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={token}
          onInput={(event) => setToken((event.target as HTMLInputElement).value)}
          placeholder="wdk_…"
        />
        <p class="muted">
          Kept in this tab only (session storage), sent only in the Authorization header. <code>wardrik serve</code>{' '}
          prints an admin token; <code>wardrik tokens create</code> makes others.
        </p>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
