import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { pretty, when } from '../parts/format';
import { Labels } from '../parts/labels';
import { ErrorNote } from '../parts/notice';
import { InvisibleFlag, Shown } from '../parts/shown';
import { Status } from '../parts/status';
import { href } from '../router';
import type { Me, SessionDetails, SessionRow } from '../types';

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
export function Session({ api, me, id }: { api: Api; me: Me; id: string }) {
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
            <InvisibleFlag value={message} />
            <p class="entry-head">
              <strong>{message.role}</strong> <span class="muted">in {message.runId}</span>
            </p>
            <pre class="text">
              <Shown
                text={pretty(
                  (message as { content?: unknown; text?: unknown }).content ?? (message as { text?: unknown }).text,
                )}
              />
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
                <code>
                  <Shown text={value.key} />
                </code>
              </dt>
              <dd key={`${value.key}-v`}>
                <InvisibleFlag value={[value.key, value.value]} />
                <pre class="json">
                  <Shown text={pretty(value.value)} />
                </pre>
                <Labels labels={value.labels} />
              </dd>
            </>
          ))}
        </dl>
      )}
      {me.may['state.edit'] && <EditState api={api} id={session.id} onDone={setSession} />}
      {session.edits.length > 0 && (
        <>
          <h3>People's edits</h3>
          <ol class="timeline" aria-label="edits">
            {session.edits.map((edit) => (
              <li key={edit.id} class="entry">
                <InvisibleFlag value={edit} />
                <p class="entry-head">
                  <strong>
                    <Shown text={edit.by} />
                  </strong>{' '}
                  <time class="muted">{when(edit.at)}</time>: <Shown text={edit.reason} />
                </p>
                <p class="muted">
                  <Shown
                    text={edit.writes
                      .map((write) => (write.deleted ? `deleted ${write.key}` : `set ${write.key}`))
                      .join(', ')}
                  />
                </p>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

/** Sets or deletes a key of the session's state as a person, with a reason kept with the change (operators, admins). */
function EditState({ api, id, onDone }: { api: Api; id: string; onDone: (session: SessionDetails) => void }) {
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [reason, setReason] = useState('');
  const [remove, setRemove] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const send = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    let parsed: unknown;
    if (!remove) {
      try {
        parsed = JSON.parse(value);
      } catch {
        setError(new Error('the value must be JSON (text in quotes)'));
        return;
      }
    }
    try {
      const body = remove
        ? { delete: [key.trim()], reason: reason.trim() }
        : { set: { [key.trim()]: parsed }, reason: reason.trim() };
      onDone(await api.post<SessionDetails>(`/v1/sessions/${encodeURIComponent(id)}/state`, body));
      setKey('');
      setValue('');
      setReason('');
    } catch (thrown) {
      setError(thrown);
    }
  };
  return (
    <form class="card form" onSubmit={send} aria-label="edit the state">
      <h3>Edit the state</h3>
      <label>
        Key (cart, user:name; app: keys take an admin){' '}
        <input required value={key} onInput={(event) => setKey((event.target as HTMLInputElement).value)} />
      </label>
      <label>
        <span>
          <input
            type="checkbox"
            checked={remove}
            onChange={(event) => setRemove((event.target as HTMLInputElement).checked)}
          />{' '}
          Delete this key
        </span>
      </label>
      {!remove && (
        <label>
          New value (JSON){' '}
          <textarea
            rows={3}
            spellcheck={false}
            value={value}
            onInput={(event) => setValue((event.target as HTMLTextAreaElement).value)}
          />
        </label>
      )}
      <label>
        Why (kept with your name){' '}
        <input required value={reason} onInput={(event) => setReason((event.target as HTMLInputElement).value)} />
      </label>
      <ErrorNote error={error} />
      <button type="submit">{remove ? 'Delete the key' : 'Set the value'}</button>
    </form>
  );
}
