import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { pretty, when } from '../parts/format';
import { Labels } from '../parts/labels';
import { ErrorNote } from '../parts/notice';
import { Status } from '../parts/status';
import { href } from '../router';
import type { SessionDetails, SessionRow } from '../types';

/** Sessions, most recently used first. */
export function Sessions({ api }: { api: Api }) {
  const [sessions, setSessions] = useState<readonly SessionRow[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    api.get<{ sessions: SessionRow[] }>('/v1/sessions?limit=200').then((body) => setSessions(body.sessions), setError);
  }, [api]);
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <ErrorNote error={error} />
      {sessions === undefined ? (
        <p class="muted">Loading…</p>
      ) : sessions.length === 0 ? (
        <p class="empty">No sessions.</p>
      ) : (
        <ul class="rows" aria-label="sessions">
          {sessions.map((session) => (
            <li key={session.id} class="row">
              <a class="row-title" href={href({ page: 'session', id: session.id })}>
                {session.id}
              </a>
              <span>
                agent <strong>{session.agent}</strong>
              </span>
              <span>for {session.principal}</span>
              <span>
                {session.runs} run{session.runs === 1 ? '' : 's'}
              </span>
              <time class="muted">used {when(session.updatedAt)}</time>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A session: its runs, its latest messages and the state its next run reads. */
export function Session({ api, id }: { api: Api; id: string }) {
  const [session, setSession] = useState<SessionDetails | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    api.get<SessionDetails>(`/v1/sessions/${encodeURIComponent(id)}?messages=100`).then(setSession, setError);
  }, [api, id]);
  if (session === undefined) {
    return (
      <section>
        <h2>Session {id}</h2>
        {error ? <ErrorNote error={error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }
  return (
    <section aria-labelledby="session-heading">
      <h2 id="session-heading">
        Session <code>{session.id}</code>
      </h2>
      <p class="meta">
        agent <strong>{session.agent}</strong> · for {session.principal} · started {when(session.createdAt)}
      </p>
      <h3>Runs</h3>
      <ul class="rows">
        {session.runList.map((run) => (
          <li key={run.id} class="row">
            <a class="row-title" href={href({ page: 'run', id: run.id })}>
              {run.id}
            </a>
            <Status status={run.status} />
            <Labels labels={run.labels} />
          </li>
        ))}
      </ul>
      <h3>Messages{session.earlierMessages ? ' (the latest)' : ''}</h3>
      <ol class="timeline">
        {session.messages.map((message, index) => (
          <li key={`${message.runId}-${index}`} class="entry">
            <p class="entry-head">
              <strong>{message.role}</strong> <span class="muted">in {message.runId}</span>
            </p>
            <pre class="text">
              {pretty(
                (message as { content?: unknown; text?: unknown }).content ?? (message as { text?: unknown }).text,
              )}
            </pre>
          </li>
        ))}
      </ol>
      <h3>State</h3>
      {session.state.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <dl class="facts">
          {session.state.map((value) => (
            <>
              <dt key={`${value.key}-k`}>
                <code>{value.key}</code>
              </dt>
              <dd key={`${value.key}-v`}>
                <pre class="json">{pretty(value.value)}</pre>
                <Labels labels={value.labels} />
              </dd>
            </>
          ))}
        </dl>
      )}
    </section>
  );
}
