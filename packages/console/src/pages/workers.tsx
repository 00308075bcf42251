import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { when } from '../parts/format';
import { ErrorNote } from '../parts/notice';
import { Shown } from '../parts/shown';
import type { WorkerInfo } from '../types';

/** Connected workers (every node sharing the store): their tools, and those left out with why. */
export function Workers({ api }: { api: Api }) {
  const [workers, setWorkers] = useState<readonly WorkerInfo[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    const load = () =>
      api.get<{ workers: WorkerInfo[] }>('/v1/workers').then((body) => {
        setWorkers(body.workers);
        setError(undefined);
      }, setError);
    void load();
    const timer = setInterval(load, 5_000);
    return () => clearInterval(timer);
  }, [api]);
  return (
    <section aria-labelledby="workers-heading">
      <h2 id="workers-heading">Workers</h2>
      <ErrorNote error={error} />
      {workers === undefined ? (
        <p class="muted">Loading…</p>
      ) : workers.length === 0 ? (
        <p class="empty">No worker is connected.</p>
      ) : (
        <div class="cards">
          {workers.map((worker) => (
            <article key={worker.id} class="card" aria-label={`worker ${worker.id}`}>
              <h3>
                <code>{worker.id}</code>
              </h3>
              <p class="meta">
                principal <strong>{worker.principal}</strong> · node {worker.node} · connected{' '}
                {when(worker.connectedAt)} · {worker.inflight} call{worker.inflight === 1 ? '' : 's'} in flight
              </p>
              <h4>Tools</h4>
              {worker.tools.length === 0 ? (
                <p class="muted">none</p>
              ) : (
                <ul class="plain">
                  {worker.tools.map((tool) => (
                    <li key={tool}>
                      <code>{tool}</code> <span class="muted">(the model sees {worker.modelNames[tool] ?? tool})</span>
                    </li>
                  ))}
                </ul>
              )}
              {worker.rejected.length > 0 && (
                <>
                  <h4>Left out</h4>
                  <ul class="plain">
                    {worker.rejected.map((each) => (
                      <li key={each.name}>
                        <span aria-hidden="true">✗ </span>
                        <code>
                          <Shown text={each.name} />
                        </code>
                        : <Shown text={each.reason} />
                      </li>
                    ))}
                  </ul>
                </>
              )}
            </article>
          ))}
        </div>
      )}
    </section>
  );
}
