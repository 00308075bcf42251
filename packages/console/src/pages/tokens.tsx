import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { when } from '../parts/format';
import { ErrorNote } from '../parts/notice';
import type { Principal, TokenInfo } from '../types';

/** Tokens (admins): create one (shown once, here), list them (never their secrets), revoke. */
export function Tokens({ api }: { api: Api }) {
  const [tokens, setTokens] = useState<readonly TokenInfo[]>([]);
  const [principals, setPrincipals] = useState<readonly Principal[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  const [created, setCreated] = useState<{ token: string; name: string } | undefined>(undefined);
  const [form, setForm] = useState({ name: '', role: 'user', kind: 'user', agents: '*' });

  const load = useCallback(
    () =>
      api.get<{ tokens: TokenInfo[]; principals: Principal[] }>('/v1/tokens').then((body) => {
        setTokens(body.tokens);
        setPrincipals(body.principals);
      }, setError),
    [api],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const create = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const agents = form.agents
        .split(',')
        .map((each) => each.trim())
        .filter(Boolean);
      const body = await api.post<{ token: string; principal: Principal }>('/v1/tokens', {
        name: form.name.trim(),
        role: form.role,
        kind: form.kind,
        ...(agents.length > 0 ? { agents } : {}),
      });
      setCreated({ token: body.token, name: body.principal.name });
      setForm({ ...form, name: '' });
      await load();
    } catch (thrown) {
      setError(thrown);
    }
  };

  const revoke = async (id: string) => {
    if (!confirm(`Revoke token ${id}? What it opened is closed at once.`)) return;
    try {
      await api.delete(`/v1/tokens/${encodeURIComponent(id)}`);
      await load();
    } catch (thrown) {
      setError(thrown);
    }
  };

  const nameOf = (id: string) => principals.find((principal) => principal.id === id);
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">Tokens</h2>
      <ErrorNote error={error} />
      <form class="card form" onSubmit={create} aria-label="create a token">
        <h3>New token</h3>
        <label>
          Principal name{' '}
          <input
            required
            value={form.name}
            onInput={(event) => setForm({ ...form, name: (event.target as HTMLInputElement).value })}
          />
        </label>
        <label>
          Role{' '}
          <select
            value={form.role}
            onChange={(event) => setForm({ ...form, role: (event.target as HTMLSelectElement).value })}
          >
            <option value="user">user</option>
            <option value="operator">operator</option>
            <option value="admin">admin</option>
            <option value="worker">worker</option>
          </select>
        </label>
        <label>
          Kind{' '}
          <select
            value={form.kind}
            onChange={(event) => setForm({ ...form, kind: (event.target as HTMLSelectElement).value })}
          >
            <option value="user">user</option>
            <option value="service">service</option>
            <option value="worker">worker</option>
          </select>
        </label>
        <label>
          Agents (comma-separated, * for all){' '}
          <input
            value={form.agents}
            onInput={(event) => setForm({ ...form, agents: (event.target as HTMLInputElement).value })}
          />
        </label>
        <button type="submit">Create token</button>
      </form>
      {created && (
        <div class="card created" role="status">
          <p>
            <strong>Token for {created.name}</strong>: shown only now. Copy it; it is not stored in this page.
          </p>
          <input
            class="secret"
            readOnly
            value={created.token}
            aria-label="the new token"
            onFocus={(event) => (event.target as HTMLInputElement).select()}
          />
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
      <ul class="rows" aria-label="tokens">
        {tokens.map((token) => {
          const principal = nameOf(token.principalId);
          return (
            <li key={token.id} class="row">
              <code class="row-title">{token.id}</code>
              <span>
                {principal ? (
                  <>
                    <strong>{principal.name}</strong> ({principal.role}, agents {principal.agents.join(', ')})
                  </>
                ) : (
                  token.principalId
                )}
              </span>
              <time class="muted">created {when(token.createdAt)}</time>
              {token.expiresAt !== undefined && (
                <time class="muted">
                  {token.expiresAt <= Date.now() ? 'expired' : 'expires'} {when(token.expiresAt)}
                </time>
              )}
              {token.revokedAt !== undefined ? (
                <span class="status status-cancelled">
                  <span aria-hidden="true">■ </span>revoked {when(token.revokedAt)}
                </span>
              ) : (
                <button type="button" onClick={() => revoke(token.id)}>
                  Revoke
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
