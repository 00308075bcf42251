import { useEffect, useState } from 'preact/hooks';
import { type Api, query } from '../api';
import { cost, when } from '../parts/format';
import { Labels } from '../parts/labels';
import { ErrorNote } from '../parts/notice';
import { Shown } from '../parts/shown';
import { Status } from '../parts/status';
import { href } from '../router';
import type { RunRow, RunStatus } from '../types';

const STATUSES: readonly RunStatus[] = ['running', 'parked', 'completed', 'failed', 'cancelled'];

/** Runs, newest first, filtered by status, agent and principal; read again every few seconds. */
export function Runs({ api }: { api: Api }) {
  const [status, setStatus] = useState('');
  const [agent, setAgent] = useState('');
  const [principal, setPrincipal] = useState('');
  const [runs, setRuns] = useState<readonly RunRow[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);

  useEffect(() => {
    const controller = new AbortController();
    const load = () =>
      api.get<{ runs: RunRow[] }>(`/v1/runs${query({ status, agent, principal, limit: 200 })}`, controller.signal).then(
        (body) => {
          setRuns(body.runs);
          setError(undefined);
        },
        (thrown) => controller.signal.aborted || setError(thrown),
      );
    void load();
    const timer = setInterval(load, 3_000);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [api, status, agent, principal]);

  return (
    <section aria-labelledby="runs-heading">
      <h2 id="runs-heading">Runs</h2>
      <form class="filters" aria-label="filter runs" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status{' '}
          <select value={status} onChange={(event) => setStatus((event.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {STATUSES.map((each) => (
              <option key={each} value={each}>
                {each}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent <input value={agent} onChange={(event) => setAgent((event.target as HTMLInputElement).value.trim())} />
        </label>
        <label>
          Principal{' '}
          <input
            value={principal}
            onChange={(event) => setPrincipal((event.target as HTMLInputElement).value.trim())}
          />
        </label>
      </form>
      <ErrorNote error={error} />
      {runs === undefined ? (
        <p class="muted">Loading…</p>
      ) : runs.length === 0 ? (
        <p class="empty">No runs.</p>
      ) : (
        <ul class="rows" aria-label="runs">
          {runs.map((run) => (
            <li key={run.id} class="row">
              <a href={href({ page: 'run', id: run.id })} class="row-title">
                {run.id}
              </a>
              <Status status={run.status} />
              <span>
                agent <strong>{run.agent}</strong>
              </span>
              <span>for {run.principal}</span>
              <span>{cost(run.measures)}</span>
              <Labels labels={run.labels} />
              <time class="muted">{when(run.createdAt)}</time>
              {run.attention && (
                <span class="error">
                  needs attention: <Shown text={run.attention} />
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
